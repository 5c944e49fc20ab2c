"""The float passes of the stand decision (``vision.stands.StandClassifier.classify``) computed once for all
the stands a frame reads, on one stack of their patches, instead of stand by stand.

A full read decides ~18 stands, each in ~60 small numpy/OpenCV steps on a 60x60 (or 52x52) patch; most of
their cost is each call's overhead, not its arithmetic. The per-pixel passes (the chromaticity, the owner
each pixel's colour is nearest, the change against the model blurred as the frame is) are element by
element, so stacking the patches of one size along the rows and running each pass once gives every stand
the very values its own pass gave (``tests/test_stand_stack_same.py``); what depends on a stand as a whole
(the median brightness ratio of its calm pixels, the opening of its change mask) is still taken on its own
slice. The decision's shapes, blobs and reasons stay per stand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import F32, MIN_SUM, chroma, chroma_dist, chroma_f, median
from vision.empty_model import EmptyModels
from vision.memo import IdentityMemo
from vision.regions import Region
from vision.stand_change import (
    MATCH_BLUR_MM,
    MATCH_GAIN,
    MIN_CALM_MM2,
    OPEN_MM,
    SMOOTH_MM,
    match_score,
    match_step,
    smoothed_model,
)
from vision.stand_shapes import kernel, px_area

OwnerMap = Callable[[F32, F32], NDArray[np.int8]]


class FrameEstimate(Protocol):
    """What the passes take from the frame's blur estimate (``vision.frame_blur.FrameBlur``, which imports the
    stand decision, so not imported here)."""

    smoothed: dict[str, tuple[F32, F32]]

    def patch(self, rid: str) -> NDArray[np.uint8]: ...

    def blur_mm(self, rid: str) -> float | None: ...


@dataclass(frozen=True)
class StandInput:
    """One stand to read: its light-normalised patch at ``px_per_mm``; ``ref`` its empty model (or its look's
    colour and brightness), None with neither; ``blur_mm`` the frame's extra blur for it (None: the stand
    matches its model alone, by ``vision.stand_change.changed_matched``'s own ladder); ``smooth`` its
    ``smoothed_patch`` when the frame's blur estimate made it already."""

    patch: NDArray[np.uint8]
    px_per_mm: float
    ref: tuple[F32, F32] | None = None
    blur_mm: float | None = None
    smooth: tuple[F32, F32] | None = None


@dataclass(frozen=True)
class StandPasses:
    """One stand's share of the stacked passes: ``chroma(patch)``, ``owner_map`` of it, and
    ``changed_matched``'s (mask, extra blur) against ``ref`` (None where the stand has no model or look)."""

    cs: tuple[F32, F32]
    owners: NDArray[np.int8]
    change: tuple[NDArray[np.bool_], float] | None


def stand_inputs(blur: FrameEstimate, models: EmptyModels, regions: dict[str, Region],
                 sids: Iterable[str]) -> dict[str, StandInput]:
    """What the passes need of each of ``sids`` this frame: its patch, model or look, and blur as the frame's
    estimate ``blur`` gives them (each model as it is before any stand of the frame is read: a stand's read
    changes its own model only)."""
    out: dict[str, StandInput] = {}
    for sid in sids:
        model, look = models.get(sid), models.look(sid)
        ref = model if model is not None else None if look is None else (look[0], look[1])
        out[sid] = StandInput(blur.patch(sid), regions[sid].px_per_mm, ref, blur.blur_mm(sid), blur.smoothed.get(sid))
    return out


def stand_passes(owner_map: OwnerMap, inputs: dict[str, StandInput]) -> dict[str, StandPasses]:
    """Every stand's passes, computed per group of stands whose patches have one size and scale."""
    groups: dict[tuple[tuple[int, ...], float], list[str]] = {}
    for rid, x in inputs.items():
        groups.setdefault((x.patch.shape, x.px_per_mm), []).append(rid)
    out: dict[str, StandPasses] = {}
    for (_, k), rids in groups.items():
        n = inputs[rids[0]].patch.shape[0]
        rows = [slice(i * n, (i + 1) * n) for i in range(len(rids))]
        c, s = chroma(np.concatenate([inputs[r].patch for r in rids]))
        owners = owner_map(c, s)
        matched = [i for i, r in enumerate(rids) if inputs[r].ref is not None and k > 0]
        changes = _changed(inputs, [rids[i] for i in matched], k, n) if matched else []
        change: list[tuple[NDArray[np.bool_], float] | None] = [None] * len(rids)
        for i, got in zip(matched, changes, strict=True):
            change[i] = got
        for i, rid in enumerate(rids):
            out[rid] = StandPasses((c[rows[i]], s[rows[i]]), owners[rows[i]], change[i])
    return out


