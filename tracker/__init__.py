"""The appliance: frames in, a durable game record and per-viewer states out.

The rooms, in the order data flows:

1. `sources`: where a frame enters (cameras, recordings, recovery of a dead camera).
2. `front` (front camera: cards shown) and `overhead` (the overhead reader's set-up: layout, pose, colours).
3. `table`: readings stabilised and reconciled with the board the game expects; where `rules` is asked.
4. `record`: where a row is made durable (hash chain, signatures, keyframes).
5. `service`: the per-viewer projection `web` talks to, through `tracker.api` only.
6. `runtime` and `commands` (with `cli`): the composition root that wires the rooms, and `web`, together.

`errors` and `config` are shared by every room; `api` is the public interface `web` may import.
"""
