"""The lit top of one die of touching dice: what the shape test reads when two dice lie pressed together.

Two touching dice are one blob. `vision.dice` cuts that blob where its outline narrows, but the camera sees
the dice's walls on the side away from the image's centre, so the narrowest place of the outline is not
where one die ends: the cut may run through a die's lit top, and the shape test (the 4- or 3-fold symmetry
of the lit top, `vision.dice._shape`) then sees a square with a corner or a strip cut off, and fails. The
tops themselves are the brightest parts of the blob and each has a die's size, so they are found whole from
the touching pair's lit region: first the lit region that already lies mostly in the cut part (tops parted by
darker edges and walls), else the lit region cut at its own pinch (the line between the two deepest dents of
its outline, where two tops meet), the piece lying mostly in the cut part taken when it has one die's top's
size. A piece that cannot be had is None. The found top must pass the same shape test a lone die passes
(`vision.dice` falls back to the part as cut when it does not), and the face network's acceptance still
decides: a piece that is not one die's top stays unknown, never a guess.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
U8 = NDArray[np.uint8]
TOP_SHARE = 0.85  # a split die's lit top: this much of it must lie in its own part (the rest is what the cut took)
PEAK_SHARE = 0.5  # a piece of the pair's lit region cut at its pinch: at least this much in the cut part
PINCH_MIN_PX = 4.0  # a dent of the lit region's outline this deep (1.3 mm) may be where two tops meet
PEAK_MIN = 0.35  # ... and no smaller than this share of the largest top (a sliver is no die's top)


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
    """A split die's lit top as the piece of the touching pair's lit region (at `part`'s light level) on
    `part`'s side of the region's pinch: the line between the two deepest dents of its outline (convexity
    defects, each at least `PINCH_MIN_PX` deep), where two tops meet. None when the region has no such pinch
    or the piece does not lie at least `PEAK_SHARE` in `part` at `PEAK_MIN` to 1 times `max_area` pixels."""
    lit = lit_mask(chan, whole, part)
    n, labels = cv2.connectedComponents(lit)
    if n < 2:
        return None
    overlap = np.bincount(labels[part > 0], minlength=n)[1:]
    region = (labels == 1 + int(np.argmax(overlap))).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    if len(outline) < 8:
        return None
    hull = cv2.convexHull(outline, returnPoints=False)
    try:
        defects = cv2.convexityDefects(outline, hull)
    except cv2.error:  # a self-touching outline (hull not monotonic): no pinch read from it
        return None
    if defects is None:
        return None
    dents = [d for d in np.asarray(defects).reshape(-1, 4) if d[3] / 256.0 >= PINCH_MIN_PX]  # depth: 8.8 fixed
    deep = sorted(dents, key=lambda d: -int(d[3]))[:2]
    if len(deep) < 2:
        return None
    a, b = (tuple(int(v) for v in outline[d[2], 0]) for d in deep)
    cut = region.copy()
    cv2.line(cut, a, b, 0, thickness=2)
    n, labels = cv2.connectedComponents(cut)
    best, most = None, 0
    for k in range(1, n):
        piece = labels == k
        total = int(np.count_nonzero(piece))
        inside = int(np.count_nonzero(piece & (part > 0)))
        if PEAK_MIN * max_area <= total <= max_area and inside >= PEAK_SHARE * total and inside > most:
            best, most = piece, inside
    return None if best is None else best.astype(np.uint8)


def split_top(chan: F32, part: U8, whole: U8, max_area: float) -> U8 | None:
    """The lit top of the die cut as `part` from the touching dice `whole`, whole again (`chan`: the die's
    own dominant channel): the lit region already parted from its neighbour's, else the lit region split at
    its pinch; None when neither gives one die's top."""
    parted = _parted_top(chan, part, whole)
    return parted if parted is not None else _pinched_top(chan, part, whole, max_area)
