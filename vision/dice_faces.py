"""What is printed on the Kipukas dice: the die kinds, their faces, their sizes and the marks on each face.

This is a fact about the physical dice (like the mat's layout), shared by the reader (`vision.dice`, which
matches these marks) and the renderer (`vision.synth.dice`, which draws them). Each player's set
(#equipment) is a D6 pair, a D20 and the diel die, all 3D-printed in the seat's colour with the marks
recessed into the faces (`../shared/kipukas/images/d6.jpeg`, `d20.jpeg`, `diel_die.jpeg`).

The D6 carries numerals (not pips), the diel die a sun (day), a moon (night) and wind/lightning (storm),
each on two faces, and the D20 numerals 1-20 with a bar under 6 and 9 so the two differ at
any rotation.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

DIE_KINDS = ("diel", "d6", "d20")
FACES: dict[str, tuple[str, ...]] = {
    "diel": ("day", "night", "storm"),  # the diel die's symbols by the notation's words (#diel_cycle)
    "d6": tuple(str(n) for n in range(1, 7)),
    "d20": tuple(str(n) for n in range(1, 21)),
}
SHAPE = {"diel": "cube", "d6": "cube", "d20": "icosahedron"}
SIZE_MM = {"diel": 18.0, "d6": 18.0, "d20": 20.0}  # across the body seen from above
# The mark's height as a fraction of the die's size: the cubes' recessed circle holds a large numeral or
# symbol; the D20's top face is a triangle, its numeral smaller.
MARK_FRACTION = {"cube": 0.52, "icosahedron": 0.3}
# The distribution each die's faces follow (for the chi-squared check of reported rolls): fair dice; the
# diel die carries each of its three symbols on two faces.
DISTRIBUTION: dict[str, dict[str, float]] = {k: {f: 1.0 / len(fs) for f in fs} for k, fs in FACES.items()}


def _numeral(text: str, size_px: int, underline: bool, widest: str) -> NDArray[np.float32]:
    """A numeral drawn upright, centred in a square of `size_px`, ink = 1; every numeral of a die at the
    same scale (the `widest` one fills the square), so a "7" is as tall as a "17" and half as wide."""
    canvas = 128
    font = cv2.FONT_HERSHEY_DUPLEX
    (ww, wh), _ = cv2.getTextSize(widest, font, 1.6, 10)
    extent = max(ww, wh + 10) + 6
    img = np.zeros((canvas, canvas), np.uint8)
    (w, h), _ = cv2.getTextSize(text, font, 1.6, 10)
    x, y = (canvas - w) // 2, (canvas + h) // 2
    cv2.putText(img, text, (x, y), font, 1.6, 255, 10, cv2.LINE_AA)
    if underline:
        cv2.line(img, (x + 6, y + 12), (x + w - 6, y + 12), 255, 8, cv2.LINE_AA)
    cx, cy = canvas / 2.0, y - h / 2.0 + (5 if underline else 0)
    k = size_px / extent
    M = np.array([[k, 0, size_px / 2 - cx * k], [0, k, size_px / 2 - cy * k]], np.float64)
    out = cv2.warpAffine(img, M, (size_px, size_px), flags=cv2.INTER_AREA)
    return np.asarray(out, np.float32) / 255.0


def _symbol(face: str, size_px: int) -> NDArray[np.float32]:
    """The diel die's sun, moon or storm, drawn at 8x and reduced, ink = 1."""
    k = 8
    n = size_px * k
    img = np.zeros((n, n), np.uint8)
    c = n // 2
    t = max(2, n // 11)
    if face == "day":  # a disc with eight rays
        cv2.circle(img, (c, c), int(n * 0.2), 255, -1, cv2.LINE_AA)
        for i in range(8):
            a = i * math.pi / 4
            p0 = (int(c + n * 0.28 * math.cos(a)), int(c + n * 0.28 * math.sin(a)))
            p1 = (int(c + n * 0.47 * math.cos(a)), int(c + n * 0.47 * math.sin(a)))
            cv2.line(img, p0, p1, 255, t, cv2.LINE_AA)
    elif face == "night":  # a crescent opening to the right
        cv2.circle(img, (c, c), int(n * 0.44), 255, -1, cv2.LINE_AA)
        cv2.circle(img, (int(c + n * 0.2), int(c - n * 0.06)), int(n * 0.36), 0, -1, cv2.LINE_AA)
    elif face == "storm":  # three wind strokes and a lightning bolt
        for i, (x0, x1) in enumerate(((0.08, 0.62), (0.16, 0.78), (0.08, 0.55))):
            y = int(n * (0.22 + 0.18 * i))
            cv2.line(img, (int(n * x0), y), (int(n * x1), y), 255, t, cv2.LINE_AA)
        bolt = np.array([[0.78, 0.2], [0.6, 0.6], [0.74, 0.6], [0.58, 0.94], [0.9, 0.5], [0.76, 0.5], [0.9, 0.2]])
        cv2.fillPoly(img, [np.round(bolt * n).astype(np.int32)], 255, cv2.LINE_AA)
    else:
        raise ValueError(f"the diel die has no face {face!r}; it shows {', '.join(FACES['diel'])}")
    out = cv2.resize(img, (size_px, size_px), interpolation=cv2.INTER_AREA)
    return np.asarray(out, np.float32) / 255.0


def mark(kind: str, face: str, size_px: int, angle_deg: float = 0.0) -> NDArray[np.float32]:
    """The ink of `face` of a `kind` die, `size_px` square, turned by `angle_deg` (counter-clockwise)."""
    if kind not in FACES or face not in FACES[kind]:
        raise ValueError(f"a {kind} die has no face {face!r}")
    big = size_px * 2
    ink = _symbol(face, big) if kind == "diel" else _numeral(face, big, kind == "d20" and face in ("6", "9"),
                                                                   "20" if kind == "d20" else "6")
    if angle_deg:
        M = cv2.getRotationMatrix2D((big / 2 - 0.5, big / 2 - 0.5), angle_deg, 1.0)
        ink = np.asarray(cv2.warpAffine(ink, M, (big, big), flags=cv2.INTER_LINEAR), np.float32)
    return np.asarray(cv2.resize(ink, (size_px, size_px), interpolation=cv2.INTER_AREA), np.float32)


D20_TOP_RADIUS = 0.62  # the top triangle's circumradius over the outline's (an icosahedron seen face-on)
D20_MARK_DROP = 0.12  # the numeral sits this far (of the triangle's circumradius) towards the triangle's base


def d20_top(face: str, size_px: int, angle_deg: float = 0.0) -> NDArray[np.float32]:
    """The D20's top as brightness (0..1), `size_px` square around the top triangle's centre, turned by
    `angle_deg`: the lit triangle, its darker neighbours beyond the edges, the numeral recessed in it."""
    k = 4
    n = size_px * k
    c = n / 2.0
    img = np.full((n, n), 0.8, np.float32)
    r = n / 2.0
    tri = np.array([[c + r * math.cos(math.radians(-90 + 120 * i)), c + r * math.sin(math.radians(-90 + 120 * i))]
                    for i in range(3)])
    cv2.fillPoly(img, [np.round(tri * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
    cv2.polylines(img, [np.round(tri * 16).astype(np.int32)], True, 0.55, max(1, k), cv2.LINE_AA, shift=4)
    size = round(n * MARK_FRACTION["icosahedron"] / D20_TOP_RADIUS)
    ink = mark("d20", face, size)
    x0, y0 = round(c - size / 2), round(c + r * D20_MARK_DROP - size / 2)
    roi = img[y0:y0 + size, x0:x0 + size]
    roi[:] = roi * (1 - ink) + 0.45 * ink
    if angle_deg:
        M = cv2.getRotationMatrix2D((c - 0.5, c - 0.5), angle_deg, 1.0)
        img = np.asarray(cv2.warpAffine(img, M, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                         np.float32)
    return np.asarray(cv2.resize(img, (size_px, size_px), interpolation=cv2.INTER_AREA), np.float32)
