"""speed12's cuts in the stand decision give the very same numbers as the code they replaced (issue 14's speed
work must not move a single reading): the percentile of a soul token's lit outline (``vision.stands._flipped``)
the owner map's selection and a mask's largest blob."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from bench.bench_stands import largest_before, owner_map_before
from tests.overhead_support import PALETTE
from vision.colour import chroma, percentile
from vision.stand_shapes import largest
from vision.stands import StandClassifier


@pytest.mark.parametrize("seed", range(4))
def test_percentile_is_numpys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for i in range(400):
        n = int(rng.integers(1, 700))
        if i % 3 == 0:  # a stand's brightness sums: whole numbers, many equal
            values = rng.integers(0, 766, n).astype(np.float32)
        elif i % 3 == 1:
            values = (rng.random(n) * 700.0).astype(np.float32)
        else:
            values = rng.choice(np.array([3.3, 7.1, 700.25, 1e-3], np.float32), n)
        for q in (95, 50, 70, 5, 99.5, 33.0, 0, 100):
            assert percentile(values, q) == float(np.percentile(values, q)), (seed, i, n, q)


def test_percentile_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no values"):
        percentile(np.zeros(0, np.float32), 95)
    with pytest.raises(ValueError, match="outside 0-100"):
        percentile(np.ones(3, np.float32), 101)


@pytest.mark.parametrize("palette", [PALETTE, {"red": (40, 40, 210)},
                                     {"red": (40, 40, 210), "blue": (200, 90, 30), "green": (60, 170, 60)}])
def test_owner_map_is_the_one_it_replaced(palette: dict[str, tuple[int, int, int]]) -> None:
    sc = StandClassifier(palette)
    rng = np.random.default_rng(len(palette))
    for _ in range(40):
        patch = rng.integers(0, 256, (60, 60, 3)).astype(np.uint8)
        for o, colour in enumerate(palette.values()):  # blocks of each owner's colour, a little off
            y = 10 * o
            patch[y:y + 9, :30] = np.clip(np.array(colour) + rng.integers(-25, 26, (9, 30, 3)), 0, 255)
        c, s = chroma(patch)
        got = sc.owner_map(c, s)
        assert got.dtype == np.int8
        assert np.array_equal(got, owner_map_before(sc, c, s))
        assert (got >= 0).any()


@pytest.mark.parametrize("seed", range(3))
def test_largest_is_the_one_it_replaced(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for i in range(150):
        size = (60, 60) if i % 2 else (52, 52)
        mask = (rng.random(size) < rng.uniform(0.0, 0.9)).astype(np.uint8)
        if i % 3 == 0:  # blobs, as the decision's opened masks have
            mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
        if i % 7 == 0:  # two blobs of the same size: the first labelled is kept
            mask[:] = 0
            mask[5:10, 5:10] = mask[30:35, 30:35] = 1
        got = largest(mask)
        assert got.dtype == np.uint8 and np.array_equal(got, largest_before(mask))
    assert not largest(np.zeros((60, 60), np.uint8)).any()
