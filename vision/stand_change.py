"""The change test of the stand decision (``vision.stands``): which pixels of a stand's patch differ from its
empty model, with the model blurred as much as the frame is, and the smoothed models and blur ladder it
compares at (kept per model, computed at calibration rather than per frame)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import F32, MIN_SUM, chroma_dist, chroma_f, median
from vision.memo import IdentityMemo
from vision.stand_shapes import kernel, px_area

# sizes in mm (``vision.stands``): the opening of a change mask, the smoothing of the change test, the
# fewest pixels of a calm area, the ladder's sampling step
OPEN_MM = 1.0 / 3.0
SMOOTH_MM = 1.0
MIN_CALM_MM2 = 30.0 / 9.0
MATCH_STEP_MM = 2.0 / 3.0
LEGACY_PX_PER_MM = 3.0  # the sizes of the legacy test (``changed_pixels_legacy``), which is given no scale
# extra blur (mm) the model is given to match a blurrier frame (``changed_matched``); the next level is taken
# only when it brings the median colour difference down by MATCH_GAIN more
MATCH_BLUR_MM = (0.0, 0.7, 1.4, 2.1)
MATCH_GAIN = 0.002

def changed_pixels(patch: NDArray[np.uint8], ref: tuple[F32, F32], strict: bool = True) -> NDArray[np.bool_]:
    """Pixels that differ from the model ``ref``: in colour, or in brightness beyond the patch's own shading
    (a shadow or a dimmer lamp darkens the whole patch; the median ratio over unchanged colour removes it).
    Both are smoothed first, so blur, JPEG blocks and a pixel of misregistration are not changes. At
    ``px_per_mm`` 0 the sizes are those of 3 px/mm, with no blur matched."""
    return changed_matched(patch, ref, 0.0)[0]


def changed_matched(patch: NDArray[np.uint8], ref: tuple[F32, F32], px_per_mm: float,
                    blur_mm: float | None = None,
                    smooth: tuple[F32, F32] | None = None) -> tuple[NDArray[np.bool_], float]:
    """``changed_pixels`` against the model blurred as much as the frame is (and that extra blur, in mm).

    A frame blurrier than the model (a half-resolution camera, a lens out of focus: 2 frame px at 1014x760
    are 2 mm on the table) differs from a sharp model all over a textured stand, in colour as much as a
    piece does. Camera blur is one Gaussian for the whole frame, a piece is a local change. ``blur_mm`` is
    that blur when the frame's estimate gives it (``vision.frame_blur``: one level per frame and group of
    models); without it, of the model blurred by each of ``MATCH_BLUR_MM`` (0 with ``px_per_mm`` 0) the
    one closest to this patch in median colour is taken (the per-stand ladder). ``smooth``: the patch's
    ``smoothed_patch`` when the caller has it."""
    k = px_per_mm if px_per_mm > 0 else LEGACY_PX_PER_MM
    c, s = smoothed_patch(patch, k) if smooth is None else smooth
    if blur_mm is not None:
        extra = blur_mm if px_per_mm > 0 else 0.0
        rc, rs = _smoothed_ref(ref, round(extra * px_per_mm, 1), k)
    else:
        best: tuple[float, F32, F32, float] | None = None
        for level in MATCH_BLUR_MM if px_per_mm > 0 else (0.0,):
            lc, ls = _smoothed_ref(ref, round(level * px_per_mm, 1), k)
            score = match_score(c, lc, match_step(k))
            if best is None or score < best[0] - MATCH_GAIN:
                best = (score, lc, ls, level)
        assert best is not None
        _, rc, rs, extra = best
    dc = chroma_dist(c, rc)
    ratio = s / np.maximum(rs, 1.0)
    calm = (dc < 0.03) & (rs > 100)
    local = median(ratio[calm]) if int(calm.sum()) > px_area(MIN_CALM_MM2, k) else median(ratio.ravel())
    rel = ratio / max(local, 0.05)
    raw = ((dc > 0.06) & (s > MIN_SUM) & (rs > MIN_SUM)) | (rel < 0.3) | (rel > 2.2)
    return np.asarray(cv2.morphologyEx(raw.astype(np.uint8), cv2.MORPH_OPEN, kernel(OPEN_MM, k)) > 0, np.bool_), extra


def match_score(c: F32, model_c: F32, step: int = 2) -> float:
    """How far a smoothed patch's colour is from a smoothed model's: the median chromaticity distance over
    every ``step``-th pixel (the ladder's measure, per stand or pooled over a frame's sample; ``match_step``
    gives the step at a resolution); ``median`` is ``np.median``'s value by one partition."""
    return median(chroma_dist(c[::step, ::step], model_c[::step, ::step]).ravel())


