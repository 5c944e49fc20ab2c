"""speed13's cuts in the per-region helpers give the very same numbers as the code they replaced (issue 14's
speed work must not move a single reading, and the patch classifier's inputs, which another engineer trains
on, must stay bit-identical): the chromaticity of a patch, the distance between two chromaticity images and
the share of a mask's set pixels, each against the code it replaced (kept in ``bench/bench_region_passes``),
on seeded patches of the reader's sizes; and a fresh reader's whole observation of a seeded table with the
replaced code put back."""

from __future__ import annotations

import numpy as np
import pytest

from bench.bench_region_passes import before, chroma_dist_before, chroma_f_before, share_before
from tests.overhead_support import PALETTE
from vision.colour import chroma, chroma_dist, chroma_f, share

SIZES = [(60, 60), (52, 52), (90, 90), (155, 155), (90, 127), (380, 507), (1, 1), (3, 7)]


def _patch(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A seeded uint8 BGR patch with black pixels (a sum under 1), saturated ones and runs of one value."""
    p = rng.integers(0, 256, (h, w, 3)).astype(np.uint8)
    p.reshape(-1, 3)[:: max(1, h * w // 7)] = 0
    p.reshape(-1, 3)[1:: max(1, h * w // 5)] = 255
    if h > 4:
        p[: h // 4] = rng.integers(0, 256, 3)
    return p


@pytest.mark.parametrize("seed", range(3))
def test_chromaticity_is_the_one_it_replaced(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for h, w in SIZES:
        for _ in range(5):
            patch = _patch(rng, h, w)
            c, s = chroma(patch)
            oc, os_ = chroma_f_before(patch.astype(np.float32))
            assert c.dtype == np.float32 and s.dtype == np.float32
            assert np.array_equal(c, oc) and np.array_equal(s, os_)
            # a smoothed float patch (``vision.stands.smoothed_patch``): values between the integers
            f = (patch.astype(np.float32) * np.float32(rng.uniform(0.3, 1.7))).astype(np.float32)
            assert all(np.array_equal(a, b) for a, b in zip(chroma_f(f), chroma_f_before(f), strict=True))


@pytest.mark.parametrize("seed", range(3))
def test_chromaticity_distance_is_the_one_it_replaced(seed: int) -> None:
    rng = np.random.default_rng(10 + seed)
    for h, w in SIZES:
        for _ in range(5):
            a, _ = chroma(_patch(rng, h, w))
            b, _ = chroma(_patch(rng, h, w))
            got = chroma_dist(a, b)
            assert got.dtype == np.float32 and got.shape == (h, w)
            assert np.array_equal(got, chroma_dist_before(a, b))
            # the blur ladder's strided samples (``vision.stands.match_score``)
            assert np.array_equal(chroma_dist(a[::2, ::2], b[::2, ::2]), chroma_dist_before(a[::2, ::2], b[::2, ::2]))


@pytest.mark.parametrize("seed", range(3))
def test_share_is_numpys_mean(seed: int) -> None:
    rng = np.random.default_rng(20 + seed)
    for i in range(300):
        n = int(rng.integers(1, 30000))
        mask = rng.random(n) < rng.random()
        shaped = mask.reshape(1, n) if i % 2 else mask
        assert share(shaped) == share_before(shaped)
        assert share(mask.astype(np.uint8)) == share_before(mask.astype(np.uint8))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        assert np.isnan(share_before(np.zeros(0, bool)))
    assert np.isnan(share(np.zeros(0, bool)))


def test_a_full_read_is_the_one_the_replaced_code_gives() -> None:
    from bench.bench_overhead import random_scene
    from calibration.camera import default_pose
    from rules.kipukas.board_map import BoardMap
    from rules.kipukas.identity import is_kipukas_payload
    from tracker.overhead.layout import table_layout
    from tracker.sources.capture import simulated_lores
    from vision.board import BoardReader
    from vision.synth import Renderer, TableScene

    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    ref = renderer.render(TableScene({}), seed=999)
    rng = np.random.default_rng(61)
    for k in range(2):
        clean, _ = renderer.compose(random_scene(layout, rng, k), seed=k)
        frame = renderer.finish(clean, seed=k, lighting=float(rng.uniform(0.75, 1.25)), noise=1.5,
                                blur=float(rng.uniform(0.0, 1.2)), jpeg_quality=80)
        lores = simulated_lores(frame)
        now = BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload).read(frame, lores=lores)
        with before():
            old = BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload).read(frame, lores=lores)
        assert (now.stands, now.slots, now.under) == (old.stands, old.slots, old.under)
