"""Cheap QR candidate finding: finder patterns by contour nesting, grouped into code-shaped triples.

A QR finder pattern is a dark ring, a light ring and a dark centre (1:1:3:1:1). Kipukas card backs hide
the code in a lava pattern of dark blobs and light cracks, and the dark outer ring often merges with a
neighbouring blob, but the *light ring and its dark centre* survive: a contour with exactly one child,
both roughly square, concentric, the child covering about 9/25 of the parent (or the outer ring about
25/49 when it does not merge). Three such patterns of similar size at two equal sides of a right angle
(loosely, to allow tilt) make a candidate code. This costs a few milliseconds on a half-size frame and
tells the reader where, how big and how many codes to expect, so it can spend effort only there.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.qr_decoders import GreyImage

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Finder:
    """One finder pattern: its centre and module size, in the pixels of the image it was found in."""

    x: float
    y: float
    module: float


@dataclass(frozen=True, slots=True)
class Candidate:
    """A likely QR code: finder centres (top-left, top-right, bottom-left) and module size, frame pixels.

    `top_left` is the finder at the right angle; `top_right` and `bottom_left` are ordered so that the
    code is not mirrored (clockwise on screen), as printed codes seen by a camera are.
    """

    top_left: Point
    top_right: Point
    bottom_left: Point
    module: float

    @property
    def modules(self) -> float:
        """Estimated symbol width in modules (finder centres are 3.5 modules in from the edges)."""
        tl, tr, bl = (np.array(p) for p in (self.top_left, self.top_right, self.bottom_left))
        span = (float(np.linalg.norm(tr - tl)) + float(np.linalg.norm(bl - tl))) / 2
        return span / self.module + 7.0

    def module_to_frame(self) -> npt.NDArray[np.float64]:
        """2x3 affine matrix mapping module coordinates (0..modules on both axes) to frame pixels."""
        tl, tr, bl = (np.array(p, dtype=np.float64) for p in (self.top_left, self.top_right, self.bottom_left))
        inner = self.modules - 7.0
        e1 = (tr - tl) / inner
        e2 = (bl - tl) / inner
        origin = tl - 3.5 * e1 - 3.5 * e2
        return np.array([[e1[0], e2[0], origin[0]], [e1[1], e2[1], origin[1]]], dtype=np.float64)

    def outline(self) -> list[Point]:
        """The code's estimated outer corners in frame pixels (clockwise from top-left)."""
        m = self.module_to_frame()
        n = self.modules
        pts = [(0.0, 0.0), (n, 0.0), (n, n), (0.0, n)]
        return [
            (float(m[0, 0] * u + m[0, 1] * v + m[0, 2]), float(m[1, 0] * u + m[1, 1] * v + m[1, 2])) for u, v in pts
        ]

    @property
    def centre(self) -> Point:
        """Centre of the code in frame pixels."""
        return (
            (self.top_right[0] + self.bottom_left[0]) / 2,
            (self.top_right[1] + self.bottom_left[1]) / 2,
        )

    def scaled(self, factor: float) -> Candidate:
        """The same candidate in an image scaled by `factor`."""

        def s(p: Point) -> Point:
            return (p[0] * factor, p[1] * factor)

        return Candidate(s(self.top_left), s(self.top_right), s(self.bottom_left), self.module * factor)


