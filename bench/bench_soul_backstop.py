"""A player's die on a stand, end to end: frames -> reader -> stabiliser -> table -> record (issue 13, lies21).

``bench/bench_player_dice.py`` counts the frames in which the overhead reader reads a die (``vision.synth.dice``:
D6, diel die, D20 in the owner's colour, 12-20 mm) as a confident piece. This bench asks what the record makes
of it: a game in its first day (both capitals and base camps placed; red's Hilbert in its camp on T1, blue's
Tears for Oly moved out to M4, its card in slot 4), run through the real table loop (`OverheadLoop`,
`BoardReader` with or without the empty-table photo, `Table`), then one die dropped on an empty stand and
left there, then taken away. Two of three seeds put it on a movement stand the owner's camped soul could
legally reach (where a soul read there is explained as that soul leaving its camp); the third on any empty
stand. Per die kind it counts the actions the overhead camera recorded while the die lay there (every one a
move nobody made), the questions asked, the stands named an unknown object, those awaiting the owner's
confirmation and those left a difference between board and record (out of sync, in the owner's colour);
after the die is taken away, the questions and warnings still open.

    PYTHONPATH=. .venv/bin/python bench/bench_soul_backstop.py --seeds 9800 9812 [--frames 5] [--modes photo none]
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path
from typing import cast

import numpy as np

from calibration.camera import default_pose
from rules.kipukas.notation import parse
from tests.overhead_support import PALETTE, layout
from tests.table_helpers import CLAIMS, new_table, say, set_up
from tracker.table.loop import OverheadLoop
from vision.board import BoardReader
from vision.dice_faces import SIZE_MM
from vision.synth import Renderer, SlotCard, TableScene, Token
from vision.synth.dice import draw_die, random_die
from vision.warp import Mat3

KINDS = ("d6", "d20", "diel")
CAMPED = {"red": ("HMPU#0004", "T1")}  # the soul each owner has in a base camp
SIZE = (2028, 1520)


class Raised:
    """A renderer's planes raised by ``z0_mm``: ``draw_die`` draws from the table top (z 0), a stand is higher."""

    def __init__(self, renderer: Renderer, z0_mm: float) -> None:
        self.renderer = renderer
        self.z0_mm = z0_mm
        self.px_per_mm = renderer.px_per_mm

    def plane(self, z_mm: float) -> Mat3:
        return self.renderer.plane(z_mm + self.z0_mm)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs=2, default=(9800, 9812), help="first and last+1 seed")
    ap.add_argument("--sizes", type=float, nargs=2, default=(12.0, 20.0), help="die sizes drawn from (mm)")
    ap.add_argument("--frames", type=int, default=5, help="frames read with the die on the stand")
    ap.add_argument("--modes", nargs="+", default=["photo", "none"], choices=["photo", "none"],
                    help="with the empty-table photo, without it")
    args = ap.parse_args()
    counts: Counter[tuple[str, str, str]] = Counter()
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="soul-backstop-") as tmp:
        for seed in range(*args.seeds):
            for mode in args.modes:
                got, line = one(seed, mode, args, Path(tmp) / f"{seed}-{mode}")
                kind = KINDS[seed % 3]
                for what, n in got.items():
                    counts[(kind, mode, what)] += n
                counts[(kind, mode, "runs")] += 1
                lines.append(line)
    cols = ("runs", "read", "moves", "rejected", "questions", "unknown", "pending", "difference", "open after")
    print(f"a player's die on a stand through the table loop, seeds {args.seeds[0]}-{args.seeds[1] - 1}, "
          f"{args.frames} frames with the die, sizes {args.sizes[0]:g}-{args.sizes[1]:g} mm")
    print(f"{'die':6} {'photo':6} " + " ".join(f"{c:>10}" for c in cols))
    for kind in KINDS:
        for mode in args.modes:
            if counts[(kind, mode, "runs")]:
                print(f"{kind:6} {mode:6} " + " ".join(f"{counts[(kind, mode, c)]:10d}" for c in cols))
    total = sum(n for (_, _, what), n in counts.items() if what == "moves")
    print(f"actions recorded that did not happen (accepted or rejected, in the owner's name): "
          f"{total + sum(n for (_, _, what), n in counts.items() if what == 'rejected')}")
    for line in lines:
        print("  " + line)
    return 0


