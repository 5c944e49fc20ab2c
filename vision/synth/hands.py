"""Hands and arms reaching over the table, drawn in the image with a soft shadow; seeded."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.warp import Image

SKIN = ((92, 125, 178), (70, 100, 150), (120, 160, 215), (45, 70, 110), (140, 175, 225))
SLEEVES = ((40, 40, 40), (200, 200, 205), (150, 60, 30), (40, 40, 160), (60, 120, 60), (30, 110, 200))


def draw_hand(frame: Image, mask: NDArray[np.uint8], rng: np.random.Generator, target: tuple[float, float],
              px_per_mm: float) -> None:
    """Draw one arm entering from the nearest image edge with its hand over ``target`` (pixels).

    ``mask`` receives 255 wherever the arm or hand covers the frame (the ground truth of occlusion).
    """
    h, w = frame.shape[:2]
    tx, ty = target
    tx += rng.normal(0.0, 15.0 * px_per_mm)
    ty += rng.normal(0.0, 15.0 * px_per_mm)
    edges = [(tx, h + 50.0), (tx, -50.0), (-50.0, ty), (w + 50.0, ty)]
    weights = np.array([4.0, 2.0, 1.0, 1.0])
    sx, sy = edges[int(rng.choice(4, p=weights / weights.sum()))]
    sx += rng.normal(0.0, 80.0 * px_per_mm)
    ang = math.atan2(ty - sy, tx - sx)
    ux, uy = math.cos(ang), math.sin(ang)
    arm_w = rng.uniform(70.0, 95.0) * px_per_mm
    palm_l, palm_w = rng.uniform(85.0, 105.0) * px_per_mm, rng.uniform(75.0, 90.0) * px_per_mm
    skin = SKIN[int(rng.integers(len(SKIN)))]
    sleeve = SLEEVES[int(rng.integers(len(SLEEVES)))] if rng.random() < 0.7 else skin
    wrist = (tx - ux * palm_l * 0.55, ty - uy * palm_l * 0.55)
    layer = np.zeros_like(frame)
    cover = np.zeros(frame.shape[:2], dtype=np.uint8)

    def line(a: tuple[float, float], b: tuple[float, float], width: float, colour: tuple[int, int, int]) -> None:
        pa, pb = (round(a[0]), round(a[1])), (round(b[0]), round(b[1]))
        cv2.line(layer, pa, pb, colour, max(1, round(width)), cv2.LINE_AA)
        cv2.line(cover, pa, pb, 255, max(1, round(width)), cv2.LINE_AA)

    cuff = (wrist[0] - ux * 40.0 * px_per_mm, wrist[1] - uy * 40.0 * px_per_mm)
    line((sx, sy), cuff, arm_w * 1.15, sleeve)
    line(cuff, wrist, arm_w * 0.8, skin)
    centre = (round(tx), round(ty))
    axes = (round(palm_l / 2), round(palm_w / 2))
    cv2.ellipse(layer, centre, axes, math.degrees(ang), 0, 360, skin, -1, cv2.LINE_AA)
    cv2.ellipse(cover, centre, axes, math.degrees(ang), 0, 360, 255, -1, cv2.LINE_AA)
    spread = rng.uniform(0.5, 1.0)
    for i in range(5):
        off = (i - 2) * palm_w * 0.2
        fa = ang + (i - 2) * 0.12 * spread + (0.9 if i == 0 else 0.0)
        base = (tx + ux * palm_l * 0.3 - uy * off, ty + uy * palm_l * 0.3 + ux * off)
        length = (rng.uniform(45.0, 75.0) if i else 40.0) * px_per_mm
        tip = (base[0] + math.cos(fa) * length, base[1] + math.sin(fa) * length)
        line(base, tip, palm_w * 0.17, _vary(skin, rng))
    shade = cv2.GaussianBlur(cover, (0, 0), 6.0).astype(np.float32) / 255.0
    # the shadow of the arm falls a few centimetres to the side (light from the top left)
    shift = np.array([[1, 0, 30.0 * px_per_mm], [0, 1, 25.0 * px_per_mm]], dtype=np.float32)
    shadow = cv2.warpAffine(cv2.GaussianBlur(cover, (0, 0), 12.0), shift, (w, h)).astype(np.float32) / 255.0
    f = frame.astype(np.float32) * (1.0 - 0.45 * shadow[:, :, None])
    tone = 0.85 + 0.3 * shade[:, :, None]
    a = (cover.astype(np.float32) / 255.0)[:, :, None]
    frame[:] = np.clip(f * (1.0 - a) + layer.astype(np.float32) * tone * a, 0, 255).astype(np.uint8)
    np.maximum(mask, cover, out=mask)


def _vary(c: tuple[int, int, int], rng: np.random.Generator) -> tuple[int, int, int]:
    f = rng.uniform(0.92, 1.05)
    return (int(min(255, c[0] * f)), int(min(255, c[1] * f)), int(min(255, c[2] * f)))
