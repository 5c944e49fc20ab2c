"""Reading the face up of one die: its mark matched against every face's mark at every turn.

The marks come from `vision.dice_faces` (what is printed on the dice), drawn at the reader's scale and
turned in `STEP_DEG` steps. A die's top, seen from above, is matched by normalised cross-correlation (so
the seat's colour and the light's level do not matter) over a small search window around the die's
centre (the top is off the outline's centre when the die is seen from the side). The answer is the best
face, the best score and the margin over the best *other* face: `vision.dice` turns these into a
calibrated confidence and says "unknown" when the margin is too small.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dice_faces import D20_TOP_RADIUS, FACES, MARK_FRACTION, SHAPE, SIZE_MM, d20_top, mark

STEP_DEG = 5
JITTER_DEG = 10  # how far the outline's turn may be off the mark's
# The camera's blur at the reader's scale (a 1.9 px/mm frame resampled to 3 px/mm, its lens and JPEG): the
# templates are blurred alike, a matched filter, so a sharp template does not reward sharp noise.
TEMPLATE_BLUR_PX = 0.0  # measured 0.8 and 1.4 px on the tuning seed: no better over the three kinds
F32 = NDArray[np.float32]


@dataclass(frozen=True)
class FaceMatch:
    """The best face of one die: `kind` and `face` of the best match, its score, and the margin over the best
    match of any other face (of any kind tried)."""

    kind: str
    face: str
    score: float
    margin: float
    offset_px: tuple[int, int]


@lru_cache(maxsize=8)
def bank(kind: str, px_per_mm: float) -> tuple[tuple[str, int, F32], ...]:
    """Every (face, turn, template) of `kind`: bright ground, dark ink, as the recessed marks look."""
    out: list[tuple[str, int, F32]] = []
    if SHAPE[kind] == "icosahedron":  # the whole top triangle: its edges fix where the numeral must be
        size = round(SIZE_MM[kind] * D20_TOP_RADIUS * px_per_mm) | 1
        for face in FACES[kind]:
            for angle in range(0, 360, STEP_DEG):
                out.append((face, angle, _blurred(d20_top(face, size, float(angle)))))
        return tuple(out)
    size = round(MARK_FRACTION[SHAPE[kind]] * SIZE_MM[kind] * px_per_mm) | 1
    for face in FACES[kind]:
        for angle in range(0, 360, STEP_DEG):
            ink = mark(kind, face, size, float(angle))
            out.append((face, angle, _blurred(np.asarray(1.0 - ink, np.float32))))
    return tuple(out)


def _blurred(t: F32) -> F32:
    return np.asarray(cv2.GaussianBlur(t, (0, 0), TEMPLATE_BLUR_PX), np.float32) if TEMPLATE_BLUR_PX > 0 else t


def turns(outline_deg: float | None, symmetry: int) -> set[int]:
    """The mark's possible turns (multiples of `STEP_DEG`) for an outline turned by `outline_deg` with
    `symmetry`-fold symmetry (the marks are upright to an edge of their face): every turn when unknown."""
    if outline_deg is None:
        return set(range(0, 360, STEP_DEG))
    out: set[int] = set()
    for k in range(symmetry):
        base = outline_deg + k * 360.0 / symmetry
        for j in range(-JITTER_DEG, JITTER_DEG + 1, STEP_DEG):
            out.add(round((base + j) / STEP_DEG) * STEP_DEG % 360)
    return out


def match_face(grey: F32, kinds: dict[str, set[int]], px_per_mm: float, search_mm: float = 3.5) -> FaceMatch | None:
    """The best face of `kinds` (kind -> the turns to try) in `grey` (a die's window, die centred), or None
    when the window is too small."""
    best: dict[tuple[str, str], tuple[float, tuple[int, int]]] = {}
    h, w = grey.shape
    for kind, allowed in kinds.items():
        templates = bank(kind, px_per_mm)
        t = templates[0][2].shape[0]
        half = t // 2 + round(search_mm * px_per_mm)
        cy, cx = h // 2, w // 2
        if cy - half < 0 or cx - half < 0 or cy + half >= h or cx + half >= w:
            return None
        window = np.ascontiguousarray(grey[cy - half:cy + half + 1, cx - half:cx + half + 1])
        if float(window.std()) < 1e-3:
            continue
        for face, angle, tmpl in templates:
            if angle not in allowed:
                continue
            res = cv2.matchTemplate(window, tmpl, cv2.TM_CCOEFF_NORMED)
            _, score, _, loc = cv2.minMaxLoc(res)
            key = (kind, face)
            if key not in best or score > best[key][0]:
                off = (loc[0] + t // 2 - half, loc[1] + t // 2 - half)
                best[key] = (float(score), (int(off[0]), int(off[1])))
    if not best:
        return None
    ranked = sorted(best.items(), key=lambda kv: -kv[1][0])
    (kind, face), (score, off) = ranked[0]
    runner = ranked[1][1][0] if len(ranked) > 1 else -1.0
    return FaceMatch(kind, face, score, score - runner, off)
