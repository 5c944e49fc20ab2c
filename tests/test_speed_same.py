"""The faster forms of per-pixel steps give the very same numbers as the plain numpy they replaced (speed
work of issue 14 must not change a single reading): chromaticity, the light step of the small frame, the
stands' distance to an owner's colour, the blur ladder's median, and the patch the frame's blur estimate shares."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.overhead_support import PALETTE, layout, pose, random_tokens, reference, renderer
from vision.board import BoardReader
from vision.colour import chroma, chroma_dist, chroma_dist_to, chroma_f
from vision.light import KeptModel, normalise
from vision.regions import cut
from vision.slots import fill_holes
from vision.stands import changed_matched, match_score, smoothed_patch
from vision.synth import TableScene


def _chroma_numpy(f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = (f[:, :, 0] + f[:, :, 1]) + f[:, :, 2]
    return f * (1.0 / np.maximum(s, np.float32(1.0)))[:, :, None], s


@pytest.mark.parametrize("seed", range(6))
def test_chroma_is_the_plain_division(seed: int) -> None:
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 256, (37 + seed * 11, 53, 3)).astype(np.uint8)
    img[:3] = 0  # black pixels: their sum is clamped to 1
    c, s = chroma(img)
    want_c, want_s = _chroma_numpy(img.astype(np.float32))
    assert np.array_equal(s, want_s)
    assert np.array_equal(c, want_c)
    f = rng.uniform(0.0, 300.0, (29, 31, 3)).astype(np.float32)
    c2, _ = chroma_f(f[:, ::2])
    assert np.array_equal(c2, _chroma_numpy(f[:, ::2])[0]) and c2.dtype == np.float32  # a strided view too


def _normalise_gather(patch: np.ndarray, gains: np.ndarray, model: np.ndarray) -> np.ndarray:
    """The near-clipped pixels taken one by one, as ``normalise`` does without a kept model."""
    out = normalise(patch, gains).copy()  # the lookup table alone
    hot = np.flatnonzero(patch.reshape(-1) >= 235)
    m = model.reshape(-1)[hot]
    fix = m * gains[hot % 3] >= 245
    out.reshape(-1)[hot[fix]] = np.clip(m[fix], 0, 255).astype(np.uint8)
    return out


@pytest.mark.parametrize("gains", [(1.07, 1.0, 0.9), (1.3, 1.25, 1.02), (0.99, 1.03, 5.0), (1.5, 1.5, 1.5)])
def test_the_kept_model_clips_the_same_pixels(gains: tuple[float, float, float]) -> None:
    rng = np.random.default_rng(7)
    g = np.array(gains, np.float32)
    model = rng.uniform(0, 270, (41, 57, 3)).astype(np.float32)
    model[rng.random(model.shape) < 0.3] = np.float32(245.0) / g[0]  # on the edge of clipping
    patch = rng.integers(200, 256, model.shape).astype(np.uint8)
    kept = KeptModel(model)
    got = normalise(patch, g, model, kept)
    assert np.array_equal(got, normalise(patch, g, model))
    assert np.array_equal(got, _normalise_gather(patch, g, model))
    assert (got != normalise(patch, g)).any()  # some pixels were clipped and fixed


def _fill_holes_by_labels(mask: np.ndarray) -> np.ndarray:
    """Every unchanged component labelled, those touching the border kept: what ``fill_holes`` replaced."""
    n, labels = cv2.connectedComponents((mask == 0).astype(np.uint8), connectivity=4)
    edge = np.zeros(n, dtype=bool)
    for line in (labels[0], labels[-1], labels[:, 0], labels[:, -1]):
        edge[line] = True
    edge[0] = True
    return np.asarray((mask > 0) | ~edge[labels], dtype=np.bool_)


@pytest.mark.parametrize("seed", range(4))
def test_fill_holes_fills_the_same_pixels_as_labelling(seed: int) -> None:
    rng = np.random.default_rng(seed)
    filled = 0
    for _ in range(40):
        h, w = (int(v) for v in rng.integers(3, 160, 2))
        mask = (rng.random((h, w)) < rng.uniform(0.05, 0.7)).astype(np.uint8)
        if rng.random() < 0.5:
            mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), np.uint8)
        got = fill_holes(mask)
        assert np.array_equal(got, _fill_holes_by_labels(mask))
        filled += int(got.sum() - (mask > 0).sum())
    assert filled > 0  # some masks had holes to fill


@pytest.mark.parametrize("seed", range(6))
def test_distance_to_one_colour_is_the_broadcast_distance(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    img = rng.integers(0, 256, (40 + seed * 9, 61, 3)).astype(np.uint8)
    img[:2] = 0
    c, _ = chroma(img)
    colour = rng.random(3).astype(np.float32)
    colour /= colour.sum()
    got = chroma_dist_to(c, colour)
    assert got.dtype == np.float32 and got.shape == c.shape[:2]
    assert np.array_equal(got, chroma_dist(c, np.broadcast_to(colour, c.shape)))


@pytest.mark.parametrize("seed", range(6))
def test_match_score_is_the_numpy_median(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    shape = (90 - seed, 90 + seed, 3)  # odd and even sample counts
    c, _ = chroma(rng.integers(0, 256, shape).astype(np.uint8))
    model, _ = chroma(rng.integers(0, 256, shape).astype(np.uint8))
    want = float(np.median(chroma_dist(c[::2, ::2], model[::2, ::2])))
    assert match_score(c, model) == want


@pytest.mark.parametrize("lighting", [0.85, 1.3])
def test_the_frame_estimate_shares_the_decisions_own_patch(lighting: float) -> None:
    """A stand's patch is cut once a frame (``FrameBlur.patch``, through ``vision.regions.cut``) and, unless
    the frame is lit brighter than the models (there the decision's patch keeps the model's clipped values,
    the estimate's never did), a sampled stand's smoothed patch is kept for its decision: both exactly what
    the decision makes itself."""
    rng = np.random.default_rng(8)
    frame = renderer().render(TableScene(random_tokens(rng)), seed=8, lighting=lighting, blur=0.8)
    reader = BoardReader(layout(), pose(), PALETTE, reference())
    obs = reader.read(frame)
    blur = reader._blur
    brighter = bool((blur.gains > 1.02).any())
    assert brighter == (lighting > 1.0) and blur.clips == brighter
    assert bool(blur.smoothed) != brighter and set(blur.smoothed) <= set(blur.patches)
    for sid, patch in blur.patches.items():
        reg, model = reader.stand_regions[sid], reader.models.get(sid)
        assert model is not None
        want = normalise(cut(frame, reg), blur.gains, reader._bgr_of(model))
        assert np.array_equal(patch, want)
        if not brighter:  # the estimate's patch as it was cut before: the same pixels
            assert np.array_equal(patch, normalise(cut(frame, reg), blur.gains))
        if sid in blur.smoothed:
            kept, fresh = blur.smoothed[sid], smoothed_patch(want, reg.px_per_mm)
            assert np.array_equal(kept[0], fresh[0]) and np.array_equal(kept[1], fresh[1])
            shared = changed_matched(patch, model, reg.px_per_mm, blur.blur_mm(sid), kept)
            alone = changed_matched(patch, model, reg.px_per_mm, blur.blur_mm(sid))
            assert np.array_equal(shared[0], alone[0]) and shared[1] == alone[1]
    assert sum(o.state != "empty" for o in obs.stands.values()) > 0
