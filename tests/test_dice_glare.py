"""Glaring dice (issue 21, round 8): a specular spot over the numeral taken off the crop.

The renderer's glare blends a die's top up to 85 % toward the lamp's white: the recessed numeral under the
spot keeps only a fraction of its contrast, and the crop's normalisation (spread of the whole crop, the spot
included) squeezed it further. Round 7 left such D6 "unknown" at p 0.56-0.90. `vision.dice_glare` splits
every pixel of the die's top into the die's colour and white and restores the mark under the spot. These
tests throw fresh seeded glaring cubes (seeds no bench, training or tuning run used), require none read
wrong, most read, and more read than with the spot left in; and they check that a die without a spot keeps
exactly the crop the network was trained on.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import vision.dice_crop as dice_crop
from tests.dice_support import PALETTE, roll_area, tally
from vision.dice_glare import S_FROM, deglare, glare_share, hidden_mm2
from vision.synth import TableScene
from vision.synth.dice import Die, draw_die, random_die

SEEDS = range(7_200, 7_216)  # not the training's (22xxxx), the bench's (1xxxxxx-9xxxxxx) nor other tests'
# measured here: 46/48 read with the spot taken off, none wrong; with the spot left in 38/48 (none wrong).
# Round 11 raised the D6 acceptance 0.908 -> 0.98818 (strongly glaring cubes held a wrong D6 at p 0.985):
# 44/48 read, none wrong; the floor follows the acceptance, not the other way round
READ_FLOOR = 0.9


def glaring_throws() -> list[tuple[list[Die], np.ndarray]]:
    renderer, _, (x0, y0, x1, y1) = roll_area()
    out: list[tuple[list[Die], np.ndarray]] = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        dice = []
        for i in range(3):  # three cubes in three columns, each with a strong spot on its top
            kind = ("diel", "d6")[int(rng.integers(2))] if i else "d6"
            colour = PALETTE["red" if rng.random() < 0.5 else "blue"]
            at = (x0 + (i + 0.5) * (x1 - x0) / 3 + float(rng.uniform(-15, 15)), float(rng.uniform(y0 + 20, y1 - 20)))
            d = random_die(kind, colour, at, rng)
            dice.append(Die(d.kind, d.face, d.colour, d.at_mm, d.angle_deg, 0.0, 0.0, float(rng.uniform(0.6, 0.85))))
        frame, _ = renderer.compose(TableScene({}), seed)
        for die in dice:
            draw_die(frame, renderer, die, rng)
        out.append((dice, renderer.finish(frame, seed, lighting=float(rng.uniform(0.8, 1.2)))))
    return out


@pytest.fixture(scope="module")
def throws() -> list[tuple[list[Die], np.ndarray]]:
    return glaring_throws()


def tally_glare(throws: list[tuple[list[Die], np.ndarray]]) -> Counter[str]:
    count, wrong = tally(roll_area()[1], ((f"throw {i}", d, f) for i, (d, f) in enumerate(throws)),
                         each_found=True)
    assert count["wrong"] == len(wrong)
    return count


def test_glaring_cubes_are_read_with_no_wrong_face_and_better_than_with_the_spot_left_in(
        throws: list[tuple[list[Die], np.ndarray]], monkeypatch: pytest.MonkeyPatch) -> None:
    taken_off = tally_glare(throws)
    assert taken_off["wrong"] == 0, taken_off
    assert taken_off["read"] >= READ_FLOOR * 3 * len(SEEDS), taken_off
    monkeypatch.setattr(dice_crop, "deglare_hidden",
                        lambda raw, lit, grey, own, px: (grey, hidden_mm2(raw, lit, own, px)))
    left_in = tally_glare(throws)
    assert left_in["read"] < taken_off["read"], (left_in, taken_off)


def test_a_die_without_a_spot_keeps_its_crop_and_a_spot_is_found_where_it_is() -> None:
    """A blue top with a dark bar (the mark): no spot -> the grey is returned as it came; a white spot blended
    over the bar -> found there, nowhere far from it, and the bar's contrast under it restored."""
    px = 3.0
    colour = np.array([200.0, 90.0, 30.0], np.float32)
    top = np.tile(colour, (60, 60, 1))
    top[26:34, 15:45] *= 0.45  # the recessed mark's shadowed floor: the die's hue, darker
    own = np.ones((60, 60), np.uint8)
    grey = top.max(axis=2)
    assert deglare(top, top, grey, own, px) is grey
    s_clean = glare_share(top, own, px)
    assert s_clean is not None and float(s_clean.max()) < S_FROM
    yy, xx = np.mgrid[0:60, 0:60]
    spot = (0.7 * np.exp(-((xx - 30) ** 2 + (yy - 30) ** 2) / (2 * 5.0 ** 2))).astype(np.float32)[:, :, None]
    lit = (top * (1 - spot) + 255.0 * spot).astype(np.float32)
    s = glare_share(lit, own, px)
    assert s is not None and abs(float(s[30, 30]) - 0.7) < 0.1 and float(s[5, 5]) < S_FROM
    restored = deglare(lit, lit, lit.max(axis=2), own, px)
    contrast = lambda g: float(g[10:20, 25:35].mean() - g[27:33, 27:33].mean())  # noqa: E731  body - mark
    assert contrast(lit.max(axis=2)) < 0.5 * contrast(grey) < contrast(restored)


