"""The slots' change test (``vision.slots.changed_mask``) and chromaticity computed once for all the slots a
frame reads, on one stack of their patches, instead of slot by slot (as ``vision.stand_stack`` does for the
stands).

The per-pixel steps (the chromaticity, its distance to the empty slot's, the brightness ratio, the
thresholds) are element by element, so one pass over the stacked patches of one size gives each slot the
very values its own pass gave (``tests/test_slot_stack_same.py``); the light's gain over a slot's calm pixels,
the opening of its mask and the filling of the holes the mask encloses stay per slot, on its slice.
"""

from __future__ import annotations

from functools import partial

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import F32, MIN_SUM, chroma, chroma_dist
from vision.memo import IdentityMemo
from vision.slots import MIN_CALM_MM2, OPEN_RADIUS_MM, fill_holes
from vision.warp import Image

SlotPasses = tuple[Image, tuple[F32, F32], NDArray[np.bool_]]  # the patch, its chroma, changed_mask(patch, ref, k=k)


def slot_passes(inputs: dict[str, tuple[Image, tuple[F32, F32], float]]) -> dict[str, SlotPasses]:
    """For each slot (its light-normalised patch, its empty model, its px per mm): the patch, ``chroma(patch)``
    and ``changed_mask(patch, model, k=px_per_mm)``, computed per group of slots of one size and scale."""
    groups: dict[tuple[tuple[int, ...], tuple[int, ...], float], list[str]] = {}
    for sid, (patch, ref, k) in inputs.items():
        groups.setdefault((patch.shape, ref[1].shape, k), []).append(sid)
    out: dict[str, SlotPasses] = {}
    for (shape, ref_shape, k), sids in groups.items():
        if shape[:2] != ref_shape:  # a model of another size: ``changed_mask`` fails as before, slot by slot
            continue
        h = shape[0]
        rows = [slice(i * h, (i + 1) * h) for i in range(len(sids))]
        c, s = chroma(np.concatenate([inputs[sid][0] for sid in sids]))
        refs = tuple(a for sid in sids for a in inputs[sid][1])
        rc, floor, lit, seen = _STACKED.get(refs, partial(_stacked, refs))
        dc = chroma_dist(c, rc)
        ratio = s / floor
        calm = (dc < 0.03) & lit
        gain = np.empty((len(sids) * h, 1), np.float32)
        for part in rows:
            calm_ratio = ratio[part][calm[part]]
            gain[part] = max(float(calm_ratio[::3].mean()) if calm_ratio.size > MIN_CALM_MM2 * k * k else 1.0, 0.05)
        rel = ratio / gain
        raw = (((dc > 0.05) & (s > MIN_SUM) & seen) | (rel < 0.5) | (rel > 2.0)).astype(np.uint8)
        side = 2 * max(1, round(OPEN_RADIUS_MM * k)) + 1
        square = np.ones((side, side), np.uint8)
        for sid, part in zip(sids, rows, strict=True):
            mask = fill_holes(np.asarray(cv2.morphologyEx(raw[part], cv2.MORPH_OPEN, square), np.uint8))
            out[sid] = (inputs[sid][0], (c[part], s[part]), mask)
    return out


def _stacked(refs: tuple[F32, ...]) -> tuple[F32, F32, NDArray[np.bool_], NDArray[np.bool_]]:
    """The models' chromaticity stacked, and what ``changed_mask`` derives from their brightness: its floor of
    1, where it is bright enough to measure the light, where it is bright enough for a colour."""
    rc = np.concatenate(refs[0::2])
    rs = np.concatenate(refs[1::2])
    return rc, np.maximum(rs, 1.0), rs > 300, rs > MIN_SUM


# the stacked models of the slots a frame reads, kept while the very same models are read frame after frame
_STACKED: IdentityMemo[tuple[F32, F32, NDArray[np.bool_], NDArray[np.bool_]]] = IdentityMemo(limit=16)
