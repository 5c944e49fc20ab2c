"""Things on a real table that are not game pieces: a phone, a die, a cup, a card box, crumbs of paper.

Each is drawn at its true height with the camera model (side walls, then the top face), and marks the
pixels it covers in the occlusion mask, so the bench knows which stands and slots it hides.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.warp import Image

Project = Callable[[NDArray[np.float64]], NDArray[np.float64]]
CLUTTER_KINDS = ("phone", "die", "cup", "cardbox", "paper")


@dataclass(frozen=True)
class Clutter:
    """A foreign object: its kind and where it lies (world x, y in mm, z of the surface under it)."""

    kind: str
    at_mm: tuple[float, float, float]
    # a die's colour when it is a player's (issue 21: 3D-printed in the player's colour, its marks recessed,
    # so shadowed in that colour, not painted in another, as the real d6/d20 photos show); None: a random
    # colour with contrasting pips
    colour: tuple[int, int, int] | None = None
    # a die's edge (mm) and faces (6: a cube; 20: an icosahedron resting on a face, seen as a hexagon);
    # None: an edge of 14-20 mm drawn from the scene's seed
    side_mm: float | None = None
    faces: int = 6


def _prism(frame: Image, mask: NDArray[np.uint8], project: Project, outline: NDArray[np.float64], z0: float,
           z1: float, side: tuple[int, int, int], top: tuple[int, int, int]) -> NDArray[np.float64]:
    """Side walls then the top face of an extruded outline; returns the top face in pixels."""
    lo = project(np.column_stack([outline, np.full(len(outline), z0)]))
    hi = project(np.column_stack([outline, np.full(len(outline), z1)]))
    hull = cv2.convexHull(np.round(np.vstack([lo, hi]) * 16).astype(np.int32))
    cv2.fillConvexPoly(frame, hull, side, cv2.LINE_AA, shift=4)
    cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_8, shift=4)
    cv2.fillPoly(frame, [np.round(hi * 16).astype(np.int32)], top, cv2.LINE_AA, shift=4)
    return hi


def _rect(w: float, h: float, x: float, y: float, ang: float) -> NDArray[np.float64]:
    c, s = math.cos(ang), math.sin(ang)
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return np.asarray(pts @ np.array([[c, s], [-s, c]]) + (x, y), dtype=np.float64)


def _colour(rng: np.random.Generator, lo: int = 20, hi: int = 235) -> tuple[int, int, int]:
    return (int(rng.integers(lo, hi)), int(rng.integers(lo, hi)), int(rng.integers(lo, hi)))


def _d20(frame: Image, mask: NDArray[np.uint8], project: Project, at: tuple[float, float, float], across: float,
         ang: float, colour: tuple[int, int, int]) -> None:
    """An icosahedron ``across`` mm wide resting on a face, from above: a hexagon whose centre triangle (the
    top face, full colour, its numeral recessed) is flanked by darker, steeper faces."""
    x, y, z = at
    a = ang + np.arange(6) * math.pi / 3
    hexagon = np.column_stack([x + across / 2 * np.cos(a), y + across / 2 * np.sin(a)])
    top = _prism(frame, mask, project, hexagon, z, z + 0.8 * across, _dim(colour, 0.55), _dim(colour, 0.75))
    centre = top.mean(0)
    tri = centre + (top[0::2] - centre) * 0.62
    cv2.fillPoly(frame, [np.round(tri * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)
    r = max(2, round(float(np.linalg.norm(top[0] - centre)) * 0.12))
    cv2.circle(frame, (round(centre[0]), round(centre[1])), r, _dim(colour, 0.45), -1, cv2.LINE_AA)


def draw_clutter(frame: Image, mask: NDArray[np.uint8], project: Project, item: Clutter,
                 rng: np.random.Generator) -> None:
    """Draw ``item`` into ``frame`` and mark what it covers in ``mask`` (255)."""
    x, y, z = item.at_mm
    ang = rng.uniform(0, math.pi)
    if item.kind == "phone":
        body = _rect(72.0, 150.0, x, y, ang)
        top = _prism(frame, mask, project, body, z, z + 8.0, (25, 25, 28), (18, 18, 22))
        shine = np.array([top[0], top[1], top[1] * 0.6 + top[2] * 0.4])
        cv2.fillPoly(frame, [np.round(shine * 16).astype(np.int32)], (62, 62, 68), cv2.LINE_AA, shift=4)
    elif item.kind == "die":
        side = float(rng.uniform(14.0, 20.0))
        if item.side_mm is not None:
            side = item.side_mm
        die = _colour(rng, 30, 250)  # drawn for a player's die too, so the seed's later draws stay the same
        if item.colour is not None:
            die = item.colour
        if item.faces == 20:
            _d20(frame, mask, project, (x, y, z), side, ang, die)
            return
        top = _prism(frame, mask, project, _rect(side, side, x, y, ang), z, z + side,
                     _dim(die, 0.6), die)
        centre = top.mean(0)
        pip = (20, 20, 20) if sum(die) > 300 else (235, 235, 235)
        if item.colour is not None:
            pip = _dim(die, 0.45)
        for k in range(int(rng.integers(1, 7))):
            p = centre + (top[k % 4] - centre) * 0.5 if k else centre
            cv2.circle(frame, (round(p[0]), round(p[1])), max(2, round(side * 0.08 * _scale(top, side))), pip, -1,
                       cv2.LINE_AA)
    elif item.kind == "cup":
        a = np.linspace(0, 2 * np.pi, 40, endpoint=False)
        r = float(rng.uniform(36.0, 45.0))
        ring = np.column_stack([x + r * np.cos(a), y + r * np.sin(a)])
        cup = _colour(rng, 60, 250)
        top = _prism(frame, mask, project, ring, z, z + 95.0, _dim(cup, 0.7), cup)
        inner = top.mean(0) + (top - top.mean(0)) * 0.86
        cv2.fillPoly(frame, [np.round(inner * 16).astype(np.int32)], (20, 40, 60), cv2.LINE_AA, shift=4)
    elif item.kind == "cardbox":
        box = _colour(rng)
        top = _prism(frame, mask, project, _rect(70.0, 98.0, x, y, ang), z, z + 30.0, _dim(box, 0.6), box)
        label = top.mean(0) + (top - top.mean(0)) * 0.5
        cv2.fillPoly(frame, [np.round(label * 16).astype(np.int32)], _colour(rng), cv2.LINE_AA, shift=4)
    elif item.kind == "paper":
        for _ in range(int(rng.integers(3, 9))):
            px, py = x + rng.normal(0, 12.0), y + rng.normal(0, 12.0)
            n = int(rng.integers(5, 9))
            a = np.sort(rng.uniform(0, 2 * np.pi, n))
            rr = rng.uniform(2.0, 6.0, n)
            shard = np.column_stack([px + rr * np.cos(a), py + rr * np.sin(a)])
            pts = project(np.column_stack([shard, np.full(n, z + 0.5)]))
            shade = int(rng.integers(200, 250))
            cv2.fillPoly(frame, [np.round(pts * 16).astype(np.int32)], (shade - 15, shade - 5, shade), cv2.LINE_AA,
                         shift=4)
            cv2.fillPoly(mask, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_8, shift=4)
    else:
        raise ValueError(f"clutter kind {item.kind!r} is not one of {', '.join(CLUTTER_KINDS)}")


def _dim(c: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return (int(c[0] * f), int(c[1] * f), int(c[2] * f))


def _scale(top: NDArray[np.float64], side_mm: float) -> float:
    """Pixels per mm along the top face's first edge."""
    return float(np.linalg.norm(top[1] - top[0])) / side_mm