def _changed(inputs: dict[str, StandInput], rids: list[str], k: float,
             n: int) -> list[tuple[NDArray[np.bool_], float]]:
    """``changed_matched(patch, ref, k, blur_mm, smooth)`` of each of ``rids`` (each has a ref), its per-pixel
    steps on one stack; a stand without the frame's blur picks its model's level by its own ladder."""
    m = len(rids)
    c = np.empty((m * n, n, 3), np.float32)
    s = np.empty((m * n, n), np.float32)
    bare = [i for i, r in enumerate(rids) if inputs[r].smooth is None]
    if bare:  # smoothed one by one (a blur across the stack would mix neighbours), the chromaticity at once
        blurred = np.concatenate([cv2.GaussianBlur(inputs[rids[i]].patch.astype(np.float32), (0, 0), SMOOTH_MM * k)
                                  for i in bare])
        bc, bs = chroma_f(np.asarray(blurred, np.float32))
        for j, i in enumerate(bare):
            c[i * n:(i + 1) * n], s[i * n:(i + 1) * n] = bc[j * n:(j + 1) * n], bs[j * n:(j + 1) * n]
    for i, r in enumerate(rids):
        smooth = inputs[r].smooth
        if smooth is not None:
            c[i * n:(i + 1) * n], s[i * n:(i + 1) * n] = smooth
    extras = [_level(c[i * n:(i + 1) * n], _ref(inputs[r]), k) if inputs[r].blur_mm is None else float(
        inputs[r].blur_mm or 0.0) for i, r in enumerate(rids)]
    models = [smoothed_model(_ref(inputs[r]), round(e * k, 1), k) for r, e in zip(rids, extras, strict=True)]
    rc, rs = _STACKED.get(tuple(a for model in models for a in model),
                          lambda: (np.concatenate([mc for mc, _ in models]), np.concatenate([ms for _, ms in models])))
    dc = chroma_dist(c, rc)
    ratio = s / np.maximum(rs, 1.0)
    calm = (dc < 0.03) & (rs > 100)
    least = px_area(MIN_CALM_MM2, k)
    local = np.empty((m * n, 1), np.float32)
    for i in range(m):
        rows = slice(i * n, (i + 1) * n)
        part, quiet = ratio[rows], calm[rows]
        local[rows] = max(median(part[quiet]) if int(quiet.sum()) > least else median(part.ravel()), 0.05)
    rel = ratio / local
    raw = (((dc > 0.06) & (s > MIN_SUM) & (rs > MIN_SUM)) | (rel < 0.3) | (rel > 2.2)).astype(np.uint8)
    opening = kernel(OPEN_MM, k)
    return [(np.asarray(cv2.morphologyEx(raw[i * n:(i + 1) * n], cv2.MORPH_OPEN, opening) > 0, np.bool_), extras[i])
            for i in range(m)]


def _level(c: F32, ref: tuple[F32, F32], k: float) -> float:
    """``changed_matched``'s per-stand ladder: of the model blurred by each of ``MATCH_BLUR_MM``, the level
    closest to the smoothed patch ``c`` in median colour (a further one only when ``MATCH_GAIN`` closer)."""
    best: tuple[float, float] | None = None
    for level in MATCH_BLUR_MM:
        score = match_score(c, smoothed_model(ref, round(level * k, 1), k)[0], match_step(k))
        if best is None or score < best[0] - MATCH_GAIN:
            best = (score, level)
    assert best is not None
    return best[1]


def _ref(x: StandInput) -> tuple[F32, F32]:
    assert x.ref is not None
    return x.ref


# the smoothed models of a group stacked, kept while the very same models are read frame after frame
_STACKED: IdentityMemo[tuple[F32, F32]] = IdentityMemo(limit=16)
