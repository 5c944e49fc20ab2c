"""Seeded warps of the real top-down map picture into a new camera's frame, with a known truth.

For testing calibration on pictures that are not the project's own renderer: the real picture
(``map_top.jpeg``, a near-orthographic view) is lifted into 3D (its surface at the map's surface height,
each stand's top cut out and raised to the stand's height, the stand's side in its darkened colour below)
and seen by any pinhole camera; then the camera's imperfections are applied (exposure, white balance,
blur, sensor noise, JPEG). The truth is where that camera puts every stand top.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose, look_at
from calibration.layout import TableLayout
from calibration.overlay import stand_outline_world
from vision.warp import Image, apply, paste, translate

HQ_PIXEL_MM = 0.00310  # Pi HQ camera, 2x2 binned: 2028 x 1520


@dataclass(frozen=True)
class Effects:
    """Camera imperfections: exposure gain, white-balance gains (B, G, R), blur sigma (px), noise sigma
    (grey levels) and JPEG quality (0: none)."""

    exposure: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    blur: float = 0.0
    noise: float = 0.0
    jpeg: int = 0


def map_pose(layout: TableLayout, lens_mm: float, tilt_deg: float, roll_deg: float, azimuth_deg: float,
             fill: float, shift: tuple[float, float] = (0.0, 0.0),
             size: tuple[int, int] = (2028, 1520)) -> CameraPose:
    """A Pi HQ camera with a ``lens_mm`` lens looking at the map's centre (moved by ``shift`` mm) from
    ``tilt_deg`` off vertical, from the direction ``azimuth_deg``, rolled by ``roll_deg``, at the distance
    where the map spans ``fill`` of the frame's height."""
    f = lens_mm / HQ_PIXEL_MM * size[0] / 2028.0
    K = np.array([[f, 0.0, size[0] / 2.0], [0.0, f, size[1] / 2.0], [0.0, 0.0, 1.0]])
    ox, oy = layout.map_origin_mm
    mw, mh = layout.map_size_mm
    target = np.array([ox + mw / 2 + shift[0], oy + mh / 2 + shift[1], 0.0])
    dist = f * mh / (fill * size[1])
    t, a = math.radians(tilt_deg), math.radians(azimuth_deg)
    pos = target + dist * np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), -math.cos(t)])
    rvec, tvec = look_at(pos, target, roll_deg)
    return CameraPose(K, np.zeros(5), rvec, tvec, size)


def _plane(pose: CameraPose, layout: TableLayout, z_mm: float) -> NDArray[np.float64]:
    return pose.plane_homography(z_mm)


def warp_map_photo(photo: Image, board_px: NDArray[np.floating], layout: TableLayout, pose: CameraPose,
                   surface_z_mm: float, seed: int, effects: Effects = Effects()) -> Image:
    """``photo`` (with the board's corners at ``board_px``) as seen by ``pose``, over a plain table."""
    rng = np.random.default_rng(seed)
    w, h = pose.image_size
    frame = np.empty((h, w, 3), np.uint8)
    frame[:] = rng.integers(60, 200, 3)
    mw, mh = layout.map_size_mm
    square = np.array([[0, 0], [mw, 0], [mw, mh], [0, mh]], np.float64) + np.asarray(layout.map_origin_mm)
    px_to_mm = np.asarray(cv2.getPerspectiveTransform(np.asarray(board_px, np.float32).reshape(4, 2),
                                                      square.astype(np.float32)), np.float64)
    rim = square + np.array([[-3, -3], [3, -3], [3, 3], [-3, 3]])
    plate = np.vstack([np.column_stack([rim, np.zeros(4)]), np.column_stack([rim, np.full(4, surface_z_mm)])])
    cv2.fillConvexPoly(frame, cv2.convexHull(np.round(pose.project(plate)).astype(np.int32)), (45, 45, 48),
                       cv2.LINE_AA)
    mm_to_px = np.asarray(np.linalg.inv(px_to_mm), np.float64)
    tex_rim = apply(mm_to_px, rim)
    x0, y0 = np.maximum(np.floor(tex_rim.min(0)).astype(int), 0)
    x1, y1 = np.ceil(tex_rim.max(0)).astype(int)
    crop = np.ascontiguousarray(photo[y0:y1, x0:x1])
    paste(frame, crop, np.ones(crop.shape[:2], np.float32), _plane(pose, layout, surface_z_mm) @ px_to_mm @
          translate(float(x0), float(y0)))
    centre = pose.centre_world()
    order = sorted(layout.stands, key=lambda s: -float(np.linalg.norm(np.asarray(layout.stand_world(s.id)) - centre)))
    for s in order:
        top = stand_outline_world(layout, s.id)
        base = top.copy()
        base[:, 2] = surface_z_mm
        tex_pts = apply(mm_to_px, top[:, :2])
        sx0, sy0 = np.maximum(np.floor(tex_pts.min(0)).astype(int) - 2, 0)
        sx1, sy1 = np.ceil(tex_pts.max(0)).astype(int) + 2
        piece = np.ascontiguousarray(photo[sy0:sy1, sx0:sx1])
        if piece.size == 0:
            continue
        side = tuple(int(c * 0.6) for c in piece.reshape(-1, 3).mean(0))
        hull = cv2.convexHull(np.round(pose.project(np.vstack([base, top])) * 16).astype(np.int32))
        cv2.fillConvexPoly(frame, hull, side, cv2.LINE_AA, shift=4)
        alpha = np.zeros(piece.shape[:2], np.float32)
        cv2.fillPoly(alpha, [np.round((tex_pts - (sx0, sy0)) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
        paste(frame, piece, alpha, _plane(pose, layout, float(top[0, 2])) @ px_to_mm @
              translate(float(sx0), float(sy0)))
    return camera_effects(frame, rng, effects)


def camera_effects(frame: Image, rng: np.random.Generator, e: Effects) -> Image:
    out = np.asarray(frame.astype(np.float32) * e.exposure * np.asarray(e.white_balance, np.float32), np.float32)
    if e.blur > 0:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), e.blur), np.float32)
    if e.noise > 0:
        out = out + rng.normal(0.0, e.noise, out.shape).astype(np.float32)
    img = np.asarray(np.clip(out, 0, 255), np.uint8)
    if e.jpeg:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, e.jpeg])
        if ok:
            img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return img


def random_effects(rng: np.random.Generator) -> Effects:
    """Light, white balance, blur, noise and JPEG drawn from the ranges the tests and the bench cover."""
    return Effects(exposure=float(rng.uniform(0.6, 1.4)),
                   white_balance=(float(rng.uniform(0.8, 1.2)), 1.0, float(rng.uniform(0.8, 1.2))),
                   blur=float(rng.uniform(0.0, 1.5)), noise=float(rng.uniform(0.0, 6.0)),
                   jpeg=int(rng.integers(60, 96)))
