"""Routes named in a move (``red move X T7-T6 via M7b``): the stands passed on the way, so the engine knows
which territories a soul passes *through* (#traps: traps activate "as entities move between and through
territories"). Without `via` only the destination territory is known, and only it is rolled against.
"""

from __future__ import annotations

import itertools

from rules.kipukas.context import Ctx, Illegal
from rules.kipukas.state import CardState


def tunnel_pairs(c: Ctx) -> list[tuple[str, str]]:
    """Tunnels of the map file and those dug in this game: underground dwellers travel them (#habitat_effects)."""
    pairs = [(str(t["a"]), str(t["b"])) for t in c.board.extras.get("tunnels", [])
             if isinstance(t, dict) and "a" in t and "b" in t]
    return pairs + list(c.s.tunnels)


def route_cost(c: Ctx, cs: CardState, route: list[str], left: int) -> int:
    """Lines walked along `route` (start, via..., goal) by soul `cs` with `left` movement; `Illegal` naming the
    step when a stand is unknown, not joined to the previous one, crosses water it may not, or passes an
    enemy waiting on a movement stand (#movement, #geography)."""
    info = c.info(cs)
    board = c.board
    flyer = info.habitat == "Heavens"
    water_ok = flyer or info.habitat == "Water" or cs.swimming
    passing_ok = flyer or c.effects(cs).through_enemies
    tunnels = set(tunnel_pairs(c)) if info.habitat == "Underground" else set()
    enemies = {e.at for e in c.enemy_souls(cs.owner) if e.revealed and e.at}
    if len(set(route)) != len(route):
        raise Illegal("#movement", f"the route {'-'.join(route)} visits a stand twice")
    for i, (a, b) in enumerate(itertools.pairwise(route)):
        if b not in board.stands:
            raise Illegal("#movement", f"{b} is not a stand of map {board.name!r}")
        joined = b in board.sorted_adj[a] or (a, b) in tunnels or (b, a) in tunnels
        if not joined:
            raise Illegal("#movement", f"no movement line joins {a} and {b} (route {'-'.join(route)})")
        if (a, b) in board.water_edges and not water_ok:
            raise Illegal("#geography", f"the line {a}-{b} crosses water; swim first (2D6 showing 2 and 2)")
        if i > 0 and a in enemies and board.stands[a].kind == "movement" and not passing_ok:
            raise Illegal("#movement", f"the route passes {a}, where an enemy waits on a movement stand")
    cost = len(route) - 1
    if cost > left:
        raise Illegal("#movement", f"the route {'-'.join(route)} is {cost} lines; {c.name(cs)} has {left} left")
    return cost


def entered(c: Ctx, route: list[str]) -> list[str]:
    """Territories entered along `route`, in order, each once, not counting the one it starts in."""
    start = c.territory_of(route[0])
    out: list[str] = []
    previous = start
    for stand in route[1:]:
        t = c.territory_of(stand)
        if t != previous and t != start and t not in out:
            out.append(t)
        previous = t
    return out
