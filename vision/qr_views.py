"""Views of a candidate code prepared for a decoder: crop or rectify, scale, channel, local contrast.

The camouflage is yellow/orange light areas with near-black modules and lava blobs, and green blobs over
parts of the card. A view is an 8-bit single-channel image around one candidate together with the affine
map from view pixels back to frame pixels, so corners a decoder reports can be given in frame pixels.

Channels (named so a config can list them):
- ``grey``: the usual luma;
- ``min_rg``: min(R, G): bright only where both red and green are (yellow), so orange lava and green
  blobs both drop toward the dark modules' side less than in luma and glare-free yellow stays bright;
- ``green`` / ``red``: single channels, each robust to one of the two coloured distractors;
- ``clahe``: luma after contrast-limited local equalisation, for glare and low light.
Binarised variants use a mean adaptive threshold whose block spans about four modules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
import numpy.typing as npt

from vision.qr_decoders import GreyImage, as_grey
from vision.qr_finders import Candidate

BgrImage = npt.NDArray[np.uint8]
Affine = npt.NDArray[np.float64]


@cache
def _clahe_op() -> cv2.CLAHE:
    """One CLAHE operator per process, made on first use (not at import)."""
    return cv2.createCLAHE(clipLimit=2.0, tileGridSize=(4, 4))


def _grey(bgr: BgrImage) -> GreyImage:
    return as_grey(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))


def _min_rg(bgr: BgrImage) -> GreyImage:
    out: GreyImage = np.minimum(bgr[:, :, 1], bgr[:, :, 2])
    return out


def _green(bgr: BgrImage) -> GreyImage:
    return np.ascontiguousarray(bgr[:, :, 1])


def _red(bgr: BgrImage) -> GreyImage:
    return np.ascontiguousarray(bgr[:, :, 2])


def _clahe(bgr: BgrImage) -> GreyImage:
    return as_grey(_clahe_op().apply(_grey(bgr)))


CHANNELS: dict[str, Callable[[BgrImage], GreyImage]] = {
    "grey": _grey,
    "min_rg": _min_rg,
    "green": _green,
    "red": _red,
    "clahe": _clahe,
}


@dataclass(frozen=True, slots=True)
class Patch:
    """A colour patch around one candidate and the affine map from its pixels to frame pixels."""

    bgr: BgrImage
    to_frame: Affine
    module_px: float


def crop_patch(frame: BgrImage, cand: Candidate, ppm: float, margin_modules: float) -> Patch:
    """Axis-aligned crop around `cand` with a margin, scaled to about `ppm` pixels per module.

    Parts of the crop outside the frame are filled with the crop's light level (a quiet zone), so a
    code cut by the frame edge still has the white border the decoders look for.
    """
    outline = np.array(cand.outline())
    pad = margin_modules * cand.module
    x0, y0 = np.floor(outline.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(outline.max(axis=0) + pad).astype(int)
    h, w = frame.shape[:2]
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    roi = frame[cy0:cy1, cx0:cx1]
    scale = ppm / cand.module
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    small = cv2.resize(roi, None, fx=scale, fy=scale, interpolation=interp)
    top, left = round((cy0 - y0) * scale), round((cx0 - x0) * scale)
    bottom, right = round((y1 - cy1) * scale), round((x1 - cx1) * scale)
    if top or left or bottom or right:
        light = [float(v) for v in np.percentile(small.reshape(-1, 3), 90, axis=0)]
        small = cv2.copyMakeBorder(small, top, bottom, left, right, cv2.BORDER_CONSTANT, value=light)
    # view (u, v) -> frame: x = x0 + u / scale, y = y0 + v / scale (to within resize rounding)
    to_frame = np.array([[1 / scale, 0.0, float(x0)], [0.0, 1 / scale, float(y0)]], dtype=np.float64)
    return Patch(as_grey(small), to_frame, ppm)


def rectified_patch(frame: BgrImage, cand: Candidate, ppm: float, quiet_modules: float) -> Patch:
    """The candidate warped onto an upright module grid (`ppm` pixels per module, light quiet zone).

    Uses the affine frame of the three finder centres, which undoes rotation, scale and shear (most of
    a moderate tilt); the decoders absorb the remaining perspective.
    """
    n = cand.modules
    size = round((n + 2 * quiet_modules) * ppm)
    # view (u, v) -> module (u / ppm - q, v / ppm - q) -> frame via the candidate's affine map
    view_to_module = np.array([[1 / ppm, 0.0, -quiet_modules], [0.0, 1 / ppm, -quiet_modules], [0.0, 0.0, 1.0]])
    to_frame = cand.module_to_frame() @ view_to_module
    light = [float(v) for v in np.percentile(frame[:: 8, :: 8].reshape(-1, 3), 90, axis=0)]
    bgr = cv2.warpAffine(
        frame, to_frame, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT, borderValue=light,
    )
    return Patch(as_grey(bgr), to_frame, ppm)


def binarise(grey: GreyImage, module_px: float) -> GreyImage:
    """Mean adaptive threshold with a block of about four modules (dark modules stay dark)."""
    block = max(3, round(module_px * 4) | 1)
    return as_grey(cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, 0))


def to_frame_points(points: tuple[tuple[float, float], ...], to_frame: Affine) -> list[tuple[float, float]]:
    """Map view pixel coordinates to frame pixels with a 2x3 affine matrix."""
    return [
        (
            float(to_frame[0, 0] * x + to_frame[0, 1] * y + to_frame[0, 2]),
            float(to_frame[1, 0] * x + to_frame[1, 1] * y + to_frame[1, 2]),
        )
        for x, y in points
    ]
