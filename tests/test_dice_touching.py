"""Touching dice and the network's turned views (issue 21, round 6).

Two cubes pressed together are one blob; the split line drawn on that outline can cut a corner off a die's
lit top, and the shape test (4- or 3-fold symmetry of the lit top) then failed, so a die the network named
at p = 0.99 stayed unknown. The reader now takes a split die's lit top whole from the touching pair's blob,
and names a split die whose shape is still unsure only from the network at `SPLIT_ACCEPT`. These tests read
fresh seeded touching pairs (seeds the bench, the training and the tuning never used) and require no wrong
face accepted; and they check that the turned views are what they claim: a quarter turn of a cube's crop
changes nothing in what the network answers.
"""

from __future__ import annotations

import math

import numpy as np

from tests.dice_support import PALETTE, roll_area, tally
from vision.dice_crop import CROP_PX
from vision.dice_faces import SIZE_MM
from vision.dice_net import VIEWS, packaged_face_net, views
from vision.synth import TableScene
from vision.synth.dice import Die, draw_die, random_die

SEEDS = range(7_000, 7_012)  # not the training's (22xxxx), the bench's (1xxxxxx-8xxxxxx) nor test_dice_net's
# measured 24/24 read here (the previous reader: the lit top cut by the split line made some shapes unknown)
FLOOR = 0.9


def test_touching_cubes_are_split_and_read_with_no_wrong_face_accepted() -> None:
    renderer, reader, (x0, y0, x1, y1) = roll_area()
    throws: list[tuple[str, list[Die], np.ndarray]] = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        kinds = [("diel", "d6")[int(rng.integers(2))] for _ in range(2)]
        cx, cy = rng.uniform(x0 + 30, x1 - 30), rng.uniform(y0 + 20, y1 - 20)
        gap = (SIZE_MM[kinds[0]] + SIZE_MM[kinds[1]]) / 2 + float(rng.uniform(0.2, 0.8))
        a = rng.uniform(0, math.pi)
        spots = [(cx - gap / 2 * math.cos(a), cy - gap / 2 * math.sin(a)),
                 (cx + gap / 2 * math.cos(a), cy + gap / 2 * math.sin(a))]
        dice = [random_die(kinds[i], PALETTE[("red", "blue")[i]], spots[i], rng) for i in range(2)]
        frame, _ = renderer.compose(TableScene({}), seed)
        for die in dice:
            draw_die(frame, renderer, die, rng)
        throws.append((f"seed {seed}", dice, renderer.finish(frame, seed, kelvin=float(rng.uniform(3000, 7000)))))
    count, wrong = tally(reader, throws)
    assert not wrong, wrong
    assert count["read"] + count["unknown"] == 2 * len(SEEDS)
    assert count["read"] / (2 * len(SEEDS)) >= FLOOR, count



def test_a_quarter_turn_of_a_cube_crop_changes_nothing_the_network_answers() -> None:
    net = packaged_face_net()
    rng = np.random.default_rng(11)
    crop = rng.normal(0.0, 1.0, (CROP_PX, CROP_PX)).astype(np.float32)
    crop[14:34, 20:28] = 2.5  # a bar: a mark with no 4-fold symmetry of its own
    turned = np.ascontiguousarray(np.rot90(crop), np.float32)
    assert [len(views(crop, s)) for s in ("cube", "icosahedron", "unknown")] == [4, 3, 1]
    assert set(VIEWS) == {"cube", "icosahedron"}
    was = net.turned
    try:
        net.turned = True
        a, b = net.logits([crop, turned], ["cube", "cube"])
        assert np.allclose(a, b, atol=1e-4)
        net.turned = False
        c, d = net.logits([crop, turned], ["cube", "cube"])
        assert not np.allclose(c, d, atol=1e-2)  # one view alone does see the turn
    finally:
        net.turned = was
