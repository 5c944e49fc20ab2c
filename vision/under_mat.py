"""Reading the table beyond a slot's outer edge: is the end of a card slid under the mat showing there?

A card played hidden lies face down under the mat with its end out beyond the slot's edge (#placement_how:
"Play a hidden card vertically face down under the mat"). The area read (``vision.regions.under_regions``)
is plain table when no card is there. A card's end is one solid rectangle as wide as a card, starting at
the mat's edge and ending inside the area, in the card-back art's colours; anything else that changed the
area (a hand or sleeve reaching past it, a die, a phone, a card end pushed out beyond the area) is
*unknown*. With a model of the empty area the change against it is measured; without one, the pixels in
the card-back art's colours are, and an area without any is empty.

The QR code sits in the middle of the back, under the mat: a hidden card's identity is its owner's word,
never the camera's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.assets import CARD_BACK, asset
from vision.colour import F32, chroma, share
from vision.slots import changed_mask, fill_holes
from vision.warp import Image

FREE = 0.03  # of the area changed: at most this is an empty area (noise, a crumb)
STRAY = 0.03  # of the area changed outside the card's end: more is something else there too
EDGE_MM = 4.0  # a card's end touches the mat's edge: its rows nearest the edge
EDGE_SPAN = 0.8  # of a card's width the end covers along the mat's edge
MIN_OUT_MM = 30.0  # a card's end shows at least this much (#placement_how's picture shows about half a card)
SOLID = 0.92  # of its bounding box a card's end fills
BACK_LIKE = 0.5  # of a card's end in the card-back art's colours
EDGE_STRONG = 60.0  # Sobel magnitude (0-255 grey levels) of an object's outline; sensor noise stays far below
DARK = 70  # brightest channel of the art's cracks and the card's border (0-255)
GAP_MM = 4.5  # dark cracks and border of the art this wide are closed before the shape is taken
WIDTH_TOL_MM = (12.0, 8.0)  # a card's end is at most this much narrower / wider than a card (askew, blur)


@dataclass(frozen=True)
class UnderReading:
    state: str  # "empty" | "down" (a card's end showing) | "unknown"
    confidence: float
    reason: str | None = None


@lru_cache(maxsize=1)
def _end_hist() -> NDArray[np.float32]:
    """Hue x saturation histogram of the card-back art in coarse bins: a camera's tone curve and lamp shift
    the art's colours by more than a fine histogram allows."""
    hsv = cv2.cvtColor(asset(CARD_BACK), cv2.COLOR_BGR2HSV)
    hist = cv2.calcHist([hsv], [0, 1], None, [18, 4], [0, 180, 0, 256])
    hist = cv2.GaussianBlur(hist, (3, 3), 0)
    return np.asarray(hist / max(float(hist.max()), 1.0), dtype=np.float32)


def back_coloured(img: Image) -> NDArray[np.bool_]:
    """Pixels whose hue and saturation the card-back art holds (at least 2 % of its commonest colour)."""
    hsv = cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_BGR2HSV)
    bp = cv2.calcBackProject([hsv], [0, 1], _end_hist(), [0, 180, 0, 256], 1.0)
    return np.asarray(bp > 0.02, dtype=np.bool_)


def _edgy(patch: Image) -> float:
    """Share of pixels on a strong edge: a plain table has none, an object's outline has many."""
    gray = cv2.GaussianBlur(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), (0, 0), 1.0).astype(np.float32)
    mag = cv2.magnitude(cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1))
    return share(mag > EDGE_STRONG)


def read_under(patch: Image, model: tuple[F32, F32] | None, px_per_mm: float,
               card_mm: tuple[float, float], cs: tuple[F32, F32] | None = None) -> UnderReading:
    """One area, rectified with its top row along the mat's edge (``px_per_mm``); ``model`` is the empty
    area's chromaticity and brightness (``vision.colour.chroma``), or None when not known yet; ``cs`` is
    the patch's own, when the caller has it already."""
    # the card-back colours are looked for only where they decide (no model, or something changed): an
    # empty area with a model, the common case, does without them
    coloured: NDArray[np.bool_] | None = None
    if model is None:
        coloured = back_coloured(patch)
        # the art's black cracks and the card's dark border carry no colour: dark pixels count, and small
        # gaps (GAP_MM) close, before taking the shape (a dark table then fills the area: unknown)
        dark = np.asarray(patch.max(axis=2) < DARK, dtype=np.bool_)
        side = 2 * round(GAP_MM / 2 * px_per_mm) + 1  # 9 px at 2 px/mm, 5 at 1
        shut = cv2.morphologyEx((coloured | dark).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((side, side), np.uint8))
        changed = fill_holes(np.asarray(shut, np.uint8))
    else:
        changed = changed_mask(patch, model, chroma(patch) if cs is None else cs)
    if share(changed) <= FREE:
        if model is None and _edgy(patch) > FREE:
            # no card colour, but not a plain table either: a box or a phone could hide a card's end
            return UnderReading("unknown", 0.0, "something on the table beyond the mat's edge")
        return UnderReading("empty", 1.0 - share(changed) / FREE * 0.5)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(changed.astype(np.uint8), connectivity=8)
    i = 1 + int(stats[1:, cv2.CC_STAT_AREA].argmax())
    _, y, w, h, area = (int(v) for v in stats[i])
    blob = labels == i
    rows = changed.shape[0]
    k = px_per_mm
    edge_rows = max(2, round(EDGE_MM * k))
    span = float(blob[:edge_rows].any(axis=0).sum()) / (card_mm[0] * k)
    stray = float(changed.sum() - area) / changed.size
    depth_mm, width_mm = (y + h) / k, w / k
    if y + h >= rows - 1:
        return UnderReading("unknown", 0.0, "something reaches past the area beyond the mat's edge")
    if (y > edge_rows or span < EDGE_SPAN or depth_mm < MIN_OUT_MM or stray > STRAY
            or not card_mm[0] - WIDTH_TOL_MM[0] <= width_mm <= card_mm[0] + WIDTH_TOL_MM[1]
            or area / float(w * h) < SOLID):
        return UnderReading("unknown", 0.0, "not a card's end")
    like = float((back_coloured(patch) if coloured is None else coloured)[blob].mean())
    if like < BACK_LIKE:
        return UnderReading("unknown", 0.0, "not a card's back")
    return UnderReading("down", float(min(1.0, like / 0.8, span)))
