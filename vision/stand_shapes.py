"""The shapes the stand decision (``vision.stands``) measures, sized in mm at any px per mm: the structuring
elements and areas it uses, where a piece may stand on a stand's patch, a blob's largest component, its
convex hull and that hull's squareness, and the zone a piece's side walls take."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

CROSS_BELOW_PX = 0.9  # an element reaching less than this many pixels is a 3x3 cross (``kernel``)


def px_area(mm2: float, px_per_mm: float) -> int:
    """An area in mm^2 as whole pixels at ``px_per_mm``."""
    return round(mm2 * px_per_mm * px_per_mm)


@lru_cache(maxsize=32)
def kernel(radius_mm: float, px_per_mm: float) -> NDArray[np.uint8]:
    """A square structuring element reaching ``radius_mm`` each side of its centre at ``px_per_mm`` (read-only:
    it is shared); under ``CROSS_BELOW_PX`` a 3x3 cross, the nearest to so small a disc (1/3 mm at 2 px/mm:
    a 3x3 square opened a JPEG-blotched top 1.5 mm wide where 3 px/mm opened it 1 mm wide)."""
    r = max(1, round(radius_mm * px_per_mm))
    if radius_mm * px_per_mm < CROSS_BELOW_PX:
        m = np.asarray(cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)), np.uint8)
    else:
        m = np.ones((2 * r + 1, 2 * r + 1), np.uint8)
    m.setflags(write=False)
    return m


@lru_cache(maxsize=64)
def footprint(kind: str, size_mm: tuple[float, float], k: float, n: int, grow: float) -> NDArray[np.uint8]:
    """Where a piece of ``kind`` may stand on an n x n stand patch (read-only: it is shared): the pixels
    whose centre lies within the square or disc, measured in mm, not rounded to whole pixels (a radius of
    8.8 mm was 26 px = 8.67 mm at 3 px/mm but 18 px = 9 mm at 2)."""
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float64) - n / 2.0
    if kind == "territory":
        hw, hh = (size_mm[0] / 2 + grow) * k, (size_mm[1] / 2 + grow) * k
        inside = (np.abs(xx) <= hw) & (np.abs(yy) <= hh)
    else:
        inside = np.hypot(xx, yy) <= (size_mm[0] / 2 + grow) * k
    m = np.asarray(inside, np.uint8)
    m.setflags(write=False)
    return m


def largest(mask: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The largest 8-connected component of ``mask`` (all zeros when it has none; of equal ones, the first
    labelled). The plain labelling and a count per label, not ``connectedComponentsWithStats`` (the same
    labels, whose statistics cost ~7x the labelling on a stand's patch), and no labelling of an empty mask
    (a third of the calls of a full read)."""
    if not cv2.countNonZero(mask):
        return np.zeros_like(mask)
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    if n <= 1:
        return np.zeros_like(mask)
    i = 1 + int(np.bincount(labels.ravel(), minlength=n)[1:].argmax())
    return np.asarray(labels == i, dtype=np.uint8)


def piece_zone(hull: NDArray[np.int32] | None, n: int, k: float, grow_mm: float) -> NDArray[np.bool_] | None:
    """The piece's hull grown by ``grow_mm`` (its side walls; with the shadow, 2.5 mm)."""
    if hull is None:
        return None
    m = np.zeros((n, n), np.uint8)
    cv2.fillConvexPoly(m, hull, 1)
    return np.asarray(cv2.dilate(m, np.ones((round(grow_mm * k) * 2 + 1,) * 2, np.uint8)) > 0, np.bool_)


def hull_of(blob: NDArray[np.uint8]) -> NDArray[np.int32] | None:
    """The convex hull of a blob, from its outer contour (not from every pixel: five times cheaper)."""
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    return np.asarray(cv2.convexHull(np.vstack(contours)), np.int32)


def fill_of(hull: NDArray[np.int32]) -> float:
    """The hull's area over its minimum-area rectangle: ~1 for squares, ~0.79 for discs. The hull ignores
    the dark tower tops and roof shadows inside a capital."""
    (_, _), (w, h), _ = cv2.minAreaRect(hull)
    return float(cv2.contourArea(hull)) / max(float(w * h), 1.0)
