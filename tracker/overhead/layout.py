"""The table layout of a map: the map file's stands placed on the 12-slot mat, and the designs the overhead
camera is calibrated against (the printed mat, the map's top texture with its raised stand tops)."""

from __future__ import annotations

import numpy as np

from calibration.layout import MAP_SURFACE_Z_MM, StandSpec, TableLayout, default_layout
from calibration.mat_pose import Artwork
from calibration.procedure import map_artwork, mat_artwork
from rules.kipukas.board_map import BoardMap
from vision.assets import asset


def table_layout(board: BoardMap) -> TableLayout:
    """Convert the map's stands into calibration ``StandSpec``s on the default mat."""
    stands = [StandSpec(s.id, s.kind, s.pos_mm, s.size_mm, s.angle_deg) for s in board.stands.values()]
    return default_layout(stands, board.size_mm)


def board_artwork(board: BoardMap, layout: TableLayout) -> Artwork:
    """The map's top texture as a 3D reference: its surface, and each stand's top at the stand's height."""
    return map_artwork(layout, asset(str(board.texture["file"])), np.asarray(board.texture["board_px"], np.float64),
                       MAP_SURFACE_Z_MM)


def table_artworks(board: BoardMap, layout: TableLayout) -> list[Artwork]:
    """The mat first, then the map on it: the map's stand tops add the 3D points that fix the focal length."""
    return [mat_artwork(layout, asset(layout.mat_image)), board_artwork(board, layout)]
