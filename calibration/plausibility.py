"""Is a pose physically a camera over a table? A pose fitted to a picture that holds no mat or map can have
a small reprojection error and still be nonsense (a camera 55 m away, a "mat" covering a tenth of a pixel
row). ``check_pose`` accepts a pose only when every check passes and otherwise raises a
``CalibrationError`` whose one line names the target and the check that failed, with the measured value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.errors import CalibrationError

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Limits:
    """What a plausible overhead view of one target looks like."""

    min_distance_mm: float
    max_distance_mm: float = 2500.0
    max_tilt_deg: float = 47.0  # 45 degrees supported, plus the uncertainty of the measurement
    min_share: float = 0.02  # of the frame's area covered by the target
    min_spread: float = 0.2  # of the visible target's area covered by the hull of the matched points
    max_reprojection_px: float = 2.5
    min_focal_share: float = 0.3  # focal length / image width (a 2.8 mm lens on a Pi HQ sensor is 0.45)


# The map alone (``--target map``, a picture of the map, not the table's camera) may be photographed from
# close (a 2.8 mm lens filling a third of the frame is ~0.2 m away, filling all of it ~0.1 m) or with a
# long lens from afar (the real top-down pictures are near-orthographic renders: a camera pinned at 2.5 m
# would add up to 3 px of stand parallax they do not have).
LIMITS = {"mat": Limits(min_distance_mm=300.0), "map": Limits(min_distance_mm=80.0, max_distance_mm=10000.0)}


def tilt_deg(pose: CameraPose, point_mm: FloatArray) -> float:
    """The angle between the line of sight to ``point_mm`` and the table's vertical."""
    c = pose.centre_world()
    v = c - np.asarray(point_mm, np.float64)
    return math.degrees(math.acos(min(1.0, abs(float(v[2])) / max(float(np.linalg.norm(v)), 1e-9))))


def _clipped_area(poly: FloatArray, size: tuple[int, int]) -> float:
    frame = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float32)
    hull = cv2.convexHull(poly.astype(np.float32))
    area, _ = cv2.intersectConvexConvex(hull, frame)
    return float(area)


def check_pose(pose: CameraPose, target: str, outline_mm: FloatArray, z_mm: float, image_points: FloatArray,
               reprojection_px: float) -> dict[str, float]:
    """Raise ``CalibrationError`` ("<target> pose: <check> ...") unless the pose is plausible; return the
    measured values (distance_mm, tilt_deg, share, spread) otherwise."""
    lim = LIMITS.get(target, LIMITS["mat"])
    w, h = pose.image_size
    what = f"{target} pose"
    outline = np.column_stack([outline_mm, np.full(len(outline_mm), z_mm)])
    centre = outline.mean(0)
    c = pose.centre_world()
    if c[2] <= z_mm:
        raise CalibrationError(f"{what}: the camera would be below the {target} (not a view of it from above)")
    distance = float(np.linalg.norm(c - centre))
    if not lim.min_distance_mm <= distance <= lim.max_distance_mm:
        raise CalibrationError(f"{what}: the camera would be {distance / 1000:.2f} m from the {target}, outside the "
                               f"plausible {lim.min_distance_mm / 1000:.2f}-{lim.max_distance_mm / 1000:.1f} m")
    tilt = tilt_deg(pose, centre)
    if tilt > lim.max_tilt_deg:
        raise CalibrationError(f"{what}: the view is tilted {tilt:.0f} degrees from vertical; at most 45 are "
                               "supported (mount the camera more directly above)")
    f_share = float(pose.K[0, 0]) / w
    if f_share < lim.min_focal_share:
        raise CalibrationError(f"{what}: focal length {pose.K[0, 0]:.0f} px is {f_share:.2f} of the image width, "
                               f"below the plausible {lim.min_focal_share}")
    if reprojection_px > lim.max_reprojection_px:
        raise CalibrationError(f"{what}: reprojection error {reprojection_px:.2f} px is above "
                               f"{lim.max_reprojection_px} px (the matches do not fit one camera)")
    poly = pose.project(outline)
    visible = _clipped_area(poly, (w, h))
    share = visible / float(w * h)
    if share < lim.min_share:
        raise CalibrationError(f"{what}: the {target} would cover {100 * share:.1f} % of the frame, below the "
                               f"plausible {100 * lim.min_share:.0f} %")
    hull = cv2.convexHull(np.asarray(image_points, np.float32))
    spread = float(cv2.contourArea(hull)) / max(visible, 1.0)
    if spread < lim.min_spread:
        raise CalibrationError(f"{what}: the matched points cover {100 * spread:.0f} % of the visible {target}, "
                               f"below {100 * lim.min_spread:.0f} % (too few of its features were recognised)")
    return {"distance_mm": distance, "tilt_deg": tilt, "share": share, "spread": spread}
