"""The lit top of one die of touching dice: what the shape test reads when two dice lie pressed together.

Two touching dice are one blob. `vision.dice` cuts that blob where its outline narrows, but the camera sees
the dice's walls on the side away from the image's centre, so the narrowest place of the outline is not
where one die ends: the cut may run through a die's lit top, and the shape test (the 4- or 3-fold symmetry
of the lit top, `vision.dice._shape`) then sees a square with a corner or a strip cut off, and fails. The
tops themselves are the brightest parts of the blob and each has a die's size, so they are found whole from
the touching pair's lit region: first the lit region that already lies mostly in the cut part (tops parted by
darker edges and walls), else the lit region split at its own pinch (its distance transform's peaks, one
per top), the piece that lies mostly in the cut part taken when it is no larger than one die's top. A piece
that cannot be had is None, and the part is read as it was cut; the shape test and the face network's
acceptance still decide, so a piece that is not one die's top stays unknown, never a guess.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]
TOP_SHARE = 0.85  # a split die's lit top: this much of it must lie in its own part (the rest is what the cut took)
PEAK_SHARE = 0.5  # a piece of the pair's lit region split at its pinch: at least this much in the cut part
PEAK_FRACTIONS = (0.5, 0.6, 0.7, 0.8)  # the distance-transform levels tried for one core per top


def lit_mask(chan: F32, blob: NDArray[np.uint8], level_of: NDArray[np.uint8] | None = None) -> NDArray[np.uint8]:
    """The lit part of `blob` (at least 0.7 of the 95th percentile of `level_of`'s pixels, default `blob`'s),
    small gaps closed."""
    values = chan[(level_of if level_of is not None else blob) > 0]
    lit = ((chan >= 0.7 * np.percentile(values, 95)) & (blob > 0)).astype(np.uint8)
    return np.asarray(cv2.morphologyEx(lit, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8)), np.uint8)


def _parted_top(chan: F32, part: NDArray[np.uint8], whole: NDArray[np.uint8]) -> NDArray[np.uint8] | None:
    """A split die's lit top whole: the lit region of the touching dice's `whole` blob (at `part`'s own light
    level) that lies mostly in `part`. Tops are parted by darker edges and walls, so the split line (drawn on
    the outline alone) may cut a corner off the top while the lit region keeps it; None when no lit region
    lies mostly in `part` (two tops merged in glare), and the part is read as it was cut."""
    if int(part.sum()) < 20:
        return None
    lit = lit_mask(chan, whole, part)
    for shrink in range(4):  # two tops meeting at a corner: eroded a little, they part
        core = np.asarray(cv2.erode(lit, np.ones((3, 3), np.uint8), iterations=shrink), np.uint8) if shrink else lit
        n, labels = cv2.connectedComponents(core)
        best, share = None, 0.0
        for k in range(1, n):
            comp = labels == k
            inside = float(np.count_nonzero(comp & (part > 0)))
            if inside > share:
                best, share = comp, inside
        if best is not None and share >= TOP_SHARE * float(np.count_nonzero(best)):
            grown = np.asarray(cv2.dilate(best.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=shrink),
                               np.uint8)
            return np.asarray(grown & lit, np.uint8)
    return None


def _pinched_top(chan: F32, part: U8, whole: U8, max_area: float) -> U8 | None:
    """A split die's lit top as the piece of the touching pair's lit region (at `part`'s light level) that
    the region's distance-transform peaks give it: one core per top, grown back over the lit region by a
    watershed, so the line between two tops runs along the region's pinch, not the outline's. None when no
    piece lies at least `PEAK_SHARE` in `part` at no more than `max_area` pixels (two tops merged without a
    pinch)."""
    lit = lit_mask(chan, whole, part)
    dist = cv2.distanceTransform(lit, cv2.DIST_L2, 5)
    peak = float(dist.max())
    if peak < 3.0:
        return None
    canvas = cv2.cvtColor(lit * 255, cv2.COLOR_GRAY2BGR)
    for frac in PEAK_FRACTIONS:
        cores = (dist > frac * peak).astype(np.uint8)
        n, labels = cv2.connectedComponents(cores)
        markers = labels.astype(np.int32)
        markers[(lit > 0) & (cores == 0)] = 0
        markers[lit == 0] = n  # the unlit rest is its own basin
        cv2.watershed(canvas, markers)
        best, most = None, 0
        for k in range(1, n):
            piece = (markers == k) & (lit > 0)
            total = int(np.count_nonzero(piece))
            inside = int(np.count_nonzero(piece & (part > 0)))
            if 0 < total <= max_area and inside >= PEAK_SHARE * total and inside > most:
                best, most = piece, inside
        if best is not None:
            return best.astype(np.uint8)
    return None


def split_top(chan: F32, part: U8, whole: U8, max_area: float) -> U8 | None:
    """The lit top of the die cut as `part` from the touching dice `whole`, whole again (`chan`: the die's
    own dominant channel): the lit region already parted from its neighbour's, else the lit region split at
    its pinch; None when neither gives one die's top."""
    parted = _parted_top(chan, part, whole)
    return parted if parted is not None else _pinched_top(chan, part, whole, max_area)