def one(seed: int, mode: str, args: argparse.Namespace, folder: Path) -> tuple[Counter[str], str]:
    """One game, one die: what the record and the pages made of it."""
    folder.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    lay = layout()
    r = Renderer(lay, default_pose(lay, image_size=SIZE), PALETTE)
    table = new_table(folder)
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed", "blue move F3GW#0001 T3-M4")
    tokens = {stand: Token(kind, owner) for stand, kind, owner in CLAIMS}
    tokens["M4"] = Token("soul", "blue")
    slots = {"1": [SlotCard("up")], "4": [SlotCard("up")]}
    scene = TableScene(tokens, slots)
    photo = r.render(TableScene({}), seed=seed + 500) if mode == "photo" else None
    loop = OverheadLoop(table, BoardReader(lay, default_pose(lay, image_size=SIZE), PALETTE, photo))
    clean, _ = r.compose(scene, seed=seed)
    for i in range(4):
        loop.process(r.finish(clean, seed=seed * 10 + i))
    rows = table.record.last_seq
    owner = "red" if seed % 2 == 0 else "blue"
    kind = KINDS[seed % 3]
    empties = [s.id for s in lay.stands if s.id not in tokens]
    danger = [s for s in empties if s.startswith("M") and owner in CAMPED and table.game.is_legal(
        parse(f"{owner} move {CAMPED[owner][0]} {CAMPED[owner][1]}-{s}"))]
    if owner not in CAMPED:  # blue has no camped soul: any movement stand next to its camps
        danger = [s for s in empties if s.startswith("M")]
    pool = danger if seed % 3 != 2 and danger else empties
    sid = pool[int(rng.integers(len(pool)))]
    x, y, z = lay.stand_world(sid)
    side = float(rng.uniform(*args.sizes))
    saved = SIZE_MM[kind]
    SIZE_MM[kind] = side
    try:
        with_die = clean.copy()
        die = random_die(kind, PALETTE[owner], (x + rng.uniform(-2, 2), y + rng.uniform(-2, 2)), rng)
        draw_die(with_die, cast(Renderer, Raised(r, z)), die, rng)
    finally:
        SIZE_MM[kind] = saved
    for i in range(args.frames):
        loop.process(r.finish(with_die, seed=seed * 10 + 5 + i, jpeg_quality=90))
    got: Counter[str] = Counter()
    read = table.observed.get(sid)
    got["read"] = int(read is not None and not read.empty)
    for row in table.record.rows(rows):
        if row.kind == "action" and row.source == "overhead":
            got["moves" if row.body.get("accepted") else "rejected"] += 1
        elif row.kind == "question":
            got["questions"] += 1
    got["unknown"] = sum(1 for w in table.warnings if f"on {sid} " in w and w.endswith("unknown object"))
    got["pending"] = sum(1 for w in table.warnings if f"on {sid}" in w and "confirm" in w)
    got["difference"] = sum(1 for d in table.differences() if d.startswith(f"{sid}:"))  # out of sync for it
    said = [f"{row.kind} {row.body.get('text') or row.body.get('options')}" for row in table.record.rows(rows)
            if row.kind in ("action", "question")]
    for i in range(4):
        loop.process(r.finish(clean, seed=seed * 10 + 20 + i))
    got["open after"] = len(table.questions) + sum(1 for w in table.warnings if f"on {sid}" in w)
    table.close()
    value = read.text() if read is not None else "?"
    return got, (f"seed {seed} {mode}: {owner} {kind} {side:.1f} mm on {sid}: read {value}; "
                 f"{'; '.join(said) or 'nothing recorded'}")


if __name__ == "__main__":
    raise SystemExit(main())