def test_a_mark_whose_own_channel_the_sensor_clipped_is_taken_from_the_two_others() -> None:
    """Round 10: a blue top under a strong spot in a bright light. Where the spot is brightest the sensor clips
    the blue channel (the die's own) over the mark too, but green and red are not clipped there: the two
    split the pixel alone, so the mark under the spot comes back dark. Before, a clipped pixel kept the
    sensor's white (round 8 meant the die's level, but never set the spot's share on a clipped pixel), and
    the mark was cut where the spot clipped it. A red die (green and blue alike) gets the die's own level
    there: nothing to split."""
    px, light = 3.0, 1.25
    yy, xx = np.mgrid[0:60, 0:60]
    plateau = np.clip(1.6 - np.hypot(xx - 30, yy - 30) / 8.0, 0.0, 1.0)  # flat over the middle, fading out
    spot = (0.72 * plateau).astype(np.float32)[:, :, None]
    mark = np.zeros((60, 60), bool)
    mark[15:45, 28:33] = True  # a numeral's stroke running through the spot

    def seen(colour: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        top = np.tile(np.array(colour, np.float32), (60, 60, 1))
        top[mark] *= 0.45  # the recessed mark's floor: the die's hue, darker
        raw = np.minimum((top * (1 - spot) + 255.0 * spot) * light, 255.0).astype(np.float32)
        return raw, (raw / light).astype(np.float32), top

    raw, lit, _ = seen((180.0, 80.0, 25.0))
    core = (raw[:, :, 0] >= 250) & (raw[:, :, 1] < 250) & (raw[:, :, 2] < 250)
    assert (core & mark).sum() >= 20  # the case: the mark clipped in blue only, green and red not
    out = deglare(raw, lit, lit.max(axis=2), np.ones((60, 60), np.uint8), px)
    body = float(np.median(out[~mark & (spot[:, :, 0] == 0)]))
    mark_clear = float(np.median(out[mark & (spot[:, :, 0] == 0)]))
    mark_clipped = float(np.median(out[core & mark]))
    assert mark_clipped < body - 0.6 * (body - mark_clear), (body, mark_clear, mark_clipped)
    assert abs(mark_clipped - mark_clear) < 0.25 * (body - mark_clear)  # restored to about the mark's own level

    raw, lit, _ = seen((25.0, 35.0, 190.0))  # red: its green and blue move alike, no split from them alone
    out = deglare(raw, lit, lit.max(axis=2), np.ones((60, 60), np.uint8), px)
    clipped = raw.max(axis=2) >= 250
    level = float(np.median(out[~mark & (spot[:, :, 0] == 0)]))
    assert np.abs(out[clipped & (spot[:, :, 0] > 0.7)] - level).max() < 2.0  # the die's level, not the clip's


def test_a_die_clipped_by_a_bright_lamp_without_a_spot_keeps_its_crop() -> None:
    """A red die under a warm, bright lamp clips its red channel over part of its top with no spot at all:
    those pixels are the die's body, not a spot, and stay as they are (round 10's first version set every
    clipped pixel to the die's level and lost two diel dice under the 2700 K lamp on tuning seeds 37 and 50)."""
    top = np.tile(np.array([40.0, 45.0, 225.0], np.float32), (60, 60, 1))
    top[:, 40:, 2] = 255.0  # the lamp's side of the top: red clipped, green and blue the die's own
    top[26:34, 15:45] *= 0.45
    grey = top.max(axis=2)
    out = deglare(top, top, grey, np.ones((60, 60), np.uint8), 3.0)
    assert np.array_equal(out, grey)


def test_a_grey_die_is_left_as_it_is() -> None:
    """A die of little colour cannot tell a spot from its own white: its crop is not touched."""
    top = np.full((60, 60, 3), 170.0, np.float32)
    top[20:40, 20:40] = 255.0
    grey = top.max(axis=2)
    assert glare_share(top, np.ones((60, 60), np.uint8), 3.0) is None
    assert deglare(top, top, grey, np.ones((60, 60), np.uint8), 3.0) is grey
