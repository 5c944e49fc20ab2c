"""The roll area as the dice tests see it: two seats' colours, the camera posed over the area, a reader
that has seen the empty area once. Shared so that every dice test reads the same table."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

import numpy as np

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.dice import DiceReader
from vision.synth import Renderer, TableScene
from vision.synth.dice import Die, area_pose

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}
SEAT = {c: s for s, c in PALETTE.items()}  # a die's colour -> the seat it belongs to


def roll_area() -> tuple[Renderer, DiceReader, tuple[float, float, float, float]]:
    """A renderer and a reader posed over the packaged table's roll area, and the area (mm)."""
    layout = table_layout(BoardMap.packaged())
    assert layout.roll_area_mm is not None
    pose = area_pose(default_pose(layout, image_size=(2028, 1520)), layout)
    renderer = Renderer(layout, pose, PALETTE)
    return renderer, DiceReader(layout, pose, PALETTE, renderer.render(TableScene({}), seed=7)), layout.roll_area_mm


def tally(reader: DiceReader, throws: Iterable[tuple[str, list[Die], np.ndarray]],
          each_found: bool = False) -> tuple[Counter[str], list[str]]:
    """Read each throw's frame and count its dice: "read" (kind, face and seat right), "unknown" (no face, or
    not found exactly once within 8 mm, which `each_found` makes a failure instead) or "wrong"; returns the
    counts and a line per wrong reading (the throw's label, the die, what was read)."""
    count: Counter[str] = Counter()
    wrong: list[str] = []
    for label, dice, frame in throws:
        got = reader.read(frame)
        for die in dice:
            near = [d for d in got.dice if math.dist(d.centre_mm, die.at_mm) < 8.0]
            assert not each_found or len(near) == 1, f"{label}: {die} not found (or found twice): {got}"
            if len(near) != 1 or near[0].face is None:
                count["unknown"] += 1
            elif (near[0].kind, near[0].face, near[0].owner) == (die.kind, die.face, SEAT[die.colour]):
                count["read"] += 1
            else:
                count["wrong"] += 1
                wrong.append(f"{label}: {die} read as {near[0]}")
    return count, wrong
