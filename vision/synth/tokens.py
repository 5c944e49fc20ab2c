"""Drawing the 3D game pieces (capital, base camp, soul tokens) into a frame at their true height.

The token photos in the assets are side views of the printed pieces; seen from above each piece is a
prism or frustum in its owner's colour. Each piece is drawn as its side walls (the convex hull of its
projected bottom and top outlines, darker) and then its top face (a small sprite with the details seen
from above), so parallax and perspective come from the real camera model.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.warp import Image, Mat3, paste, rotate, scale, translate

SPRITE_PX_PER_MM = 10.0
Project = Callable[[NDArray[np.float64]], NDArray[np.float64]]
PlaneH = Callable[[float], Mat3]


@dataclass(frozen=True)
class PieceGeometry:
    """Footprint (square side or circle diameter, mm) at the bottom and top, and height (mm)."""

    shape: str  # "square" | "circle"
    bottom_mm: float
    top_mm: float
    height_mm: float


GEOMETRY: dict[str, PieceGeometry] = {
    "capital": PieceGeometry("square", 16.0, 16.0, 9.0),
    "basecamp": PieceGeometry("square", 13.0, 13.0, 4.0),
    "soul": PieceGeometry("circle", 13.0, 8.4, 11.0),
}


def _shade(colour: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(c * f, 0, 255)) for c in colour)  # type: ignore[return-value]


def _outline(shape: str, size: float, n: int = 24) -> NDArray[np.float64]:
    h = size / 2.0
    if shape == "square":
        return np.array([[-h, -h], [h, -h], [h, h], [-h, h]], dtype=np.float64)
    a = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    return np.column_stack([h * np.cos(a), h * np.sin(a)])


def top_sprite(kind: str, colour: tuple[int, int, int], flipped: bool = False) -> tuple[Image, NDArray[np.float32]]:
    """The top face of a piece as seen from above: BGR sprite and alpha, SPRITE_PX_PER_MM px per mm,
    centred on the piece's axis."""
    g = GEOMETRY[kind]
    top = g.bottom_mm if flipped else g.top_mm
    k = SPRITE_PX_PER_MM
    n = math.ceil(top * k) + 2
    img = np.zeros((n, n, 3), dtype=np.uint8)
    alpha = np.zeros((n, n), dtype=np.uint8)
    c = (n - 1) / 2.0

    def px(v: float) -> int:
        return round(v * k)

    ci = (round(c), round(c))
    if g.shape == "circle":
        cv2.circle(img, ci, px(top / 2), _shade(colour, 1.0), -1, cv2.LINE_AA)
        cv2.circle(alpha, ci, px(top / 2), 255, -1, cv2.LINE_AA)
        if flipped:  # the hollow underside of an upturned token
            cv2.circle(img, ci, px(top / 2 - 1.2), _shade(colour, 0.72), -1, cv2.LINE_AA)
            cv2.circle(img, ci, px(top / 2 - 2.6), _shade(colour, 0.9), -1, cv2.LINE_AA)
        else:  # the engraved sigil on the top
            cv2.ellipse(img, ci, (px(1.6), px(2.8)), 20, 0, 300, _shade(colour, 0.6), max(1, px(0.5)), cv2.LINE_AA)
        return img, alpha.astype(np.float32) / 255.0
    h = top / 2
    cv2.rectangle(img, (0, 0), (n - 1, n - 1), _shade(colour, 1.0), -1)
    alpha[:] = 255
    if kind == "capital":
        # gabled roof: one bright and one dark slope, then four corner towers with hollow tops
        cv2.rectangle(img, (px(c / k - 4.5), px(c / k - 3.5)), (px(c / k + 4.5), round(c)), _shade(colour, 1.2), -1)
        cv2.rectangle(img, (px(c / k - 4.5), round(c)), (px(c / k + 4.5), px(c / k + 3.5)), _shade(colour, 0.7), -1)
        for sx in (-1, 1):
            for sy in (-1, 1):
                p = (round(c + sx * (h - 2.6) * k), round(c + sy * (h - 2.6) * k))
                cv2.circle(img, p, px(2.4), _shade(colour, 1.15), -1, cv2.LINE_AA)
                cv2.circle(img, p, px(1.2), _shade(colour, 0.45), -1, cv2.LINE_AA)
    else:
        # base camp: a cube on one side, a small pyramid on the other
        cube = ((px(c / k + 0.5), px(c / k - 4.5)), (px(c / k + 5.0), px(c / k + 0.5)))
        cv2.rectangle(img, cube[0], cube[1], _shade(colour, 0.8), -1)
        tip = (px(c / k - 3.0), px(c / k + 2.5))
        base = [(px(c / k - 5.0), px(c / k + 0.5)), (px(c / k - 1.0), px(c / k + 0.5)),
                (px(c / k - 1.0), px(c / k + 4.5)), (px(c / k - 5.0), px(c / k + 4.5))]
        for i, f in enumerate((1.25, 0.85, 0.65, 1.05)):
            tri = np.array([base[i], base[(i + 1) % 4], tip], dtype=np.int32)
            cv2.fillConvexPoly(img, tri, _shade(colour, f), cv2.LINE_AA)
    return img, alpha.astype(np.float32) / 255.0


