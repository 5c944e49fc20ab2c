"""The fallback for plain mats: four small ArUco stickers at the mat's corners with known positions.

Print ``sticker_image(i)`` for i in 0..3 at ``STICKER_MM`` wide and stick marker i with its centre
``INSET_MM`` from the corners, clockwise from the top-left corner (the edge beyond slots 6/5/4 is the top).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import intrinsics
from calibration.errors import CalibrationError
from calibration.mat_pose import PoseEstimate, solve_pose

DICTIONARY = cv2.aruco.DICT_4X4_50
STICKER_MM = 40.0
INSET_MM = 30.0


def dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def sticker_image(marker_id: int, px: int = 400) -> NDArray[np.uint8]:
    """Marker ``marker_id`` (0..3) with a white border of one module, ``px`` wide."""
    inner = round(px * 6 / 8)
    m = cv2.aruco.generateImageMarker(dictionary(), marker_id, inner)
    pad = (px - inner) // 2
    return np.asarray(cv2.copyMakeBorder(m, pad, px - inner - pad, pad, px - inner - pad, cv2.BORDER_CONSTANT,
                                         value=255), np.uint8)


def sticker_centres(mat_size_mm: tuple[float, float]) -> dict[int, tuple[float, float]]:
    w, h = mat_size_mm
    i = INSET_MM
    return {0: (i, i), 1: (w - i, i), 2: (w - i, h - i), 3: (i, h - i)}


def sticker_corners(mat_size_mm: tuple[float, float]) -> dict[int, NDArray[np.float64]]:
    """World (x, y, 0) of each marker's four corners, in ArUco's order (clockwise from top-left).

    The black square is 6/8 of the sticker (the rest is its white border)."""
    half = STICKER_MM * 6 / 8 / 2
    out: dict[int, NDArray[np.float64]] = {}
    for mid, (x, y) in sticker_centres(mat_size_mm).items():
        out[mid] = np.array([[x - half, y - half, 0], [x + half, y - half, 0], [x + half, y + half, 0],
                             [x - half, y + half, 0]], dtype=np.float64)
    return out


def estimate_pose_stickers(frame: NDArray[np.uint8], mat_size_mm: tuple[float, float],
                           K: NDArray[np.float64] | None = None,
                           dist: NDArray[np.float64] | None = None) -> PoseEstimate:
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary()).detectMarkers(gray)
    known = sticker_corners(mat_size_mm)
    world: list[NDArray[np.float64]] = []
    image: list[NDArray[np.float64]] = []
    for c, i in zip(corners, [] if ids is None else ids.ravel(), strict=False):
        if int(i) in known:
            world.append(known[int(i)])
            image.append(np.asarray(c, np.float64).reshape(4, 2))
    if len(world) < 2:
        raise CalibrationError(f"stickers: found {len(world)} of the 4 corner stickers; need at least 2")
    size = (frame.shape[1], frame.shape[0])
    return solve_pose(np.vstack(world), np.vstack(image), intrinsics(size) if K is None else K,
                      np.zeros(5) if dist is None else dist, size, "stickers")