def find_finders(grey: GreyImage, block: int, min_contrast: float = 0.0, min_area: float = 30.0) -> list[Finder]:
    """Finder patterns in `grey` (dark on light), deduplicated across nesting levels.

    A pixel counts as dark when it is below its neighbourhood's mean, unless that neighbourhood is flat
    (standard deviation under `min_contrast` grey levels): flat, noisy areas (a wall, a table) would
    otherwise split into thousands of specks and cost far more contour tracing than the rest of the
    reader. A finder's neighbourhood always has strong contrast, even in dim light.
    """
    binary = cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block | 1, 0)
    if min_contrast > 0:
        size = (block | 1, block | 1)
        mean = cv2.boxFilter(grey, cv2.CV_32F, size)
        var = cv2.sqrBoxFilter(grey, cv2.CV_32F, size) - mean * mean
        binary[var < min_contrast * min_contrast] = 0
    contours, hierarchy = cv2.findContours(binary, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    tree = hierarchy[0]
    raw: list[tuple[float, float, float]] = []
    for i, contour in enumerate(contours):
        child = int(tree[i][2])
        if child < 0 or int(tree[child][0]) >= 0:  # exactly one child
            continue
        area = float(cv2.contourArea(contour))
        if area < min_area:
            continue
        child_area = float(cv2.contourArea(contours[child]))
        ratio = child_area / area
        if not 0.15 < ratio < 0.65:
            continue
        _, _, w, h = cv2.boundingRect(contour)
        if not 0.5 < w / h < 2.0:
            continue
        hull = float(cv2.contourArea(cv2.convexHull(contour)))
        if hull <= 0 or area / hull < 0.85:
            continue
        m, mc = cv2.moments(contour), cv2.moments(contours[child])
        if m["m00"] <= 0 or mc["m00"] <= 0:
            continue
        cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
        if math.hypot(cx - mc["m10"] / mc["m00"], cy - mc["m01"] / mc["m00"]) > 0.15 * math.sqrt(area):
            continue
        # An outer ring (7 modules) holds a 5-module hole (~0.5); a hole holds the 3-module centre (~0.36).
        modules_across = 7.0 if ratio > 0.45 else 5.0
        raw.append((cx, cy, math.sqrt(area) / modules_across))
    finders: list[Finder] = []
    for cx, cy, module in sorted(raw, key=lambda f: -f[2]):
        if any(math.hypot(cx - f.x, cy - f.y) < 2 * f.module for f in finders):
            continue
        finders.append(Finder(cx, cy, module))
    return finders


def group_finders(
    finders: list[Finder], max_finders: int = 24, min_modules: float = 17.0, max_modules: float = 65.0
) -> list[Candidate]:
    """Triples of finders shaped like a QR code, best first, each finder used at most once."""
    pool = finders[:max_finders]
    scored: list[tuple[float, tuple[int, int, int], Candidate]] = []
    for trio in itertools.combinations(range(len(pool)), 3):
        fs = [pool[i] for i in trio]
        mods = [f.module for f in fs]
        if max(mods) > 1.7 * min(mods):
            continue
        module = sum(mods) / 3
        for corner in range(3):
            b, a, c = fs[corner], fs[(corner + 1) % 3], fs[(corner + 2) % 3]
            ux, uy, vx, vy = a.x - b.x, a.y - b.y, c.x - b.x, c.y - b.y
            du, dv = math.hypot(ux, uy), math.hypot(vx, vy)
            if min(du, dv) <= 0 or max(du, dv) > 1.4 * min(du, dv):
                continue
            cos = abs(ux * vx + uy * vy) / (du * dv)
            if cos > 0.35:
                continue
            span = (du + dv) / 2 / module + 7.0
            if not min_modules - 3 <= span <= max_modules:
                continue
            if ux * vy - uy * vx < 0:  # keep the code unmirrored: top-right then bottom-left, clockwise
                a, c = c, a
            score = cos + abs(du - dv) / max(du, dv) + (max(mods) - min(mods)) / module
            scored.append((score, trio, Candidate((b.x, b.y), (a.x, a.y), (c.x, c.y), module)))
            break
    used: set[int] = set()
    out: list[Candidate] = []
    for _, trio, cand in sorted(scored, key=lambda s: s[0]):
        if used.intersection(trio):
            continue
        used.update(trio)
        out.append(cand)
    return out


def pair_candidates(
    finders: list[Finder], max_pairs: int = 6, min_modules: float = 17.0, max_modules: float = 45.0
) -> list[Candidate]:
    """Codes two found finders could belong to when the third is hidden (a finger, a glare band).

    Two finders of similar size are either on one side of the code (the third is a right angle away
    from one of them, on either side) or on its diagonal (the third is at the right angle's corner).
    Each hypothesis is a `Candidate` the grid sampler can try; only a decoder's checksum accepts one.
    """
    pairs: list[tuple[float, Finder, Finder]] = []
    for a, b in itertools.combinations(finders, 2):
        if max(a.module, b.module) > 1.5 * min(a.module, b.module):
            continue
        module = (a.module + b.module) / 2
        dist = math.hypot(b.x - a.x, b.y - a.y) / module
        if min_modules - 7 <= dist <= (max_modules - 7) * math.sqrt(2):
            pairs.append((abs(a.module - b.module) / module, a, b))
    out: list[Candidate] = []
    for _, a, b in sorted(pairs, key=lambda p: p[0])[:max_pairs]:
        module = (a.module + b.module) / 2
        pa, pb = np.array([a.x, a.y]), np.array([b.x, b.y])
        d = pb - pa
        perp = np.array([-d[1], d[0]])
        span = float(np.linalg.norm(d)) / module
        hypotheses: list[tuple[Point, Point, Point]] = []
        if span <= max_modules - 7:  # a side of the code
            for sign in (1.0, -1.0):
                hypotheses.append((_p(pa), _p(pb), _p(pa + sign * perp)))
                hypotheses.append((_p(pb), _p(pa), _p(pb + sign * perp)))
        if span / math.sqrt(2) >= min_modules - 7:  # its diagonal
            mid = (pa + pb) / 2
            for sign in (1.0, -1.0):
                hypotheses.append((_p(mid + sign * perp / 2), _p(pa), _p(pb)))
        for corner, u, v in hypotheses:
            cu = (u[0] - corner[0]) * (v[1] - corner[1]) - (u[1] - corner[1]) * (v[0] - corner[0])
            if cu < 0:
                u, v = v, u
            out.append(Candidate(corner, u, v, module))
    return out


def _p(v: npt.NDArray[np.float64]) -> Point:
    return (float(v[0]), float(v[1]))
