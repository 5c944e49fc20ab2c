"""What the overhead camera's reading of unit tokens on tiles means to the tile-map game.

The camera sees only whose token stands on a tile (the controller's colour), never which card. So a
reading turns into an action only when exactly one legal action explains it: a seat's one unit gone from
one tile and one appeared on another tile is its legal ``move`` between them (one path per destination:
`TileGame._paths`). A unit that appeared where the record has none is a question to its seat with the
legal ``play`` lines onto that tile (which card?); anything else is a difference a judge settles. While
the action stack holds declared actions the camera proposes nothing: the board is mid-resolution.
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.core.interface import BoardReading
from rules.tilemap.board import name
from rules.tilemap.state import TileState


def expected(state: TileState) -> dict[str, str]:
    """Tile -> the seat controlling the permanent there, as the record has it."""
    return {name(p.tile): p.controller for p in state.permanents.values()}


def read_board(state: TileState, legal: list[str], seen: Mapping[str, str | None]) -> BoardReading:
    """The reading `seen` (tile -> seat, or None for empty; unread tiles absent) against the record."""
    want = expected(state)
    gone: dict[str, list[str]] = {}
    came: dict[str, list[str]] = {}
    differences: list[str] = []
    for tile, seat in sorted(seen.items()):
        there = want.get(tile)
        if there == seat:
            continue
        if there is not None:
            gone.setdefault(there, []).append(tile)
            differences.append(f"{tile}: the record has a {there} unit, the camera sees "
                               + (f"a {seat} token" if seat else "nothing"))
        if seat is not None:
            came.setdefault(seat, []).append(tile)
            if there is None:
                differences.append(f"{tile}: the camera sees a {seat} token, the record has nothing")
    if not differences or state.stack or state.result is not None:
        return BoardReading(differences=tuple(differences))
    lines: list[str] = []
    questions: list[tuple[str | None, str, tuple[str, ...]]] = []
    for seat in sorted(set(gone) | set(came)):
        left, arrived = gone.get(seat, []), came.get(seat, [])
        if len(left) == 1 and len(arrived) == 1:
            moves = [line for line in legal if line.startswith(f"{seat} move {left[0]}-")
                     and line.endswith(f"-{arrived[0]}")]
            if len(moves) == 1:
                lines.append(moves[0])
                continue
            questions.append((None, f"the camera saw {seat}'s unit go from {left[0]} to {arrived[0]}, which the "
                                    "rules do not allow now (#movement): put it back, or a judge corrects", ()))
            continue
        if not left and len(arrived) == 1:
            plays = tuple(line for line in legal if line.startswith(f"{seat} play ")
                          and line.endswith(f" {arrived[0]}"))
            if plays:
                questions.append((seat, f"the camera sees a new {seat} unit on {arrived[0]}: which card?", plays))
                continue
        questions.append((None, f"the camera and the record disagree about {seat}'s units "
                                f"(gone: {', '.join(left) or 'none'}; new: {', '.join(arrived) or 'none'})", ()))
    return BoardReading(tuple(lines), tuple(questions), tuple(differences))
