"""One die's top as the face classifier sees it: a small square, top-down, light normalised.

The roll area is already rectified on the plane of the dice's tops (`vision.dice`, 3 px/mm), so a die's top
is seen as if from straight above at a known scale. The crop is `CROP_MM` square around the top's centre,
resampled to `CROP_PX` (2.4 px/mm: at least the camera's own resolution there, which is 1.7-2.3 px/mm for a
camera 1150-850 mm above the table, so no pixel the camera has is averaged away and a D20's 6 mm numeral
spans about 14 px). Everything outside the die's own outline (a touching neighbour, another die nearby) is
painted the table's colour before the crop is cut, so the network sees one die. It is made independent of the light
and of the seat's colour: the brightest channel after the light's per-channel gains (any saturated colour
puts its mark's contrast there), then centred on its median and scaled by its spread. The same function
makes the training crops (`training/dice_data.py`) and the reader's, so they cannot drift apart.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dice_glare import deglare, deglare_hidden

CROP_MM = 20.0
CROP_PX = 48
GLARE_SHAPES = ("cube",)  # the dice shapes (`vision.dice`) whose glare is taken off (round 8: see docs/dice.md)
F32 = NDArray[np.float32]


def face_crop(img: F32, top_xy: tuple[float, float], gains: F32, px_per_mm: float, turn_deg: float = 0.0,
              mask: NDArray[np.uint8] | None = None, fill: F32 | None = None, shape: str = "cube") -> F32:
    """The classifier's input for the die whose top lies at `top_xy` (pixels of `img`, a BGR float patch at
    `px_per_mm`), `gains` the light's per-channel gains, turned by `turn_deg` (the outline's turn, so a cube's
    edges lie square and a D20's top triangle upright): `CROP_PX` square, float32, about zero mean, unit
    spread. With `mask` (the die's own pixels in `img`, non-zero) everything else is painted `fill` (the
    table's BGR colour), so a neighbour's marks never reach the network."""
    return face_crop_hidden(img, top_xy, gains, px_per_mm, turn_deg, mask, fill, shape, False)[0]


def face_crop_hidden(img: F32, top_xy: tuple[float, float], gains: F32, px_per_mm: float, turn_deg: float = 0.0,
                     mask: NDArray[np.uint8] | None = None, fill: F32 | None = None, shape: str = "cube",
                     hidden: bool = True) -> tuple[F32, float]:
    """`face_crop`, and how much of the die's top (mm², `vision.dice_glare.hidden_mm2`) a glare spot may have
    hidden the mark under: 0 for a die whose glare is not taken off (not a cube, no `mask`) or not `hidden`."""
    if mask is not None:
        img = np.where(mask[:, :, None] > 0, img, np.asarray(fill if fill is not None else np.median(
            img.reshape(-1, 3), axis=0), np.float32)).astype(np.float32)
    side = round(CROP_MM * px_per_mm)
    big = round(side * 1.5)
    window = cv2.getRectSubPix(np.ascontiguousarray(img, np.float32), (big, big),
                               (float(top_xy[0]), float(top_xy[1])))
    c = (big - 1) / 2.0
    M = np.asarray(cv2.getRotationMatrix2D((c, c), turn_deg, 1.0), np.float64)
    M[:, 2] -= (big - side) / 2.0
    window = cv2.warpAffine(window, M, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lit = np.asarray(window / np.maximum(gains, 1e-3), np.float32)
    grey = np.asarray(lit.max(axis=2), np.float32)
    lost = 0.0
    if mask is not None and shape in GLARE_SHAPES:
        own = cv2.warpAffine(cv2.getRectSubPix(np.ascontiguousarray(mask, np.float32), (big, big),
                                               (float(top_xy[0]), float(top_xy[1]))), M, (side, side),
                             flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
        raw, die = np.asarray(window, np.float32), np.asarray(own > 0.5, np.uint8)
        if hidden:
            grey, lost = deglare_hidden(raw, lit, grey, die, px_per_mm)
        else:
            grey = deglare(raw, lit, grey, die, px_per_mm)
    small = np.asarray(cv2.resize(grey, (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA), np.float32)
    return normalise(small), lost


def normalise(grey: F32) -> F32:
    """Centred on the median, scaled by the 5-95 % spread: the light's level and the die's shade drop out."""
    lo, mid, hi = np.percentile(grey, (5, 50, 95))
    spread = max(float(hi - lo), 4.0)  # a flat crop (no mark) stays flat instead of amplifying noise
    return np.asarray(np.clip((grey - mid) / spread, -3.0, 3.0), np.float32)
