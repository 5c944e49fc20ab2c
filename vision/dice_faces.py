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
MARK_FRACTION = {"cube": 0.52, "icosahedron": 0.36}
# The distribution each die's faces follow (for the chi-squared check of reported rolls): fair dice; the
# diel die carries each of its three symbols on two faces.
DISTRIBUTION: dict[str, dict[str, float]] = {k: {f: 1.0 / len(fs) for f in fs} for k, fs in FACES.items()}


def _numeral(text: str, size_px: int, underline: bool) -> NDArray[np.float32]:
    """A numeral drawn upright, centred in a square of `size_px`, ink = 1."""
    canvas = 96
    img = np.zeros((canvas, canvas), np.uint8)
    font = cv2.FONT_HERSHEY_DUPLEX
    (w, h), _ = cv2.getTextSize(text, font, 1.6, 4)
    x, y = (canvas - w) // 2, (canvas + h) // 2
    cv2.putText(img, text, (x, y), font, 1.6, 255, 4, cv2.LINE_AA)
    if underline:
        cv2.line(img, (x + 4, y + 9), (x + w - 4, y + 9), 255, 4, cv2.LINE_AA)
    ys, xs = np.nonzero(img > 40)
    cx, cy = (xs.min() + xs.max()) / 2.0, (ys.min() + ys.max()) / 2.0
    extent = max(xs.max() - xs.min(), ys.max() - ys.min()) + 4
    M = np.array([[size_px / extent, 0, size_px / 2 - cx * size_px / extent],
                  [0, size_px / extent, size_px / 2 - cy * size_px / extent]], np.float64)
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
    ink = _symbol(face, big) if kind == "diel" else _numeral(face, big, kind == "d20" and face in ("6", "9"))
    if angle_deg:
        M = cv2.getRotationMatrix2D((big / 2 - 0.5, big / 2 - 0.5), angle_deg, 1.0)
        ink = cv2.warpAffine(ink, M, (big, big), flags=cv2.INTER_LINEAR)
    return np.asarray(cv2.resize(ink, (size_px, size_px), interpolation=cv2.INTER_AREA), np.float32)
