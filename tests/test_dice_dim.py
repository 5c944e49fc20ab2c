"""Dice in dim light (issue 21, round 7).

A die differs from the empty table by a difference that scales with the light: under a dim lamp (the
bench's "dim", light 0.55 and more sensor noise) a dark red die on the table differed by about 30 grey levels,
the reader's fixed threshold, so its blob fell apart into specks smaller than a die and the die was not found
at all (bench seed 1, dim). The threshold now follows the light's level (`vision.dice.FG_DIFF`, floor
`FG_DIFF_MIN`). These tests throw fresh seeded dark cubes under dim lamps (seeds no bench, training or tuning
run used) and require every die found, most read, none read wrong.
"""

from __future__ import annotations

import numpy as np
import pytest

import vision.dice as dice_module
from tests.dice_support import PALETTE, roll_area, tally
from vision.dice import FG_DIFF, FG_DIFF_MIN
from vision.synth import TableScene
from vision.synth.dice import Die, draw_die, random_die

SEEDS = range(7_100, 7_110)  # not the training's (22xxxx), the bench's (1xxxxxx-9xxxxxx) nor other tests'
# measured here: 30/30 found, 30/30 read (the fixed threshold found 26 of them: the dim dark dice fell apart)
READ_FLOOR = 0.9


@pytest.fixture(scope="module")
def throws() -> list[tuple[list[Die], np.ndarray]]:
    return dim_throws()


def dim_throws() -> list[tuple[list[Die], np.ndarray]]:
    renderer, _, (x0, y0, x1, y1) = roll_area()
    out: list[tuple[list[Die], np.ndarray]] = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        dice = []
        for i in range(3):  # three cubes in three columns of the area, mostly the dark red seat's
            kind = ("diel", "d6")[int(rng.integers(2))]
            colour = PALETTE["red" if rng.random() < 0.7 else "blue"]
            at = (x0 + (i + 0.5) * (x1 - x0) / 3 + float(rng.uniform(-15, 15)),
                  float(rng.uniform(y0 + 20, y1 - 20)))
            dice.append(random_die(kind, colour, at, rng))
        frame, _ = renderer.compose(TableScene({}), seed)
        for die in dice:
            draw_die(frame, renderer, die, rng)
        out.append((list(dice), renderer.finish(frame, seed, lighting=float(rng.uniform(0.45, 0.6)), noise=1.6)))
    return out


def test_dark_cubes_in_dim_light_are_found_and_read_with_no_wrong_face(
        throws: list[tuple[list[Die], np.ndarray]]) -> None:
    count, wrong = tally(roll_area()[1], ((f"throw {i}", d, f) for i, (d, f) in enumerate(throws)),
                         each_found=True)
    assert not wrong, wrong
    assert count["read"] / (3 * len(SEEDS)) >= READ_FLOOR, count


def test_the_fixed_threshold_lost_dice_here(throws: list[tuple[list[Die], np.ndarray]],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """These throws exercise the fix: with the old fixed threshold (30 whatever the light) dice are lost."""
    assert 0 < FG_DIFF_MIN < FG_DIFF
    _, reader, _ = roll_area()
    scaled = sum(len(reader.read(f).dice) for _, f in throws)
    monkeypatch.setattr(dice_module, "FG_DIFF_MIN", FG_DIFF)
    _, reader, _ = roll_area()
    fixed = sum(len(reader.read(f).dice) for _, f in throws)
    assert scaled == 3 * len(SEEDS) > fixed, (scaled, fixed)
