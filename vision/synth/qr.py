"""Seeded synthetic front-camera frames: real Kipukas-form payloads camouflaged on the real card-back art.

Why: the 20 real dev photos are too few to judge how the reader generalises, and a held-out set will
judge it. This generator draws fresh codes the way the card backs hide them (see the packaged
``hilbert_king_of_avian_frogs_back.jpeg`` and the ``*_qr.jpeg`` crops in ``shared/kipukas/images``): no
quiet zone (the lava of dark blobs and yellow cracks runs right up to the code), modules with rough,
lava-like edges, yellow-to-orange light parts with dark speckles, solid dark parts, and
green blobs that may touch the code's border. The card is then placed in a 1280x720 scene with a
perspective, and one imaging condition is applied (`CONDITIONS`; the hard ones of issue 18, which the
reader used to miss on real photos, live in `vision.synth.qr_effects`). `SynthSet.presentation` draws a
card held up for about a second: consecutive frames in which the hand sways it and the condition
changes. Everything is drawn from one ``numpy.random.Generator`` seeded per (seed, condition, index), so
a sample or a presentation is reproducible alone.
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.assets import CARD_BACK
from vision.qr_decoders import Corners, GreyImage, as_grey, order_corners
from vision.synth.qr_effects import HARD_CONDITIONS, Effect, apply_effect, draw_effect, ppm_range, vary

BgrImage = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]

ART = Path(__file__).resolve().parent.parent / "assets" / CARD_BACK
# Where the art's own code sits, as fractions of the card (measured by reading the art with the reader).
ART_CODE_BOX = (0.318, 0.386, 0.686, 0.616)
FRAME_SIZE = (1280, 720)
BASIC_CONDITIONS: tuple[str, ...] = ("clean", "blur", "glare", "tilt", "low_light", "two_cards")
CONDITIONS: tuple[str, ...] = BASIC_CONDITIONS + HARD_CONDITIONS
PRESENTATION_CONDITIONS: tuple[str, ...] = tuple(c for c in CONDITIONS if c != "two_cards")
_CODE_CHARS = string.ascii_letters + string.digits + "_-"
_TOKEN_CHARS = string.ascii_letters + string.digits


@dataclass(frozen=True, slots=True)
class SynthSample:
    """One synthetic frame, the payloads drawn in it, and the condition it was made under."""

    frame: BgrImage
    payloads: tuple[str, ...]
    condition: str
    corners: tuple[Corners, ...] = ()  # per payload: the code's outer module corners in frame pixels


@dataclass(frozen=True, slots=True)
class SynthPresentation:
    """Consecutive frames of one card held to the camera, its payload, and per-frame code outlines."""

    frames: tuple[BgrImage, ...]
    payloads: tuple[str, ...]
    condition: str
    corners: tuple[Corners, ...] = ()  # per frame: the code's outer module corners


def random_payload(rng: np.random.Generator) -> str:
    """A payload of the Kipukas form: mostly ``kpks.us/CODE#SERIAL?TOKEN``, sometimes the older URL."""
    code = "".join(rng.choice(list(_CODE_CHARS), 4))
    if rng.random() < 0.15:
        return f"https://www.kpks.us/{code}"
    token = "".join(rng.choice(list(_TOKEN_CHARS), 6))
    return f"kpks.us/{code}#{int(rng.integers(1, 30)):04d}?{token}"


