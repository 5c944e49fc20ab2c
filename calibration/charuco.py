"""Camera intrinsics from a ChArUco board: the printable board, and calibration from photos of it.

Print ``board_image()`` at 100 % scale (A4 landscape fits the default 7 x 5 board of 30 mm squares),
stick it to something flat, and photograph it ten or more times from different angles filling much of
the view. ``calibrate_intrinsics`` then gives K and the distortion coefficients.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import CalibrationError

DICTIONARY = cv2.aruco.DICT_5X5_100
SQUARES = (7, 5)
SQUARE_MM = 30.0
MARKER_MM = 22.0


def board() -> cv2.aruco.CharucoBoard:
    """The project's ChArUco board (7 x 5 squares of 30 mm, 5x5 ArUco markers of 22 mm)."""
    return cv2.aruco.CharucoBoard(SQUARES, SQUARE_MM, MARKER_MM, cv2.aruco.getPredefinedDictionary(DICTIONARY))


def board_image(dpi: float = 300.0, margin_mm: float = 10.0) -> NDArray[np.uint8]:
    """The board as a printable greyscale image at ``dpi`` (print it without scaling)."""
    px_per_mm = dpi / 25.4
    w = round((SQUARES[0] * SQUARE_MM + 2 * margin_mm) * px_per_mm)
    h = round((SQUARES[1] * SQUARE_MM + 2 * margin_mm) * px_per_mm)
    img = board().generateImage((w, h), marginSize=round(margin_mm * px_per_mm), borderBits=1)
    return np.asarray(img, dtype=np.uint8)


@dataclass(frozen=True)
class Intrinsics:
    K: NDArray[np.float64]
    dist: NDArray[np.float64]
    image_size: tuple[int, int]
    rms_px: float
    views: int


def detect(image: NDArray[np.uint8]) -> tuple[NDArray[np.float32], NDArray[np.float32]] | None:
    """Object points (mm, z = 0) and image points of the board's inner corners found in ``image``."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    b = board()
    corners, ids, _, _ = cv2.aruco.CharucoDetector(b).detectBoard(gray)
    if corners is None or ids is None or len(ids) < 6:
        return None
    obj, img = b.matchImagePoints(list(corners), ids)
    return np.asarray(obj, np.float32).reshape(-1, 3), np.asarray(img, np.float32).reshape(-1, 2)


def calibrate_intrinsics(images: Sequence[NDArray[np.uint8]], min_views: int = 4) -> Intrinsics:
    """K and distortion from several photos of the board (all of the same size)."""
    if not images:
        raise CalibrationError("intrinsics: no images")
    size = (images[0].shape[1], images[0].shape[0])
    objs: list[NDArray[np.float32]] = []
    imgs: list[NDArray[np.float32]] = []
    for i, im in enumerate(images):
        if (im.shape[1], im.shape[0]) != size:
            raise CalibrationError(
                f"intrinsics: image {i} is {im.shape[1]}x{im.shape[0]}, expected {size[0]}x{size[1]}")
        found = detect(im)
        if found is not None:
            objs.append(found[0])
            imgs.append(found[1])
    if len(objs) < min_views:
        raise CalibrationError(f"intrinsics: the board was found in {len(objs)} of {len(images)} images; "
                               f"need at least {min_views}")
    flags = cv2.CALIB_FIX_K3 | cv2.CALIB_ZERO_TANGENT_DIST
    rms, K, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None, flags=flags)
    return Intrinsics(np.asarray(K, np.float64), np.asarray(dist, np.float64).reshape(-1), size, float(rms),
                      len(objs))