def ladder_scores(c: F32, ref: tuple[F32, F32], px_per_mm: float) -> NDArray[np.float64]:
    """``match_score`` of the smoothed patch ``c`` against the model ``ref`` at every level of ``MATCH_BLUR_MM``
    (at ``px_per_mm``): one model lookup (its levels kept stacked, ``prepare_model``) and one distance for all
    levels instead of one of each per level. The same values (``tests/test_ladder_same.py``)."""
    step = match_step(px_per_mm)
    stack = _ladder(ref, px_per_mm)
    sample = np.ascontiguousarray(c[::step, ::step])
    rows = stack.shape[0] // sample.shape[0]
    d = chroma_dist(np.concatenate([sample] * rows), stack).reshape(rows, -1)
    return np.array([median(r) for r in d], np.float64)


def _ladder(ref: tuple[F32, F32], px_per_mm: float) -> F32:
    """The model's smoothed chromaticity at every level of ``MATCH_BLUR_MM``, each sampled every
    ``match_step`` pixel, stacked along the rows (kept per model and resolution, as ``_smoothed_ref``)."""
    kept = _LADDERS.get((ref[0], ref[1]), dict)
    got = kept.get(px_per_mm)
    if got is None:
        step = match_step(px_per_mm)
        got = kept[px_per_mm] = np.ascontiguousarray(np.concatenate(
            [_smoothed_ref(ref, round(level * px_per_mm, 1), px_per_mm)[0][::step, ::step] for level in MATCH_BLUR_MM]))
    return got


_LADDERS: IdentityMemo[dict[float, F32]] = IdentityMemo()


def match_step(px_per_mm: float) -> int:
    """The ladder's sampling step at ``px_per_mm``: one pixel every ``MATCH_STEP_MM`` (every other at 3 px/mm)."""
    return max(1, round(MATCH_STEP_MM * px_per_mm))


def smoothed_patch(patch: NDArray[np.uint8], px_per_mm: float) -> tuple[F32, F32]:
    """The patch (at ``px_per_mm``) chromaticity and brightness smoothed as ``changed_matched`` compares
    them."""
    return chroma_f(np.asarray(cv2.GaussianBlur(patch.astype(np.float32), (0, 0), SMOOTH_MM * px_per_mm),
                               np.float32))


def smoothed_model(ref: tuple[F32, F32], extra_px: float, px_per_mm: float) -> tuple[F32, F32]:
    """``ref`` (at ``px_per_mm``) smoothed and blurred by ``extra_px`` more (kept per model and blur)."""
    return _smoothed_ref(ref, extra_px, px_per_mm)


_SMOOTHED: IdentityMemo[dict[tuple[float, float], tuple[F32, F32]]] = IdentityMemo()


def prepare_model(ref: tuple[F32, F32], px_per_mm: float = 0.0) -> None:
    """Smooth a stand's model now (at calibration) rather than at its first reading: at every blur of the
    ladder (``MATCH_BLUR_MM`` at ``px_per_mm``; none with 0), the levels the frame's estimate
    (``vision.frame_blur``) and ``changed_matched`` compare it at, so no frame pays for smoothing a model."""
    for level in MATCH_BLUR_MM if px_per_mm > 0 else (0.0,):
        _smoothed_ref(ref, round(level * px_per_mm, 1), px_per_mm if px_per_mm > 0 else LEGACY_PX_PER_MM)
    if px_per_mm > 0:
        _ladder(ref, px_per_mm)


def _smoothed_ref(ref: tuple[F32, F32], extra_px: float, px_per_mm: float) -> tuple[F32, F32]:
    """The model smoothed as ``changed_pixels`` compares it, blurred by ``extra_px`` more, kept per model
    and blur (smoothed once, not per frame)."""
    levels = _SMOOTHED.get((ref[0], ref[1]), dict)
    got = levels.get((extra_px, px_per_mm))
    if got is None:
        sigma = float(np.hypot(SMOOTH_MM * px_per_mm, extra_px))
        got = chroma_f(np.asarray(cv2.GaussianBlur(ref[0] * ref[1][:, :, None], (0, 0), sigma), np.float32))
        levels[(extra_px, px_per_mm)] = got
    return got


def changed_pixels_legacy(c: F32, s: F32, ref: tuple[F32, F32]) -> NDArray[np.bool_]:
    """The previous change test (one fixed photo, no smoothing, no shading model)."""
    rc, rs = ref
    dc = chroma_dist(c, rc)
    ratio = s / np.maximum(rs, 1.0)
    raw = ((dc > 0.06) & (s > MIN_SUM) & (rs > MIN_SUM)) | (ratio < 0.3) | (ratio > 2.5)
    return np.asarray(cv2.morphologyEx(raw.astype(np.uint8), cv2.MORPH_OPEN, kernel(OPEN_MM, LEGACY_PX_PER_MM)) > 0,
                      np.bool_)
