"""Warping small planar patches into or out of a frame without touching the whole image.

Both directions work on the bounding box of the patch only, which is what keeps the renderer and the
reader cheap at 2028 x 1520.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
Mat3 = NDArray[np.float64]


def translate(dx: float, dy: float) -> Mat3:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def scale(sx: float, sy: float | None = None) -> Mat3:
    return np.array([[sx, 0.0, 0.0], [0.0, sx if sy is None else sy, 0.0], [0.0, 0.0, 1.0]])


def rotate(deg: float) -> Mat3:
    a = np.radians(deg)
    c, s = float(np.cos(a)), float(np.sin(a))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def apply(H: Mat3, pts: NDArray[np.floating]) -> NDArray[np.float64]:
    """Apply homography H to (N, 2) points."""
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ H.T
    return np.asarray(q[:, :2] / q[:, 2:3], dtype=np.float64)


def bbox(pts: NDArray[np.floating], shape: tuple[int, ...], margin: int = 2) -> tuple[int, int, int, int] | None:
    """Integer (x0, y0, x1, y1) box around ``pts`` clipped to an image of ``shape``; None if outside."""
    x0 = max(int(np.floor(pts[:, 0].min())) - margin, 0)
    y0 = max(int(np.floor(pts[:, 1].min())) - margin, 0)
    x1 = min(int(np.ceil(pts[:, 0].max())) + margin + 1, shape[1])
    y1 = min(int(np.ceil(pts[:, 1].max())) + margin + 1, shape[0])
    if x1 <= x0 or y1 <= y0:
        return None
    return (x0, y0, x1, y1)


def paste(dst: Image, src: Image, alpha: NDArray[np.float32], H: Mat3) -> None:
    """Blend ``src`` (with per-pixel ``alpha`` in 0..1) into ``dst`` through homography H (src px -> dst px)."""
    h, w = src.shape[:2]
    corners = apply(H, np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))
    box = bbox(corners, dst.shape)
    if box is None:
        return
    x0, y0, x1, y1 = box
    Hb = translate(-x0, -y0) @ H
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(src, Hb, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpPerspective(alpha, Hb, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    roi = dst[y0:y1, x0:x1]
    if warped.ndim == 2:
        warped = warped[:, :, None]
    a3 = a[:, :, None]
    roi[:] = np.clip(roi * (1.0 - a3) + warped * a3, 0, 255).astype(np.uint8)


def extract(frame: Image, H: Mat3, size: tuple[int, int]) -> Image:
    """The patch of ``size`` (w, h) whose pixel (u, v) is frame pixel H @ (u, v): rectify a region."""
    w, h = size
    corners = apply(H, np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))
    box = bbox(corners, frame.shape, margin=3)
    if box is None:
        return np.zeros((h, w, 3), dtype=np.uint8)
    x0, y0, x1, y1 = box
    Hb = translate(-x0, -y0) @ H
    roi = frame[y0:y1, x0:x1]
    out = cv2.warpPerspective(roi, Hb, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8)