def _noise_field(rng: np.random.Generator, shape: tuple[int, int], scale: float) -> FloatImage:
    """Smooth noise in about [-1, 1] with features about `scale` pixels across."""
    small = (max(2, int(shape[1] / scale)), max(2, int(shape[0] / scale)))
    field = rng.standard_normal((small[1], small[0])).astype(np.float32)
    big = cv2.resize(field, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return np.asarray(big / (np.abs(big).max() + 1e-6), dtype=np.float32)


def qr_modules(payload: str) -> GreyImage:
    """The module matrix of `payload` (255 light, 0 dark) without quiet zone, error correction H."""
    params = cv2.QRCodeEncoder.Params()
    params.correction_level = cv2.QRCodeEncoder_CORRECT_LEVEL_H
    matrix = as_grey(cv2.QRCodeEncoder.create(params).encode(payload))
    dark = np.where(matrix.min(axis=0) == 0)[0]
    lo, hi = int(dark.min()), int(dark.max()) + 1
    return np.ascontiguousarray(matrix[lo:hi, lo:hi])


def camouflaged_code(rng: np.random.Generator, payload: str, size: int) -> BgrImage:
    """The code drawn `size` pixels square in the card-back style, with the art's one-module light rim.

    The art keeps about one module of yellow around the code (the finders' outer separators) and then
    lets the lava start; modules have finely rough edges, light areas run yellow to orange with a few
    dark speckles, dark modules are solid.
    """
    modules = cv2.copyMakeBorder(qr_modules(payload), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=255)
    mask = _f32(cv2.resize(modules, (size, size), interpolation=cv2.INTER_NEAREST)) / 255.0
    module = size / modules.shape[0]
    mask = _f32(cv2.GaussianBlur(mask, (0, 0), module * 0.15))
    mask = (mask + 0.25 * _noise_field(rng, mask.shape, module * 0.2) > 0.5).astype(np.float32)
    speck = _noise_field(rng, mask.shape, module * 0.35) > 0.75
    light = np.where(speck, 0.0, mask)
    tint = (_noise_field(rng, mask.shape, size / 3) + 1) / 2  # 0 yellow .. 1 orange
    yellow, orange, dark = np.array([20, 190, 250]), np.array([15, 140, 240]), np.array([30, 25, 28])
    colour = yellow[None, None, :] * (1 - tint[..., None]) + orange[None, None, :] * tint[..., None]
    shade = dark[None, None, :] + 10 * _noise_field(rng, mask.shape, module)[..., None]
    img = colour * light[..., None] + shade * (1 - light[..., None])
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


def _card(rng: np.random.Generator, art: BgrImage, payload: str) -> tuple[BgrImage, npt.NDArray[np.float64]]:
    """The art with its own code replaced by `payload` (maybe a green blob at it), and the code's corners."""
    card = art.copy()
    h, w = card.shape[:2]
    x0, y0, x1, y1 = ART_CODE_BOX
    size = int(max((x1 - x0) * w, (y1 - y0) * h) * 1.08)
    cx, cy = int((x0 + x1) / 2 * w), int((y0 + y1) / 2 * h)
    code = camouflaged_code(rng, payload, size)
    top, left = cy - size // 2, cx - size // 2
    under = card[top : top + size, left : left + size]
    # the lava's dark blobs encroach irregularly on the light rim around the code, as in the art
    rim = int(size / (qr_modules(payload).shape[0] + 2))
    inner = np.zeros((size, size), bool)
    inner[rim:-rim, rim:-rim] = True
    dark_art = cv2.cvtColor(under, cv2.COLOR_BGR2GRAY) < 90
    keep_art = dark_art & ~inner & (_noise_field(rng, (size, size), rim * 1.5) > 0)
    card[top : top + size, left : left + size] = np.where(keep_art[..., None], under, code)
    if rng.random() < 0.5:  # a green blob nibbling at the finder-free corner (the art's blobs stop short)
        corner = (left + size, top + size)
        axes = (int(size * rng.uniform(0.06, 0.12)), int(size * rng.uniform(0.05, 0.1)))
        cv2.ellipse(card, corner, axes, float(rng.uniform(0, 180)), 0, 360, (40, 95, 45), -1)
    module = size / (qr_modules(payload).shape[0] + 2)
    lo, hi = module, size - module
    corners = np.array([[left + lo, top + lo], [left + hi, top + lo], [left + hi, top + hi], [left + lo, top + hi]])
    return card, corners


def _background(rng: np.random.Generator) -> BgrImage:
    w, h = FRAME_SIZE
    base = rng.uniform(40, 200, 3)
    field = _noise_field(rng, (h, w), 200)[..., None]
    img = base[None, None, :] + 40 * field + rng.normal(0, 4, (h, w, 3))
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


Pose = tuple[float, float, float]  # rotations about x, y (tilt) and z (in the image plane), degrees


def _draw_pose(rng: np.random.Generator, tilt: float) -> Pose:
    rx, ry = (float(rng.uniform(-tilt, tilt)) for _ in range(2))
    return (rx, ry, float(rng.uniform(-40, 40)))


def _place(
    rng: np.random.Generator, frame: BgrImage, card: BgrImage, centre: tuple[float, float], ppm: float, tilt: float,
    pose: Pose | None = None,
) -> npt.NDArray[np.float64]:
    """Project `card` into `frame` (in place), code centred at `centre`, about `ppm` px/module; the homography."""
    h, w = card.shape[:2]
    x0, y0, x1, y1 = ART_CODE_BOX
    code_px = (x1 - x0) * w
    scale = ppm * 29 / code_px  # a version-3 code is 29 modules
    ccx, ccy = (x0 + x1) / 2 * w, (y0 + y1) / 2 * h
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    pts3 = np.column_stack([(corners - [ccx, ccy]) * scale, np.zeros(4)])
    rx, ry, rz = (math.radians(a) for a in (pose or _draw_pose(rng, tilt)))
    rot_x = np.array([[1, 0, 0], [0, math.cos(rx), -math.sin(rx)], [0, math.sin(rx), math.cos(rx)]])
    rot_y = np.array([[math.cos(ry), 0, math.sin(ry)], [0, 1, 0], [-math.sin(ry), 0, math.cos(ry)]])
    rot_z = np.array([[math.cos(rz), -math.sin(rz), 0], [math.sin(rz), math.cos(rz), 0], [0, 0, 1]])
    focal, depth = 1000.0, 1000.0
    p = pts3 @ (rot_z @ rot_y @ rot_x).T + [0, 0, depth]
    proj = np.column_stack([focal * p[:, 0] / p[:, 2] + centre[0], focal * p[:, 1] / p[:, 2] + centre[1]])
    homography = cv2.getPerspectiveTransform(corners.astype(np.float32), proj.astype(np.float32))
    fh, fw = frame.shape[:2]
    warped = cv2.warpPerspective(card, homography, (fw, fh), flags=cv2.INTER_AREA)
    cover = cv2.warpPerspective(np.full((h, w), 255, np.uint8), homography, (fw, fh), flags=cv2.INTER_LINEAR)
    alpha = (cover.astype(np.float32) / 255.0)[..., None]
    frame[:] = np.asarray(frame * (1 - alpha) + warped * alpha, dtype=np.uint8)
    return np.asarray(homography, dtype=np.float64)


def _f32(image: object) -> FloatImage:
    return np.asarray(image, dtype=np.float32)


def _condition(rng: np.random.Generator, frame: BgrImage, condition: str) -> BgrImage:
    img = _f32(frame)
    if condition == "blur":
        if rng.random() < 0.5:
            img = _f32(cv2.GaussianBlur(img, (0, 0), float(rng.uniform(1.5, 2.5))))
        else:
            length = int(rng.integers(7, 13))
            kernel = np.zeros((length, length), np.float32)
            kernel[length // 2, :] = 1.0 / length
            rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
            kernel = _f32(cv2.warpAffine(kernel, rot, (length, length)))
            img = _f32(cv2.filter2D(img, -1, kernel / max(float(kernel.sum()), 1e-6)))
    elif condition == "glare":
        h, w = img.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        gx, gy = rng.uniform(0.35, 0.65) * w, rng.uniform(0.35, 0.65) * h
        sx, sy = rng.uniform(40, 110), rng.uniform(25, 70)
        spot = np.exp(-(((xx - gx) / sx) ** 2 + ((yy - gy) / sy) ** 2))
        img = _f32(img + float(rng.uniform(110, 190)) * spot[..., None])
    elif condition == "low_light":
        img = _f32(img * float(rng.uniform(0.22, 0.38)) + rng.normal(0, 5, img.shape))
        img[..., 0] += 6  # the bluish cast of a dim screen-lit room
    return _finish(rng, img)


def _jpeg(rng: np.random.Generator, img: BgrImage) -> BgrImage:
    """The laptop/USB camera's JPEG compression (the real photos are JPEGs), quality 70-92."""
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 93))])
    if not ok:
        raise ValueError("JPEG encoding of a synthetic frame failed")
    return np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), dtype=np.uint8)


