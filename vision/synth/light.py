"""What real rooms do to the light on a table: lamp colour (2700-7500 K seen by a camera white-balanced
for daylight), a hard shadow (a lamp behind a player's head), glare spots (a lamp reflected in the map's
varnish). Each works on a float BGR frame in place of the camera's own effects; all randomness is the
caller's seeded generator.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
WHITE_K = 5500.0  # the colour temperature the fixed white balance of the camera is set for


def kelvin_bgr(kelvin: float) -> tuple[float, float, float]:
    """Approximate BGR of a black body at ``kelvin`` (Tanner Helland's fit), 0..1."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    return tuple(float(np.clip(v, 0, 255)) / 255.0 for v in (b, g, r))  # type: ignore[return-value]


def light_colour_gain(kelvin: float) -> NDArray[np.float32]:
    """Per-channel (B, G, R) gain of a lamp at ``kelvin`` on a camera balanced for WHITE_K, green kept at 1."""
    lamp, white = np.array(kelvin_bgr(kelvin)), np.array(kelvin_bgr(WHITE_K))
    g = lamp / white
    return np.asarray(g / g[1], dtype=np.float32)


def hard_shadow(f: F32, rng: np.random.Generator, strength: float) -> None:
    """Darken a random convex polygon (a quarter to half of the frame, sharp edged) by ``strength``."""
    h, w = f.shape[:2]
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    n = int(rng.integers(4, 8))
    ang = np.sort(rng.uniform(0, 2 * np.pi, n))
    rad = rng.uniform(0.25, 0.5, n) * min(w, h)
    pts = np.column_stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)])
    mask = np.zeros((h, w), np.float32)
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1.0, cv2.LINE_AA)
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), 1.5), np.float32)
    f *= (1.0 - strength * mask)[:, :, None]


def glare_spots(f: F32, rng: np.random.Generator, n: int, px_per_mm: float) -> None:
    """``n`` specular reflections: bright, nearly white ellipses 8-30 mm across with soft edges."""
    h, w = f.shape[:2]
    for _ in range(n):
        cx, cy = rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h
        ax = rng.uniform(4.0, 15.0) * px_per_mm
        ay = ax * rng.uniform(0.4, 1.0)
        r = int(3 * ax) + 2
        x0, y0, x1, y1 = max(int(cx) - r, 0), max(int(cy) - r, 0), min(int(cx) + r, w), min(int(cy) + r, h)
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        a = rng.uniform(0, np.pi)
        u = ((xx - cx) * math.cos(a) + (yy - cy) * math.sin(a)) / ax
        v = (-(xx - cx) * math.sin(a) + (yy - cy) * math.cos(a)) / ay
        m = np.exp(-np.maximum(u * u + v * v - 0.6, 0.0) * 3.0)[:, :, None]
        roi = f[y0:y1, x0:x1]
        roi[:] = roi * (1.0 - m) + np.float32(rng.uniform(240, 255)) * m
