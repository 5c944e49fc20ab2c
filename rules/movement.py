"""Movement of a soul along the map's movement lines (#movement, #moving_downed_souls)."""

from __future__ import annotations

from collections.abc import Iterable

from rules.board_map import BoardMap
from rules.verdict import Verdict

# #moving_downed_souls: movement before downed -> movement after (None: cannot be moved at all).
DOWNED_MOVEMENT: dict[int, int | None] = {0: None, 1: 1, 2: 1, 3: 1, 4: 2, 5: 2}


def downed_range(movement: int) -> int | None:
    """Movement range of a downed soul; a range of 1 before needs an escort (#moving_downed_souls)."""
    if movement in DOWNED_MOVEMENT:
        return DOWNED_MOVEMENT[movement]
    return (movement + 1) // 2  # the table stops at 5; above it the halving it describes continues


def check_move(board: BoardMap, soul: str, movement: int, start: str, goal: str,
               enemy_stands: Iterable[str] = ()) -> Verdict:
    """May a revealed soul with `movement` range go from `start` to `goal` this action?

    Enemy-held movement stands cannot be passed through, only moved onto (then the soul must attack).
    """
    if start == goal:
        return Verdict.reject("#movement", f"{soul} is already on {goal}")
    for stand in (start, goal):
        if stand not in board.stands:
            return Verdict.reject("#movement", f"{stand} is not a stand of map {board.name!r}")
    enemies = set(enemy_stands)
    blocked = {s for s in enemies if board.stands[s].kind == "movement"}
    steps = board.distance(start, goal, blocked=blocked)
    free = board.distance(start, goal)
    if free is None:
        return Verdict.reject("#movement", f"{soul} cannot reach {goal} from {start}: no movement line leads there")
    if free <= movement and (steps is None or steps > movement):
        return Verdict.reject(
            "#movement",
            f"{soul} cannot pass an enemy waiting on {', '.join(sorted(blocked))} on the way {start} -> {goal}",
        )
    if steps is None or steps > movement:
        return Verdict.reject(
            "#movement",
            f"{soul} moved {start} -> {goal}: that is {free} stands away, movement range is {movement}",
        )
    attack = " and must attack the enemy there" if goal in enemies else ""
    return Verdict.ok("#movement", f"{soul} moves {start} -> {goal} ({steps} of {movement}){attack}")
