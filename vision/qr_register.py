"""Where a face-down card's QR code lies in its code window, found from the patterns every code shares.

Finder template matching needs a finder's rings to survive; at 1.4 frame px per module they blur into
one blob. All the fixed patterns together (three finders with their separators, the two timing lines,
the alignment pattern: about a third of a version-2 code) still carry a strong, unique signature at
that size. This module correlates their expected image (unknown data modules at the mean, so they
weigh nothing) with the window at half its resolution, for each version, printed size, small tilt and
the card upright or upside down, and returns the best placements as module -> window-px maps, which
``vision.qr_solve`` refines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from vision.slot_qr import VERSIONS, FloatImage, function_modules
from vision.warp import Mat3, rotate, scale, translate

SIDES_MM = (34.0, 36.0, 38.0)  # the printed code's side (n modules): 0.36-0.40 of the 95 mm card width
TILTS_DEG = (-3.0, 0.0, 3.0)  # the card askew in its slot (the corner fit takes the rest)
TURNS_DEG = (0.0, 180.0)  # upright or upside down in a portrait slot
SEARCH_PX_PER_MM = 2.0  # the window is searched at half its 4 px/mm
_UP = 8  # template supersampling per module before it is warped to its size and tilt


@dataclass(frozen=True)
class Registration:
    """One placement of a code: its version, module units -> window px, and its correlation."""

    version: int
    mapping: Mat3
    score: float


@lru_cache(maxsize=8)
def _pattern(version: int) -> npt.NDArray[np.float32]:
    """The function patterns' lightness (0 dark, 1 light) supersampled, data modules and a one-module
    ring around the code at the patterns' mean (weightless in a normalised correlation)."""
    known, dark = function_modules(version)
    values = np.where(dark, 0.0, 1.0).astype(np.float32)
    mean = float(values[known].mean())
    values[~known] = mean
    values = np.pad(values, 1, constant_values=mean)
    return np.asarray(np.kron(values, np.ones((_UP, _UP), np.float32)), np.float32)


@lru_cache(maxsize=128)
def _template(version: int, module_px: float, angle_deg: float, blur: float) -> tuple[npt.NDArray[np.float32], Mat3]:
    """The pattern at ``module_px`` per module, tilted by ``angle_deg``, blurred; and module units ->
    template px."""
    n = 17 + 4 * version
    side = math.ceil((n + 2) * module_px * 1.42) + 4
    c = side / 2.0
    to_tpl = translate(c, c) @ rotate(angle_deg) @ scale(module_px) @ translate(-n / 2.0, -n / 2.0)
    # supersampled pattern px -> module units (the pattern has a one-module ring)
    from_pattern = translate(-1.0, -1.0) @ scale(1.0 / _UP) @ translate(0.5, 0.5)
    pat = _pattern(version)
    mean = float(pat.mean())
    # the supersampled pattern smoothed to the template's pixel before it is sampled (no aliasing)
    pat = np.asarray(cv2.GaussianBlur(pat, (0, 0), 0.5 * _UP / module_px), np.float32)
    tpl = cv2.warpPerspective(pat, to_tpl @ from_pattern, (side, side), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=mean)
    tpl = cv2.GaussianBlur(np.asarray(tpl, np.float32), (0, 0), max(blur, 0.3))
    # crop to the code's own extent so the window's far corners weigh nothing
    half = math.ceil((n + 2) * module_px * 0.5 * (abs(math.cos(math.radians(angle_deg)))
                                                          + abs(math.sin(math.radians(angle_deg))))) + 1
    lo, hi = max(0, int(c) - half), min(side, int(c) + half)
    return np.ascontiguousarray(tpl[lo:hi, lo:hi], np.float32), translate(-lo, -lo) @ to_tpl


def register(view: FloatImage, frame_px_per_mm: float, keep: int = 3,
             versions: tuple[int, ...] = VERSIONS) -> list[Registration]:
    """The best placements of a code in ``view`` (a 4 px/mm code window), best first, at least two
    modules apart."""
    k = SEARCH_PX_PER_MM / 4.0
    small = np.asarray(cv2.resize(view, None, fx=k, fy=k, interpolation=cv2.INTER_AREA), np.float32)
    # the frame's own pixel, seen at the search scale: a coarse frame blurs what is searched
    blur = 0.5 * SEARCH_PX_PER_MM / max(frame_px_per_mm, 1e-6)
    found: list[Registration] = []
    for version in versions:
        n = 17 + 4 * version
        for side in SIDES_MM:
            module_px = side * SEARCH_PX_PER_MM / n
            for tilt in TILTS_DEG:
                for turn in TURNS_DEG:
                    tpl, to_tpl = _template(version, module_px, tilt + turn, blur)
                    if tpl.shape[0] >= small.shape[0] or tpl.shape[1] >= small.shape[1]:
                        continue
                    score = cv2.matchTemplate(small, tpl, cv2.TM_CCOEFF_NORMED)
                    _, best, _, loc = cv2.minMaxLoc(score)
                    # small px of template placement -> window px (pixel centres: full = small / k + ...)
                    to_small = translate(float(loc[0]), float(loc[1])) @ to_tpl
                    to_view = translate(0.5 / k - 0.5, 0.5 / k - 0.5) @ scale(1.0 / k) @ to_small
                    found.append(Registration(version, np.asarray(to_view, np.float64), float(best)))
    found.sort(key=lambda r: -r.score)
    out: list[Registration] = []
    for r in found:
        centre = _centre(r)
        module = 4.0 * 36.0 / (17 + 4 * r.version)
        if all(o.version != r.version or math.dist(centre, _centre(o)) > 2 * module for o in out):
            out.append(r)
        if len(out) == keep:
            break
    return out


def _centre(r: Registration) -> tuple[float, float]:
    n = 17 + 4 * r.version
    p = r.mapping @ np.array([n / 2.0, n / 2.0, 1.0])
    return (float(p[0] / p[2]), float(p[1] / p[2]))
