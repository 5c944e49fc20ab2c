"""Touching cubes seen from the side, and the lit top cut at its pinch (issue 21, round 9).

With the camera over the table's centre the roll area lies off to one side, so every die shows a wall; two
cubes pressed together are one blob whose outline narrows where the walls meet, not where the dice meet, and
the cut drawn there ran through a die's lit top: the shape test then saw a square with a strip cut off and
the die stayed unknown. `vision.dice_tops` now cuts the pair's lit region (the two tops) at its own pinch,
the line between the two deepest dents of its outline. These tests read fresh seeded touching pairs under
that camera (seeds no bench run nor the training used) and require no wrong face accepted; and they check
on drawn masks that the cut gives one square's top back whole and that a region with no pinch gives nothing.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tests.dice_support import PALETTE, tally
from tracker.overhead.layout import table_layout
from vision.dice import DiceReader, _shape
from vision.dice_faces import SIZE_MM
from vision.dice_tops import split_top
from vision.synth import Renderer, TableScene
from vision.synth.dice import Die, draw_die, random_die

SEEDS = range(7_416, 7_430)  # not the bench's report seeds (3, 5, 8, 9, 13, 17, 23 x 10^6), nor the training's
# measured 28/28 read here; round 8's reader (the cut outline alone) read 22/28 of the same pairs
FLOOR = 0.92  # round 8's reader fails it (0.786)


def pair(rng: np.random.Generator, area: tuple[float, float, float, float]) -> list[Die]:
    """Two cubes side by side, 0.5 mm apart, a random turn of the pair, random faces and turns of each."""
    x0, y0, x1, y1 = area
    kinds = [("diel", "d6")[int(rng.integers(2))] for _ in range(2)]
    colours = [PALETTE[("red", "blue")[int(rng.integers(2))]] for _ in range(2)]
    cx, cy = rng.uniform(x0 + 30, x1 - 30), rng.uniform(y0 + 20, y1 - 20)
    gap = (SIZE_MM[kinds[0]] + SIZE_MM[kinds[1]]) / 2 + 0.5
    a = rng.uniform(0, math.pi)
    spots = [(cx - gap / 2 * math.cos(a), cy - gap / 2 * math.sin(a)),
             (cx + gap / 2 * math.cos(a), cy + gap / 2 * math.sin(a))]
    return [random_die(kinds[i], colours[i], spots[i], rng) for i in range(2)]


def test_touching_cubes_seen_from_the_side_are_read_with_no_wrong_face_accepted() -> None:
    layout = table_layout(BoardMap.packaged())
    assert layout.roll_area_mm is not None
    pose = default_pose(layout, image_size=(2028, 1520))
    renderer = Renderer(layout, pose, PALETTE)
    reader = DiceReader(layout, pose, PALETTE, renderer.render(TableScene({}), seed=7))
    throws: list[tuple[str, list[Die], np.ndarray]] = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        dice = pair(rng, layout.roll_area_mm)
        frame, _ = renderer.compose(TableScene({}), seed)
        for die in dice:
            draw_die(frame, renderer, die, rng)
        throws.append((f"seed {seed}", dice, renderer.finish(frame, seed, kelvin=float(rng.uniform(3000, 7000)))))
    count, wrong = tally(reader, throws)
    assert not wrong, wrong
    assert count["read"] + count["unknown"] == 2 * len(SEEDS)
    assert count["read"] / (2 * len(SEEDS)) >= FLOOR, count


def square(shape: tuple[int, int], centre: tuple[float, float], side: float, turn: float) -> np.ndarray:
    """A filled square (uint8 0/1) of `side` pixels turned by `turn` degrees."""
    out = np.zeros(shape, np.uint8)
    box = cv2.boxPoints((centre, (side, side), turn)).astype(np.int32)
    cv2.fillPoly(out, [box], 1)
    return out


def test_the_pinch_cut_gives_a_cut_top_back_whole() -> None:
    """Two lit tops (48 px squares) meeting corner to edge; the blob's cut ran through the first square.
    The piece returned is that square, and it passes the shape test as a cube; the cut part alone does not."""
    shape = (140, 200)
    a = square(shape, (60.0, 70.0), 48.0, 20.0)
    b = square(shape, (118.0, 62.0), 48.0, 45.0)
    lit = np.asarray(a | b, np.uint8)
    whole = np.asarray(cv2.dilate(lit, np.ones((9, 9), np.uint8)), np.uint8)  # walls around the tops
    chan = np.where(lit > 0, 200.0, np.where(whole > 0, 90.0, 0.0)).astype(np.float32)
    xs = np.arange(shape[1])[None, :].repeat(shape[0], 0)
    part = np.asarray((whole > 0) & (xs < 72), np.uint8)  # the outline's cut: 12 px into the first top
    assert _shape(chan, part)[0] != "cube"
    top = split_top(chan, part, whole, 1.1 * 54.0 ** 2)
    assert top is not None
    overlap = np.count_nonzero(top & a) / np.count_nonzero(top | a)
    assert overlap > 0.9, overlap
    assert _shape(chan, np.asarray(part | top, np.uint8), top)[0] == "cube"


def test_two_tops_merged_without_a_pinch_give_no_top() -> None:
    """Two tops side by side edge to edge form one 2:1 bar with no dent: no piece of one die's size is cut
    from it, so the part is read as it was cut (and the shape test, not a made-up top, decides)."""
    shape = (120, 200)
    bar = np.zeros(shape, np.uint8)
    bar[36:84, 52:148] = 1
    whole = np.asarray(cv2.dilate(bar, np.ones((9, 9), np.uint8)), np.uint8)
    chan = np.where(bar > 0, 200.0, np.where(whole > 0, 90.0, 0.0)).astype(np.float32)
    part = np.zeros(shape, np.uint8)
    part[:, :96] = whole[:, :96]
    assert split_top(chan, part, whole, 1.1 * 54.0 ** 2) is None
