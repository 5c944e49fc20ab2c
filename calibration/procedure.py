"""Calibrating from one still frame, and the start-up re-check that the camera and mat have not moved."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.calfile import Calibration
from calibration.camera import CameraPose
from calibration.errors import CalibrationError
from calibration.layout import TableLayout
from calibration.mat_pose import Artwork, PoseEstimate, estimate_pose
from calibration.stickers import estimate_pose_stickers


def mat_artwork(layout: TableLayout, mat_image: NDArray[np.uint8]) -> Artwork:
    """The printed mat as a reference design (its image covers the whole mat)."""
    sx = layout.mat_size_mm[0] / mat_image.shape[1]
    sy = layout.mat_size_mm[1] / mat_image.shape[0]
    return Artwork(mat_image, np.diag([sx, sy, 1.0]))


def check_points(layout: TableLayout) -> NDArray[np.float64]:
    """The points whose image position matters: every stand top and every slot corner (world mm)."""
    pts = [layout.stand_world(s.id) for s in layout.stands]
    for s in layout.slots:
        x0, y0, x1, y1 = s.rect_mm
        pts += [(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]
    return np.asarray(pts, dtype=np.float64)


def calibrate_frame(frame: NDArray[np.uint8], layout: TableLayout, art: Artwork, K: NDArray[np.float64] | None = None,
                    dist: NDArray[np.float64] | None = None, stickers: bool | None = None) -> Calibration:
    """The pose from the mat artwork; with ``stickers=True`` from the corner stickers only; with None (the
    default) the artwork first and the stickers when the artwork cannot be matched."""
    est: PoseEstimate | None = None
    problems: list[str] = []
    if stickers is not True:
        try:
            est = estimate_pose(frame, art, K, dist)
        except CalibrationError as exc:
            problems.append(str(exc))
    if est is None and stickers is not False:
        try:
            est = estimate_pose_stickers(frame, layout.mat_size_mm, K, dist)
        except CalibrationError as exc:
            problems.append(str(exc))
    if est is None:
        raise CalibrationError("; ".join(problems))
    return Calibration(est.pose, est.method, est.reprojection_error_px, est.inliers)


def drift_px(a: CameraPose, b: CameraPose, layout: TableLayout) -> float:
    """The largest distance (px) between where ``a`` and ``b`` put the stands and slot corners."""
    pts = check_points(layout)
    return float(np.linalg.norm(a.project(pts) - b.project(pts), axis=1).max())


def check_calibration(frame: NDArray[np.uint8], calibration: Calibration, layout: TableLayout,
                      art: Artwork) -> float:
    """How far (px) the stands and slots have moved in ``frame`` since ``calibration``: re-estimates the
    pose with the stored intrinsics and compares. Above a few pixels, recalibrate from this frame."""
    p = calibration.pose
    if (frame.shape[1], frame.shape[0]) != p.image_size:
        raise CalibrationError(f"check: frame is {frame.shape[1]}x{frame.shape[0]}, calibration is for "
                               f"{p.image_size[0]}x{p.image_size[1]}")
    now = calibrate_frame(frame, layout, art, p.K, p.dist,
                          stickers=True if calibration.method == "stickers" else None)
    return drift_px(p, now.pose, layout)