def draw_piece(
    frame: Image,
    project: Project,
    plane: PlaneH,
    kind: str,
    colour: tuple[int, int, int],
    centre: tuple[float, float, float],
    angle_deg: float,
    flipped: bool = False,
) -> float:
    """Draw one piece standing at world ``centre`` (x, y, z of its base); returns the z of its top."""
    g = GEOMETRY[kind]
    x, y, z = centre
    bottom, top = (g.top_mm, g.bottom_mm) if flipped else (g.bottom_mm, g.top_mm)
    rot = rotate(angle_deg)[:2, :2]
    lo = _outline(g.shape, bottom) @ rot.T + (x, y)
    hi = _outline(g.shape, top) @ rot.T + (x, y)
    z1 = z + g.height_mm
    pts = np.vstack([np.column_stack([lo, np.full(len(lo), z)]), np.column_stack([hi, np.full(len(hi), z1)])])
    img_pts = project(pts)
    hull = cv2.convexHull(np.round(img_pts * 16).astype(np.int32))
    cv2.fillConvexPoly(frame, hull, _shade(colour, 0.55), cv2.LINE_AA, shift=4)
    sprite, alpha = top_sprite(kind, colour, flipped)
    n = sprite.shape[0]
    H = plane(z1) @ translate(x, y) @ rotate(angle_deg) @ scale(1.0 / SPRITE_PX_PER_MM) @ translate(
        -(n - 1) / 2.0, -(n - 1) / 2.0)
    paste(frame, sprite, alpha, H)
    return z1


def draw_shadow(frame: Image, project: Project, kind: str, centre: tuple[float, float, float],
                offset_mm: tuple[float, float], strength: float) -> None:
    """A soft shadow cast by a piece onto the surface it stands on."""
    g = GEOMETRY[kind]
    x, y, z = centre
    out = _outline(g.shape, g.bottom_mm + 2.0) + np.array([x + offset_mm[0], y + offset_mm[1]])
    img_pts = project(np.column_stack([out, np.full(len(out), z)]))
    x0, y0 = np.floor(img_pts.min(0)).astype(int) - 6
    x1, y1 = np.ceil(img_pts.max(0)).astype(int) + 6
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), dtype=np.float32)
    cv2.fillConvexPoly(mask, np.round(img_pts - (x0, y0)).astype(np.int32), 1.0, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), 2.0)
    roi = frame[y0:y1, x0:x1]
    roi[:] = (roi * (1.0 - strength * mask[:, :, None])).astype(np.uint8)
