"""Calibrating from one still frame, and the start-up re-check that the camera and mat have not moved."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.calfile import Calibration
from calibration.camera import CameraPose
from calibration.errors import CalibrationError
from calibration.layout import TableLayout
from calibration.mat_pose import Artwork, PoseEstimate, estimate_pose
from calibration.overlay import stand_outline_world
from calibration.plausibility import check_pose
from calibration.stickers import estimate_pose_stickers


def mat_artwork(layout: TableLayout, mat_image: NDArray[np.uint8]) -> Artwork:
    """The printed mat as a reference design (its image covers the whole mat)."""
    sx = layout.mat_size_mm[0] / mat_image.shape[1]
    sy = layout.mat_size_mm[1] / mat_image.shape[0]
    return Artwork(mat_image, np.diag([sx, sy, 1.0]), name="mat")


def map_artwork(layout: TableLayout, texture: NDArray[np.uint8], board_px: NDArray[np.floating],
                surface_z_mm: float) -> Artwork:
    """The map's top texture as a 3D reference: ``board_px`` are the board's corners in the texture
    (top-left, top-right, bottom-right, bottom-left); pixels inside a stand's top outline are at the
    stand's height, the rest at the surface height."""
    w, h = layout.map_size_mm
    square = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) + np.asarray(layout.map_origin_mm)
    src = np.asarray(board_px, np.float32).reshape(4, 2)
    px_to_mm = np.asarray(cv2.getPerspectiveTransform(src, square.astype(np.float32)), np.float64)
    heights = np.full(texture.shape[:2], surface_z_mm, np.float32)
    mm_to_px = np.linalg.inv(px_to_mm)
    for s in sorted(layout.stands, key=lambda s: s.pos_mm[2]):
        outline = stand_outline_world(layout, s.id)[:, :2]
        p = np.column_stack([outline, np.ones(len(outline))]) @ mm_to_px.T
        poly = np.round(p[:, :2] / p[:, 2:] * 16).astype(np.int32)
        cv2.fillPoly(heights, [poly], float(s.pos_mm[2]), cv2.LINE_8, shift=4)
    return Artwork(texture, px_to_mm, surface_z_mm, heights, "map", square)


def check_points(layout: TableLayout) -> NDArray[np.float64]:
    """The points whose image position matters: every stand top and every slot corner (world mm)."""
    pts = [layout.stand_world(s.id) for s in layout.stands]
    for s in layout.slots:
        x0, y0, x1, y1 = s.rect_mm
        pts += [(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]
    return np.asarray(pts, dtype=np.float64)


def calibrate_frame(frame: NDArray[np.uint8], layout: TableLayout, art: Artwork | list[Artwork],
                    K: NDArray[np.float64] | None = None, dist: NDArray[np.float64] | None = None,
                    stickers: bool | None = None) -> Calibration:
    """The pose from the artwork (a list: the first design, then others that add points when found, e.g.
    the map on the mat); with ``stickers=True`` from the corner stickers only; with None (the default) the
    artwork first and the stickers when the artwork cannot be matched. Without ``K`` the intrinsics are
    fitted with the pose. The pose must pass ``check_pose``; an OpenCV failure becomes a
    ``CalibrationError``."""
    designs = [art] if isinstance(art, Artwork) else list(art)
    target = designs[0].name
    est: PoseEstimate | None = None
    problems: list[str] = []
    if stickers is not True:
        try:
            est = estimate_pose(frame, designs, K, dist)
            check_pose(est.pose, target, designs[0].outline(), designs[0].z_mm, est.image_points,
                       est.reprojection_error_px)
        except CalibrationError as exc:
            est = None
            problems.append(str(exc))
        except cv2.error as exc:
            est = None
            problems.append(f"{target} pose: OpenCV could not compute a pose ({exc.err})")
    if est is None and stickers is not False:
        try:
            est = estimate_pose_stickers(frame, layout.mat_size_mm, K, dist)
            mat = np.array([[0, 0], [layout.mat_size_mm[0], 0], list(layout.mat_size_mm), [0, layout.mat_size_mm[1]]],
                           np.float64)
            check_pose(est.pose, "mat", mat, 0.0, est.image_points, est.reprojection_error_px)
        except CalibrationError as exc:
            est = None
            problems.append(str(exc))
        except cv2.error as exc:
            est = None
            problems.append(f"stickers: OpenCV could not compute a pose ({exc.err})")
    if est is None:
        raise CalibrationError("; ".join(problems))
    return Calibration(est.pose, est.method, est.reprojection_error_px, est.inliers, est.intrinsics,
                       {k: v for k, v in est.std.items()})


def drift_px(a: CameraPose, b: CameraPose, layout: TableLayout) -> float:
    """The largest distance (px) between where ``a`` and ``b`` put the stands and slot corners."""
    pts = check_points(layout)
    return float(np.linalg.norm(a.project(pts) - b.project(pts), axis=1).max())


def check_calibration(frame: NDArray[np.uint8], calibration: Calibration, layout: TableLayout,
                      art: Artwork | list[Artwork]) -> float:
    """How far (px) the stands and slots have moved in ``frame`` since ``calibration``: re-estimates the
    pose with the stored intrinsics and compares. Above a few pixels, recalibrate from this frame."""
    p = calibration.pose
    if (frame.shape[1], frame.shape[0]) != p.image_size:
        raise CalibrationError(f"check: frame is {frame.shape[1]}x{frame.shape[0]}, calibration is for "
                               f"{p.image_size[0]}x{p.image_size[1]}")
    now = calibrate_frame(frame, layout, art, p.K, p.dist,
                          stickers=True if calibration.method == "stickers" else None)
    return drift_px(p, now.pose, layout)
