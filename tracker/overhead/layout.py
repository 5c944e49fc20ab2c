"""The table layout of a map: the map file's stands placed on the 12-slot mat."""

from __future__ import annotations

from calibration.layout import StandSpec, TableLayout, default_layout
from rules.board_map import BoardMap


def table_layout(board: BoardMap) -> TableLayout:
    """Convert the map's stands into calibration ``StandSpec``s on the default mat."""
    stands = [StandSpec(s.id, s.kind, s.pos_mm, s.size_mm, s.angle_deg) for s in board.stands.values()]
    return default_layout(stands, board.size_mm)
