"""A pinhole camera looking at the table, and the projection of world points (mm) to pixels.

World points are in the mat frame with z up (see ``calibration.layout``). That frame is left-handed
(x right, y down, z up), so internally z is negated before OpenCV sees it: ``rvec``/``tvec`` describe the
right-handed frame (x, y, -z) in which a camera looking straight down has the identity rotation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.layout import TableLayout

FloatArray = NDArray[np.float64]

# Raspberry Pi HQ camera, 2x2 binned mode (2028 x 1520, 3.1 um pixels) behind a 6 mm lens.
HQ_BINNED_PIXEL_MM = 0.00310
DEFAULT_LENS_MM = 6.0


def to_cv(world_mm: NDArray[np.floating] | list[list[float]]) -> FloatArray:
    """World points (N, 3) with z up -> OpenCV's right-handed object frame (z into the table)."""
    pts = np.asarray(world_mm, dtype=np.float64).reshape(-1, 3).copy()
    pts[:, 2] = -pts[:, 2]
    return pts


@dataclass(frozen=True)
class CameraPose:
    """Intrinsics (K, dist) and extrinsics (rvec, tvec) of one camera; ``image_size`` is (w, h)."""

    K: FloatArray
    dist: FloatArray
    rvec: FloatArray
    tvec: FloatArray
    image_size: tuple[int, int]

    def project(self, world_mm: NDArray[np.floating] | list[list[float]]) -> FloatArray:
        """(N, 3) world points in mm, z up -> (N, 2) pixel coordinates."""
        pts = to_cv(world_mm)
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return np.asarray(px, dtype=np.float64).reshape(-1, 2)

    def plane_homography(self, z_mm: float) -> FloatArray:
        """3x3 homography from (x, y) mm on the horizontal plane at height ``z_mm`` to pixels.

        Exact for an undistorted camera; with lens distortion it is the best fit over the plane's
        projections of a grid covering the image, good for regions of a few centimetres.
        """
        R, _ = cv2.Rodrigues(self.rvec)
        t = self.tvec.reshape(3)
        if not np.any(self.dist):
            zc = -z_mm
            M = np.column_stack([R[:, 0], R[:, 1], R[:, 2] * zc + t])
            H = self.K @ M
            return np.asarray(H / H[2, 2], dtype=np.float64)
        xs = np.linspace(-200.0, 1200.0, 15)
        grid = np.array([[x, y, z_mm] for x in xs for y in xs])
        img = self.project(grid)
        found, _ = cv2.findHomography(grid[:, :2], img, 0)
        return np.asarray(found, dtype=np.float64)

    def scaled(self, image_size: tuple[int, int]) -> CameraPose:
        """The same camera at another resolution (binning / resizing)."""
        sx = image_size[0] / self.image_size[0]
        sy = image_size[1] / self.image_size[1]
        K = self.K.copy()
        K[0, :] *= sx
        K[1, :] *= sy
        return CameraPose(K, self.dist.copy(), self.rvec.copy(), self.tvec.copy(), image_size)

    def centre_world(self) -> FloatArray:
        """The camera's optical centre in world mm (z up)."""
        R, _ = cv2.Rodrigues(self.rvec)
        c = -R.T @ self.tvec.reshape(3)
        return np.array([c[0], c[1], -c[2]])


def intrinsics(image_size: tuple[int, int], lens_mm: float = DEFAULT_LENS_MM) -> FloatArray:
    """A Pi HQ camera's K at ``image_size`` (scaled from the binned 2028-px-wide mode)."""
    w, h = image_size
    f = lens_mm / HQ_BINNED_PIXEL_MM * (w / 2028.0)
    return np.array([[f, 0.0, w / 2.0], [0.0, f, h / 2.0], [0.0, 0.0, 1.0]])


def look_at(position_cv: FloatArray, target_cv: FloatArray, yaw_deg: float) -> tuple[FloatArray, FloatArray]:
    """rvec, tvec of a camera at ``position_cv`` looking at ``target_cv`` (OpenCV frame), image top towards
    -y, then rolled by ``yaw_deg`` about its optical axis."""
    z = target_cv - position_cv
    z = z / np.linalg.norm(z)
    y = np.array([0.0, 1.0, 0.0]) - z * z[1]
    y = y / np.linalg.norm(y)
    x = np.cross(y, z)
    R = np.vstack([x, y, z])
    a = math.radians(yaw_deg)
    roll = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    R = roll @ R
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ position_cv
    return np.asarray(rvec, dtype=np.float64).reshape(3, 1), tvec.reshape(3, 1)


def default_pose(
    layout: TableLayout,
    image_size: tuple[int, int] = (2028, 1520),
    height_mm: float = 1000.0,
    yaw_deg: float = 0.0,
    tilt_deg: float = 0.0,
    offset_mm: tuple[float, float] = (0.0, 0.0),
) -> CameraPose:
    """A camera ``height_mm`` above the mat looking at the mat centre.

    ``offset_mm`` shifts the point straight below the camera; ``tilt_deg`` moves the camera towards the
    mat's bottom edge (the players' side) along a circle so that it still looks at the centre from that
    angle off vertical; ``yaw_deg`` rolls the image about the optical axis.
    """
    cx, cy = layout.mat_size_mm[0] / 2.0, layout.mat_size_mm[1] / 2.0
    t = math.radians(tilt_deg)
    pos = np.array([cx + offset_mm[0], cy + offset_mm[1] + height_mm * math.tan(t), -height_mm])
    rvec, tvec = look_at(pos, np.array([cx, cy, 0.0]), yaw_deg)
    return CameraPose(intrinsics(image_size), np.zeros(5), rvec, tvec, image_size)
