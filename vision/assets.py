"""The real textures shipped in ``vision/assets`` (copies of ``shared/kipukas/images``), loaded once."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.errors import VisionError

Image = NDArray[np.uint8]

CARD_BACK = "hilbert_king_of_avian_frogs_back.jpeg"
CARD_FRONT = "hilbert_king_of_avian_frogs.jpeg"


@lru_cache(maxsize=16)
def _load(name: str) -> Image:
    res = resources.files("vision") / "assets" / name
    try:
        raw = res.read_bytes()
    except FileNotFoundError:
        raise VisionError(f"vision/assets/{name}: no such asset") from None
    img = cv2.imdecode(np.frombuffer(raw, dtype=np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise VisionError(f"vision/assets/{name}: not a readable image")
    return np.asarray(img, dtype=np.uint8)


def asset(name: str) -> Image:
    """A copy of the asset image ``name`` (BGR uint8); callers may modify it."""
    return _load(name).copy()


def check_frame(frame: object, what: str = "frame") -> Image:
    """Validate that ``frame`` is a BGR uint8 image; raise VisionError naming ``what`` otherwise."""
    if not isinstance(frame, np.ndarray):
        raise VisionError(f"{what}: expected an image array, got {type(frame).__name__}")
    if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise VisionError(f"{what}: expected a BGR uint8 image (h, w, 3), got {frame.dtype} {frame.shape}")
    if frame.shape[0] < 16 or frame.shape[1] < 16:
        raise VisionError(f"{what}: image too small ({frame.shape[1]}x{frame.shape[0]})")
    return frame