def _finish(rng: np.random.Generator, img: FloatImage) -> BgrImage:
    """The camera's own slight softness and sensor noise, then 8 bits."""
    img = _f32(cv2.GaussianBlur(img, (0, 0), 0.6) + rng.normal(0, 2.5, img.shape))
    return np.asarray(np.clip(img, 0, 255), dtype=np.uint8)


class SynthSet:
    """A reproducible stream of synthetic front-camera frames per condition."""

    def __init__(self, seed: int, art_path: Path = ART) -> None:
        art = cv2.imread(str(art_path))
        if art is None:
            raise FileNotFoundError(f"{art_path}: card-back art not readable")
        self.seed = seed
        self.art = np.asarray(art, dtype=np.uint8)

    def sample(self, condition: str, index: int) -> SynthSample:
        """Sample `index` of `condition`, the same for the same seed whatever was drawn before."""
        if condition not in CONDITIONS:
            raise ValueError(f"unknown condition {condition!r}; expected one of {', '.join(CONDITIONS)}")
        rng = np.random.default_rng([self.seed, CONDITIONS.index(condition), index])
        frame = _background(rng)
        w, h = FRAME_SIZE
        tilt = 40.0 if condition == "tilt" else 12.0
        payloads: list[str] = []
        outlines: list[Corners] = []

        def put(payload: str, centre: tuple[float, float], ppm: float) -> npt.NDArray[np.float64]:
            card, corners = _card(rng, self.art, payload)
            homography = _place(rng, frame, card, centre, ppm, tilt)
            projected = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), homography).reshape(-1, 2)
            payloads.append(payload)
            outlines.append(order_corners([(float(x), float(y)) for x, y in projected]))
            return np.asarray(projected, dtype=np.float64)

        if condition == "two_cards":
            ppm = float(rng.uniform(4.5, 6.5))
            for cx in (w * 0.28, w * 0.72):
                payload = random_payload(rng)
                put(payload, (cx + float(rng.uniform(-30, 30)), h / 2 + float(rng.uniform(-60, 60))), ppm)
        elif condition in HARD_CONDITIONS:
            ppm = float(rng.uniform(*ppm_range(condition)))
            payload = random_payload(rng)
            half = ppm * 31 * 0.8
            outline = put(payload, (float(rng.uniform(half, w - half)), float(rng.uniform(half, h - half))), ppm)
            img = apply_effect(rng, _f32(frame), draw_effect(rng, condition), outline, ppm)
            return SynthSample(_jpeg(rng, _finish(rng, img)), tuple(payloads), condition, tuple(outlines))
        else:
            ppm = float(rng.uniform(5.0, 12.0))
            payload = random_payload(rng)
            half = ppm * 31 * 0.8  # the rotated code with its rim stays inside the frame
            put(payload, (float(rng.uniform(half, w - half)), float(rng.uniform(half, h - half))), ppm)
        return SynthSample(_condition(rng, frame, condition), tuple(payloads), condition, tuple(outlines))

    def presentation(self, condition: str, index: int, frames: int = 20) -> SynthPresentation:
        """One card held up under `condition` for `frames` consecutive frames (about a second).

        The hand sways the card (position, rotation, distance drift slowly), and the condition's effect
        changes from frame to frame as it does live (`qr_effects.vary`); the room stays the same.
        """
        if condition not in PRESENTATION_CONDITIONS:
            raise ValueError(
                f"unknown presentation condition {condition!r}; expected one of {', '.join(PRESENTATION_CONDITIONS)}"
            )
        if frames < 1:
            raise ValueError(f"a presentation needs at least one frame, got {frames}")
        rng = np.random.default_rng([self.seed, 1000 + CONDITIONS.index(condition), index])
        background = _background(rng)
        payload = random_payload(rng)
        card, corners = _card(rng, self.art, payload)
        hard = condition in HARD_CONDITIONS
        ppm = float(rng.uniform(*(ppm_range(condition) if hard else (5.0, 12.0))))
        tilt = 40.0 if condition == "tilt" else 12.0
        pose = np.array(_draw_pose(rng, tilt))
        w, h = FRAME_SIZE
        half = ppm * 31 * 0.8 + 3 * ppm
        centre = np.array([rng.uniform(half, w - half), rng.uniform(half, h - half)])
        sway = rng.normal(0, 1.2 * ppm, 2)  # amplitude of the hand's sway, pixels
        phase = float(rng.uniform(0, 2 * math.pi))
        effect: Effect | None = draw_effect(rng, condition) if hard else None
        out: list[BgrImage] = []
        outlines: list[Corners] = []
        for i in range(frames):
            t = phase + i * 0.35
            frame = background.copy()
            at = (float(centre[0] + sway[0] * math.sin(t)), float(centre[1] + sway[1] * math.cos(t)))
            turn = pose + rng.normal(0, 0.8, 3)
            homography = _place(rng, frame, card, at, ppm * (1 + 0.03 * math.sin(t / 2)), tilt,
                                (float(turn[0]), float(turn[1]), float(turn[2])))
            projected = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), homography).reshape(-1, 2)
            outlines.append(order_corners([(float(x), float(y)) for x, y in projected]))
            if effect is not None:
                effect = vary(rng, effect)
                img = apply_effect(rng, _f32(frame), effect, np.asarray(projected, np.float64), ppm)
                out.append(_jpeg(rng, _finish(rng, img)))
            else:
                out.append(_condition(rng, frame, condition))
        return SynthPresentation(tuple(out), (payload,), condition, tuple(outlines))

    def samples(self, condition: str, count: int) -> Iterator[SynthSample]:
        """Samples 0..count-1 of `condition`."""
        for index in range(count):
            yield self.sample(condition, index)
