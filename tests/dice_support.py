"""The roll area as the dice tests see it: two seats' colours, the camera posed over the area, a reader
that has seen the empty area once. Shared so that every dice test reads the same table."""

from __future__ import annotations

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.dice import DiceReader
from vision.synth import Renderer, TableScene
from vision.synth.dice import area_pose

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}
SEAT = {c: s for s, c in PALETTE.items()}  # a die's colour -> the seat it belongs to


def roll_area() -> tuple[Renderer, DiceReader, tuple[float, float, float, float]]:
    """A renderer and a reader posed over the packaged table's roll area, and the area (mm)."""
    layout = table_layout(BoardMap.packaged())
    assert layout.roll_area_mm is not None
    pose = area_pose(default_pose(layout, image_size=(2028, 1520)), layout)
    renderer = Renderer(layout, pose, PALETTE)
    return renderer, DiceReader(layout, pose, PALETTE, renderer.render(TableScene({}), seed=7)), layout.roll_area_mm
