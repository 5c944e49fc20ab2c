"""The hard imaging conditions of real front-camera photos that the plain reader missed (issue 18).

Each effect is drawn once as an `Effect` (its parameters, relative to the code: offsets in modules, so
one effect means the same at any distance), can be nudged per frame (`vary`: a held card moves, the
sleeve's reflection slides, fingers shift, the hand speeds up and pauses), and is applied to a float BGR
frame given the code's outline in that frame (`apply_effect`). Categories, as named in the issue:

- ``sleeve_glare``: one or two white bands of a card sleeve's reflection across the code, clipping at
  their centre, over the sleeve's faint haze on the whole card;
- ``motion_blur``: a linear blur along one direction, 0.6-2.2 modules long;
- ``purple_light``: a coloured (magenta/purple) ambient cast, dimmer, with a lower green channel;
- ``fingers``: one to three skin-coloured fingers across the camouflage, tips up to the code's border;
- ``far``: the card at about 30-50 cm (2.2-4.0 pixels per module), a touch out of focus.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

FloatImage = npt.NDArray[np.float32]
Outline = npt.NDArray[np.float64]  # 4x2 code corners in frame pixels, clockwise from the top-left module

HARD_CONDITIONS: tuple[str, ...] = ("sleeve_glare", "motion_blur", "purple_light", "fingers", "far")


@dataclass(frozen=True, slots=True)
class Effect:
    """One drawn hard condition; `values` are the condition's parameters (see `draw_effect`)."""

    condition: str
    values: tuple[float, ...]


def ppm_range(condition: str) -> tuple[float, float]:
    """Pixels per module the card is shown at under `condition` (30-60 cm for ``far``)."""
    # a laptop camera (about 55 degrees across 1280 pixels) sees the 23 mm code at 1.8-3.6 px/module
    # from 60-30 cm; the lower end is below what any decoder reads, so the set starts at about 50 cm
    return (2.2, 4.0) if condition == "far" else (4.5, 11.0)


def draw_effect(rng: np.random.Generator, condition: str) -> Effect:
    """Parameters of one instance of `condition`."""
    u = rng.uniform
    if condition == "sleeve_glare":
        bands = 1.0 if rng.random() < 0.7 else 2.0
        # angle, offset of band 1 from the code centre (modules), width (modules), strength, second offset
        return Effect(condition, (u(0, math.pi), u(-9, 9), u(2.0, 7.0), u(120, 300), bands, u(-12, 12), u(0.03, 0.18)))
    if condition == "motion_blur":
        return Effect(condition, (u(0, math.pi), u(0.6, 2.2)))  # direction, length in modules
    if condition == "purple_light":
        # gains (B, G, R), overall brightness, a second soft spot of the cast
        return Effect(condition, (u(1.0, 1.4), u(0.3, 0.7), u(0.7, 1.0), u(0.35, 0.9), u(0.0, 1.0), u(2, 8)))
    if condition == "fingers":
        count = float(rng.integers(1, 4))
        angles = tuple(float(a) for a in u(0, 2 * math.pi, 3))
        reach = tuple(float(r) for r in u(-4.0, 6.0, 3))  # tip distance outside the code border, modules
        width = tuple(float(w) for w in u(9, 16, 3))  # finger width in modules
        return Effect(condition, (count, *angles, *reach, *width, u(0.55, 1.0)))
    if condition == "far":
        return Effect(condition, (u(0.5, 1.2),))  # defocus sigma in pixels
    raise ValueError(f"unknown hard condition {condition!r}; expected one of {', '.join(HARD_CONDITIONS)}")


def vary(rng: np.random.Generator, effect: Effect) -> Effect:
    """The same effect one frame later: bands and fingers slide a little, the hand's speed changes."""
    v = list(effect.values)
    if effect.condition == "sleeve_glare":
        v[0] += rng.normal(0, 0.05)
        v[1] += rng.normal(0, 1.5)
        v[5] += rng.normal(0, 1.5)
    elif effect.condition == "motion_blur":
        v[0] += rng.normal(0, 0.3)
        v[1] = effect.values[1] * float(rng.choice([0.2, 0.6, 1.0, 1.3]))  # pauses and jerks of the hand
    elif effect.condition == "fingers":
        for i in range(1, 4):
            v[i] += rng.normal(0, 0.08)
        for i in range(4, 7):
            v[i] += rng.normal(0, 1.0)
    elif effect.condition == "far":
        v[0] = max(0.3, v[0] + rng.normal(0, 0.2))
    return replace(effect, values=tuple(v))


