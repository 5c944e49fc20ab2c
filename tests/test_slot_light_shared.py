"""Issue 14 (speed11): the slot decision's light-normalised patch starts from the patch classifier's own
(one lookup a slot a frame, not two), near-clipped values are fixed in whole-patch passes where many are,
and a face-down card's code window is turned grey before it is resampled. The first two change no value
(held here against the plain computations); the third changes values by at most one level of rounding and
reads the same codes here (its read rate over the stress bench's conditions is in docs/overhead.md)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.overhead_support import PALETTE, layout, pose, random_slots, random_tokens, reference, renderer
from vision.board import BoardReader
from vision.light import DENSE, normalise
from vision.slots import decode_qr, qr_homography
from vision.synth import TableScene
from vision.warp import extract, extract_grey


def _gathered(patch: np.ndarray, gains: np.ndarray, model: np.ndarray) -> np.ndarray:
    """The near-clipped values taken one by one (``normalise`` before issue 14's speed11)."""
    out = normalise(patch, gains).copy()
    hot = np.flatnonzero(patch.reshape(-1) >= 235)
    m = model.reshape(-1)[hot]
    fix = m * gains[hot % 3] >= 245
    out.reshape(-1)[hot[fix]] = np.clip(m[fix], 0, 255).astype(np.uint8)
    return out


@pytest.mark.parametrize("share", [0.01, 0.5, 0.95])
def test_near_clipped_values_are_the_gathered_ones_sparse_or_dense(share: float) -> None:
    rng = np.random.default_rng(31)
    gains = np.array([1.12, 1.04, 0.97], np.float32)
    model = rng.uniform(150, 280, (60, 71, 3)).astype(np.float32)
    patch = rng.integers(0, 235, model.shape).astype(np.uint8)
    hot = rng.random(model.shape) < share
    patch[hot] = rng.integers(235, 256, int(hot.sum())).astype(np.uint8)
    assert (int(hot.sum()) * DENSE >= patch.size) == (share > 0.1)  # both branches of ``normalise`` run
    want = _gathered(patch, gains, model)
    assert np.array_equal(normalise(patch, gains, model), want)
    lit = normalise(patch, gains)
    lit.flags.writeable = False
    before = lit.copy()
    assert np.array_equal(normalise(patch, gains, model, lit=lit), want)
    assert np.array_equal(lit, before)  # the shared patch is not written to
    assert (want != lit).any()


@pytest.mark.parametrize("lighting", [0.85, 1.3])
def test_the_slot_decision_gets_the_batchs_patch_unchanged(lighting: float) -> None:
    """``SecondOpinion.lit`` is exactly the patch the slot decision made itself before, only for the frame,
    light and region it was cut for; the decision's patch from it is the one it made itself."""
    rng = np.random.default_rng(12)
    scene = TableScene(random_tokens(rng), slots=random_slots(rng, 12))
    frame = renderer().render(scene, seed=12, lighting=lighting)
    reader = BoardReader(layout(), pose(), PALETTE, reference())
    reader.read(frame)
    assert reader.opinion is not None and reader._blur is not None
    gains = reader._blur.gains
    assert bool((gains > 1.02).any()) == (lighting > 1.0)
    other = frame.copy()
    for sid, reg in reader.slot_regions.items():
        lit = reader.opinion.lit(sid, frame, gains, reg)
        assert lit is not None and not lit.flags.writeable
        raw = extract(frame, reg.H, reg.size)
        assert np.array_equal(lit, normalise(raw, gains))
        model = reader._bgr_of(reader.models.get(sid) or reader._mat_slots[sid])
        assert np.array_equal(normalise(raw, gains, model, lit=lit), _gathered(raw, gains, model))
        assert reader.opinion.lit(sid, other, gains, reg) is None
        assert reader.opinion.lit(sid, frame, gains * np.float32(1.01), reg) is None


def test_the_grey_code_window_reads_the_same_codes() -> None:
    rng = np.random.default_rng(21)
    scene = TableScene(random_tokens(rng), slots=random_slots(rng, 21))
    frame = renderer().render(scene, seed=21, blur=0.6)
    reader = BoardReader(layout(), pose(), PALETTE, reference())
    read = 0
    for sid, reg in reader.slot_regions.items():
        Hq, n = qr_homography(reg.H, reg.px_per_mm, reg.size, layout().card_size_mm)
        old = np.asarray(cv2.cvtColor(extract(frame, Hq, (n, n)), cv2.COLOR_BGR2GRAY), np.uint8)
        new = extract_grey(frame, Hq, (n, n))
        assert new.shape == old.shape and int(np.abs(new.astype(int) - old).max()) <= 1
        code = decode_qr(new)
        assert code == decode_qr(old)
        want = [c.payload for c in scene.slots.get(sid, []) if c.face == "down"]
        assert code is None or [code] == want
        read += code is not None
    assert read >= 3


@pytest.mark.parametrize("seed", range(3))
def test_changed_mask_with_the_models_brightness_kept_is_the_plain_one(seed: int) -> None:
    from vision.colour import MIN_SUM, chroma, chroma_dist
    from vision.slots import OPEN_RADIUS_MM, changed_mask, fill_holes

    rng = np.random.default_rng(40 + seed)
    ref_img = rng.integers(20, 256, (90, 127, 3)).astype(np.uint8)
    patch = np.clip(ref_img.astype(int) + rng.integers(-30, 31, ref_img.shape), 0, 255).astype(np.uint8)
    patch[20:60, 30:90] = rng.integers(0, 256, 3).astype(np.uint8)  # something changed
    ref = chroma(ref_img)
    c, s = chroma(patch)
    dc = chroma_dist(c, ref[0])
    ratio = s / np.maximum(ref[1], 1.0)
    calm = ratio[(dc < 0.03) & (ref[1] > 300)]
    gain = float(calm[::3].mean()) if calm.size > 60 else 1.0
    rel = ratio / max(gain, 0.05)
    out = ((dc > 0.05) & (s > MIN_SUM) & (ref[1] > MIN_SUM)) | (rel < 0.5) | (rel > 2.0)
    side = 2 * max(1, round(OPEN_RADIUS_MM)) + 1
    want = fill_holes(cv2.morphologyEx(out.astype(np.uint8), cv2.MORPH_OPEN, np.ones((side, side), np.uint8)))
    for _ in range(2):  # the second time from the kept brightness
        got = changed_mask(patch, ref, (c, s), 1.0)
        assert np.array_equal(got, want)
    assert 0 < int(got.sum()) < got.size
