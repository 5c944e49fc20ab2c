"""Direct generation of the rarer candidates that used to be trial-applied: retreats (#retreat), crafts
(#crafting) and sabotage (#sabotage).

Each function yields exactly the candidates of `rules.legal` that the handler (`combat.retreat`,
`night.craft`, `night.sabotage`) accepts in the position `rules.legal_direct` calls it for, in candidate
order, by evaluating the handler's conditions read-only. `tests/test_legal_direct.py` compares them with
trial application, and `tests/test_perft.py` pins the counts.
"""

from __future__ import annotations

import itertools

from rules.kipukas.context import Ctx
from rules.kipukas.day import MAX_PLAYED, MAX_SOULS, reach
from rules.kipukas.made import make
from rules.kipukas.notation import Action, Craft, Retreat, Sabotage


def retreats(c: Ctx, p: str, territory: str) -> list[Action]:
    """`combat.retreat` for the single-soul candidates of `rules.legal._retreats`, in a position where the
    player may retreat from `territory` (a fight waiting for their response, or carried-over contention)."""
    out: list[Action] = []
    enemies: set[str | None] | None = None
    for cs in c.souls_in(territory, p):
        at = cs.at
        if (c.downed(cs) and not c.effects(cs).moves_downed) or not at:
            continue
        movement = c.info(cs).movement or 0
        if not movement:
            continue
        seen = reach(c, cs, at, movement)
        if cs.control != p or cs.rogue:
            continue  # `own` refuses a soul another player controls; a rogue never retreats
        if enemies is None:
            enemies = {e.at for e in c.enemy_souls(p)}
        nearest: int | None = None
        occupancy: dict[str, int] = {}
        arriving = 0 if c.info(cs).habitat == "DigitalCloud" else 1
        for stand in sorted(seen)[:4]:
            if stand == at:
                continue
            dest = c.territory_of(stand)
            if dest == territory or stand in enemies:
                continue
            if not (dest != territory and c.contested(dest)):
                if not c.controls(p, dest):
                    continue
                if nearest is None:
                    nearest = min(d for st, d in seen.items() if st not in enemies
                                  and c.territory_of(st) != territory and c.controls(p, c.territory_of(st)))
                if seen[stand] > nearest:
                    continue
            held = occupancy.get(dest)
            if held is None:
                held = occupancy[dest] = c.occupying(dest, p)
            if held + arriving > MAX_SOULS:
                continue
            out.append(Retreat(p, (cs.id,), stand))
    return out


def night_plays(c: Ctx, p: str) -> list[Action]:
    """`night.craft` and `night.sabotage` for the candidates of `rules.legal._night`, on `p`'s night turn
    (the caller has checked that it is `p`'s turn and that they have not passed)."""
    s = c.s
    done = s.players[p].night_done
    played = s.players[p].played_this_roll
    hand = s.in_zone("hand", p)
    out: list[Action] = []
    items = [x.id for x in hand if c.info(x).type == "Item"]
    if "craft" not in done and len(items) >= 2:
        targets = [x.id for x in c.souls_in_play(p) if x.control == p]  # `own` refuses another's soul
        places = [t for t in c.holdable() if c.controls(p, t)]
        for n in (2, 3):
            if played + n > MAX_PLAYED:
                continue
            for combo in itertools.combinations(items, n):
                out += [make(Craft, p, combo, t) for t in targets]
                out += [make(Craft, p, combo, t) for t in places]
    if "sabotage" not in done and played < MAX_PLAYED:
        out += [make(Sabotage, p, x.id) for x in hand if c.info(x).type == "Sabotage"]
    return out