def apply_effect(
    rng: np.random.Generator, img: FloatImage, effect: Effect, outline: Outline, ppm: float
) -> FloatImage:
    """`img` (float BGR) with `effect` applied around the code at `outline`."""
    v = effect.values
    if effect.condition == "sleeve_glare":
        return _glare(img, outline, ppm, v)
    if effect.condition == "motion_blur":
        return _motion(img, v[0], max(1.0, v[1] * ppm))
    if effect.condition == "purple_light":
        return _purple(rng, img, v)
    if effect.condition == "fingers":
        return _fingers(rng, img, outline, ppm, v)
    if effect.condition == "far":
        return np.asarray(cv2.GaussianBlur(img, (0, 0), v[0]), dtype=np.float32)
    raise ValueError(f"unknown hard condition {effect.condition!r}")


def _glare(img: FloatImage, outline: Outline, ppm: float, v: tuple[float, ...]) -> FloatImage:
    h, w = img.shape[:2]
    angle, offset, width, strength, bands, offset2, haze = v
    cx, cy = outline.mean(axis=0)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    nx, ny = math.cos(angle), math.sin(angle)
    across = (xx - cx) * nx + (yy - cy) * ny  # signed distance across the band direction, pixels
    along = -(xx - cx) * ny + (yy - cy) * nx
    light = np.zeros((h, w), np.float32)
    for k, off in enumerate((offset, offset2)[: int(bands)]):
        band_w = width * ppm * (0.6 if k else 1.0)
        light += np.exp(-(((across - off * ppm) / band_w) ** 2) * 2.0)
    # the band fades along its length (a sleeve's reflection is a streak, not a full stripe)
    light *= np.exp(-((along / (25 * ppm)) ** 2))
    veiled = img * (1 - haze) + 230 * haze
    return np.asarray(veiled + strength * light[..., None], dtype=np.float32)


def _motion(img: FloatImage, angle: float, length: float) -> FloatImage:
    size = math.ceil(length) | 1
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = math.cos(angle) * (length - 1) / 2, math.sin(angle) * (length - 1) / 2
    cv2.line(kernel, (round(c * 16 - dx * 16), round(c * 16 - dy * 16)),
             (round(c * 16 + dx * 16), round(c * 16 + dy * 16)), 1.0, 1, cv2.LINE_AA, 4)
    kernel /= max(float(kernel.sum()), 1e-6)
    return np.asarray(cv2.filter2D(img, -1, kernel), dtype=np.float32)


def _purple(rng: np.random.Generator, img: FloatImage, v: tuple[float, ...]) -> FloatImage:
    gb, gg, gr, level, spot, noise = v
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    sx, sy = rng.uniform(0, w), rng.uniform(0, h)
    falloff = 1.0 - 0.35 * spot * np.exp(-(((xx - sx) ** 2 + (yy - sy) ** 2) / (0.5 * w) ** 2))
    gains = np.array([gb, gg, gr], np.float32) * level
    # a dim room: the camera's gain lifts sensor noise with the picture
    return np.asarray(img * gains[None, None, :] * falloff[..., None] + rng.normal(0, noise, img.shape), np.float32)


def _fingers(
    rng: np.random.Generator, img: FloatImage, outline: Outline, ppm: float, v: tuple[float, ...]
) -> FloatImage:
    count, shade = int(v[0]), v[10]
    centre = outline.mean(axis=0)
    half = float(np.linalg.norm(outline[1] - outline[0])) / 2
    skin = np.array([120, 150, 205], np.float32) * shade
    out = img.copy()
    h, w = img.shape[:2]
    for i in range(count):
        angle, reach, width = v[1 + i], v[4 + i], v[7 + i] * ppm
        d = np.array([math.cos(angle), math.sin(angle)])
        # the tip sits `reach` modules outside the border in direction d (the border of a square is
        # further away along its diagonals), the finger runs outwards from there off the card
        border = half / max(abs(d[0]), abs(d[1]))
        tip = centre + d * (border + reach * ppm + width / 2)
        root = tip + d * 40 * ppm
        mask = np.zeros((h, w), np.uint8)
        cv2.line(mask, _pt(tip), _pt(root), 255, max(1, round(width)), cv2.LINE_AA)
        cv2.circle(mask, _pt(tip), max(1, round(width / 2)), 255, -1, cv2.LINE_AA)
        shadow = cv2.GaussianBlur(mask, (0, 0), width * 0.25).astype(np.float32) / 255.0
        alpha = mask.astype(np.float32) / 255.0
        # a soft shadow beside the finger, then the finger itself with a rounded (darker-edged) shading
        out *= (1 - 0.35 * np.clip(shadow - alpha, 0, 1))[..., None]
        edge = cv2.GaussianBlur(alpha, (0, 0), width * 0.2)
        tone = skin[None, None, :] * (0.7 + 0.3 * edge[..., None]) + rng.normal(0, 4, (h, w, 1))
        out = out * (1 - alpha[..., None]) + tone * alpha[..., None]
    return np.asarray(out, dtype=np.float32)


def _pt(p: npt.NDArray[np.float64]) -> tuple[int, int]:
    return (round(float(p[0])), round(float(p[1])))
