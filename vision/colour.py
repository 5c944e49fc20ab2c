"""Colour features that survive uneven light: chromaticity (B, G, R) / (B + G + R) and brightness.

Owner colours are compared in chromaticity, so a token in shadow or under a brighter lamp keeps its owner;
shadows (same chromaticity, darker) are told apart from new objects (different chromaticity).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
MIN_SUM = 45.0  # below this (very dark pixels) chromaticity is mostly noise
_SUM3 = np.ones((1, 3), np.float32)  # ``cv2.transform``'s matrix summing a pixel's three channels


def chroma(img: NDArray[np.uint8]) -> tuple[F32, F32]:
    """Per-pixel chromaticity (h, w, 3) and brightness sum (h, w)."""
    return chroma_f(img.astype(np.float32))


def chroma_f(f: F32) -> tuple[F32, F32]:
    """``chroma`` of a float BGR image."""
    s = np.asarray(cv2.transform(f, _SUM3), np.float32).reshape(f.shape[:2])
    inv = np.float32(1.0) / np.maximum(s, np.float32(1.0))
    # each channel times the pixel's 1 / sum, as numpy's broadcast multiply does, in half its time; the
    # three-channel 1 / sum by ``cvtColor`` (a copy per channel, as ``cv2.merge`` made, in less time)
    c = np.asarray(cv2.multiply(f, cv2.cvtColor(inv, cv2.COLOR_GRAY2BGR)), np.float32)
    return c, s


def chroma_dist(a: F32, b: F32) -> F32:
    """Per-pixel Euclidean distance between two chromaticity images (each step by OpenCV: the same float32
    operations as numpy's, correctly rounded alike, with less overhead on a region's small arrays)."""
    d = np.asarray(cv2.subtract(a, b), np.float32)
    sq = np.asarray(cv2.transform(cv2.multiply(d, d), _SUM3), np.float32)
    return np.asarray(cv2.sqrt(sq), np.float32).reshape(a.shape[:2])


def chroma_dist_to(a: F32, colour: NDArray[np.float32]) -> F32:
    """``chroma_dist`` from every pixel of ``a`` to one chromaticity ``colour``: the difference taken by
    OpenCV against a scalar (the same float32 differences) instead of numpy's broadcast over a last axis of
    three, which cost ~20 times more on a stand's patch and was most of ``chroma_dist``'s time there."""
    scalar = (float(colour[0]), float(colour[1]), float(colour[2]), 0.0)
    d = np.asarray(cv2.subtract(a, scalar), np.float32)  # type: ignore[call-overload]
    return np.sqrt(np.asarray(cv2.transform(d * d, _SUM3), np.float32).reshape(a.shape[:2]))


def median(values: NDArray[np.generic]) -> float:
    """``np.median`` of a 1-D array by one partition: the same value, without the general machinery that
    made it a large share of a region's decision."""
    n = int(values.size)
    if n == 0:
        return float("nan")
    k = n // 2
    if n % 2:
        return float(np.partition(values, k)[k])
    p = np.partition(values, (k - 1, k))
    return float((p[k - 1] + p[k]) / 2) if p.dtype.kind == "f" else (float(p[k - 1]) + float(p[k])) / 2


def share(mask: NDArray[np.bool_] | NDArray[np.uint8]) -> float:
    """The share of ``mask``'s pixels that are set (a mask of 0 and 1; NaN when empty): ``float(mask.mean())``'s
    value (an exact count over the size, correctly rounded either way) without numpy's general mean, which
    cost ~5 us a call where a full read makes ~200 (the regions' decisions on their masks)."""
    return np.count_nonzero(mask) / mask.size if mask.size else float("nan")


def percentile(values: NDArray[np.floating], q: float) -> float:
    """``np.percentile(values, q)``'s value (its default linear method, a 1-D float array with no NaN, ``q`` a
    Python number) by one partition and numpy's own interpolation steps: the same value without the general
    machinery, which cost ~0.15-0.4 ms a call on a stand's few hundred values (``vision.stands._flipped``)."""
    n = int(values.size)
    if n == 0:
        raise ValueError("percentile: no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile: q = {q} is outside 0-100")
    virtual = (n - 1) * (q / 100)  # numpy's virtual index of its linear method
    if virtual >= n - 1:
        return float(np.max(values))
    lo = math.floor(virtual)
    gamma = virtual - lo
    p = np.partition(values, (lo, lo + 1))
    a, b = p[lo], p[lo + 1]
    diff = b - a
    # numpy's _lerp: a + diff * gamma, or b - diff * (1 - gamma) from gamma 0.5, in the values' own dtype
    return float(b - diff * (1 - gamma)) if gamma >= 0.5 else float(a + diff * gamma)


def colour_chroma(bgr: tuple[int, int, int]) -> NDArray[np.float32]:
    v = np.asarray(bgr, dtype=np.float32)
    return v / max(float(v.sum()), 1.0)


def saturation(c: F32) -> F32:
    """How far a chromaticity is from grey (0 for white/grey/black, up to ~1.3 for pure primaries)."""
    a = np.abs(c - np.float32(1.0 / 3.0))
    return np.asarray(cv2.transform(a, _SUM3), np.float32).reshape(c.shape[:2])


def palette_thresholds(palette: dict[str, tuple[int, int, int]]) -> dict[str, float]:
    """For each owner, the chromaticity distance within which a pixel counts as that owner's colour:
    less than half-way to the nearest other owner and to grey, at most 0.11."""
    cs = {o: colour_chroma(c) for o, c in palette.items()}
    grey = np.full(3, 1.0 / 3.0, dtype=np.float32)
    out: dict[str, float] = {}
    for o, c in cs.items():
        near = float(np.linalg.norm(c - grey))
        for p, d in cs.items():
            if p != o:
                near = min(near, float(np.linalg.norm(c - d)))
        out[o] = min(0.11, 0.45 * near)
    return out


def skin_fraction(c: F32, s: F32) -> float:
    """The fraction of skin-coloured pixels (R > G > B at moderate saturation, not dark): the obstruction
    test of last resort, when there is no reference frame of the empty table."""
    b, g, r = c[:, :, 0], c[:, :, 1], c[:, :, 2]
    skin = (r > 0.38) & (r < 0.52) & (g > 0.28) & (g < 0.37) & (b > 0.15) & (b < 0.30) & (s > 150)
    return float(skin.mean())
