"""Dice on the table, for tests, the bench and the demo: the diel die, D6 and D20 in a seat's colour.

Each die is drawn from above as the overhead camera sees it: its shadow, its side walls from the table up
to its height (so a die off the image centre shows a side), then its top: a rounded cube with a recessed
circle holding the numeral or symbol, or an icosahedron resting on a face (a hexagon outline, the top
triangle with its numeral, the neighbouring faces darker with their own numerals foreshortened). Random
pose and light come from the seed; `tilt_deg` cocks a die (leaning on another), `blur_px` smears it along
its roll (a die still moving), `glare` puts a specular spot on it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from vision.dice import MARGIN_MM
from vision.dice_faces import D20_TOP_RADIUS, FACES, MARK_FRACTION, SHAPE, SIZE_MM, d20_top, mark
from vision.synth.hands import draw_hand
from vision.synth.renderer import Renderer
from vision.synth.scene import TableScene
from vision.warp import Image, Mat3, paste, rotate, scale, translate

SPRITE_PX_PER_MM = 8.0


@dataclass(frozen=True)
class Die:
    """One die as it lies: kind (diel, d6, d20), the face up, its colour (BGR), where (mat mm) and how."""

    kind: str
    face: str
    colour: tuple[int, int, int]
    at_mm: tuple[float, float]
    angle_deg: float = 0.0
    tilt_deg: float = 0.0  # cocked about a random axis: the top is foreshortened, one side shows
    blur_px: float = 0.0  # motion blur along the die's travel (still rolling)
    glare: float = 0.0  # 0..1, a specular spot on the top


@dataclass
class RollScene:
    """A table with dice on it: the rest of the table (`TableScene`), the dice, and hands over the roll area."""

    table: TableScene = field(default_factory=lambda: TableScene({}))
    dice: list[Die] = field(default_factory=list)
    hands_at: list[tuple[float, float]] = field(default_factory=list)  # mat mm a hand reaches to


def _shade(c: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return (min(255, int(c[0] * f)), min(255, int(c[1] * f)), min(255, int(c[2] * f)))


def _cube_top(die: Die, neighbours: list[str]) -> tuple[Image, NDArray[np.float32]]:
    """The cube's top (sprite BGR, alpha): a rounded square, the recessed circle and its mark."""
    s = SIZE_MM[die.kind] * SPRITE_PX_PER_MM
    n = int(s * 1.1)
    c = n / 2
    img = np.zeros((n, n, 3), np.uint8)
    alpha = np.zeros((n, n), np.uint8)
    r = s * 0.22
    body = _shade(die.colour, 1.0)
    for a in (img, alpha):
        colour: tuple[int, int, int] | int = body if a is img else 255
        x0, x1 = int(c - s / 2), int(c + s / 2)
        cv2.rectangle(a, (int(x0 + r), x0), (int(x1 - r), x1), colour, -1, cv2.LINE_AA)
        cv2.rectangle(a, (x0, int(x0 + r)), (x1, int(x1 - r)), colour, -1, cv2.LINE_AA)
        for dx in (x0 + r, x1 - r):
            for dy in (x0 + r, x1 - r):
                cv2.circle(a, (int(dx), int(dy)), int(r), colour, -1, cv2.LINE_AA)
    # a rounded body: the edges fall away darker
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    edge = np.clip(np.maximum(abs(xs - c), abs(ys - c)) / (s / 2), 0, 1)
    img = (img.astype(np.float32) * (1.0 - 0.35 * edge[:, :, None] ** 4)).astype(np.uint8)
    cv2.circle(img, (int(c), int(c)), int(s * 0.4), _shade(die.colour, 0.72), -1, cv2.LINE_AA)
    cv2.circle(img, (int(c), int(c)), int(s * 0.37), _shade(die.colour, 0.9), -1, cv2.LINE_AA)
    _ink(img, die, int(s * MARK_FRACTION["cube"]), (c, c))
    return img, alpha.astype(np.float32) / 255.0


def _d20_top(die: Die, neighbours: list[str]) -> tuple[Image, NDArray[np.float32]]:
    """The icosahedron from above, resting on a face: hexagon outline, top triangle and three neighbours."""
    s = SIZE_MM[die.kind] * SPRITE_PX_PER_MM
    n = int(s * 1.1)
    c = n / 2
    R = s / 2
    hexagon = np.array([[c + R * math.cos(math.radians(90 + 60 * i)), c + R * math.sin(math.radians(90 + 60 * i))]
                        for i in range(6)])
    tri_r = R * D20_TOP_RADIUS
    tri = np.array([[c + tri_r * math.cos(math.radians(-90 + 120 * i)),
                     c + tri_r * math.sin(math.radians(-90 + 120 * i))] for i in range(3)])
    img = np.zeros((n, n, 3), np.uint8)
    alpha = np.zeros((n, n), np.uint8)
    cv2.fillPoly(alpha, [np.round(hexagon * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    cv2.fillPoly(img, [np.round(hexagon * 16).astype(np.int32)], _shade(die.colour, 0.62), cv2.LINE_AA, shift=4)
    for i in range(3):  # the three faces sharing an edge with the top, each up to a hexagon vertex
        a, b = tri[i], tri[(i + 1) % 3]
        far = hexagon[(2 * i + 4) % 6]
        quad = np.array([a, far, b])
        cv2.fillPoly(img, [np.round(quad * 16).astype(np.int32)], _shade(die.colour, 0.8), cv2.LINE_AA, shift=4)
        mid = (a + b + far) / 3
        small = mark("d20", neighbours[i], int(s * 0.2), float(np.degrees(np.arctan2(mid[1] - c, mid[0] - c))) + 90)
        ink = np.asarray(cv2.resize(small, (small.shape[1], max(2, int(small.shape[0] * 0.75)))), np.float32)
        _blend(img, ink, (float(mid[0]), float(mid[1])), _shade(die.colour, 0.5))
    top = d20_top(die.face, int(2 * tri_r))  # brightness of the lit top: the design the reader knows
    h = top.shape[0]
    x0, y0 = round(c - h / 2), round(c - h / 2)
    region = img[y0:y0 + h, x0:x0 + h].astype(np.float32)
    lit = top[:, :, None] * np.array(die.colour, np.float32)
    inside = np.zeros((h, h), np.uint8)
    cv2.fillPoly(inside, [np.round((tri - (x0, y0)) * 16).astype(np.int32)], 1, cv2.LINE_AA, shift=4)
    cv2.dilate(inside, np.ones((5, 5), np.uint8), dst=inside)
    a = inside[:, :, None].astype(np.float32)
    img[y0:y0 + h, x0:x0 + h] = np.clip(region * (1 - a) + lit * a, 0, 255).astype(np.uint8)
    return img, alpha.astype(np.float32) / 255.0


def _blend(img: Image, ink: NDArray[np.float32], centre: tuple[float, float], colour: tuple[int, int, int]) -> None:
    h, w = ink.shape
    x0, y0 = round(centre[0] - w / 2), round(centre[1] - h / 2)
    x1, y1 = min(img.shape[1], x0 + w), min(img.shape[0], y0 + h)
    x0c, y0c = max(0, x0), max(0, y0)
    a = ink[y0c - y0:y1 - y0, x0c - x0:x1 - x0, None]
    roi = img[y0c:y1, x0c:x1].astype(np.float32)
    img[y0c:y1, x0c:x1] = np.clip(roi * (1 - a) + np.array(colour, np.float32) * a, 0, 255).astype(np.uint8)


def _ink(img: Image, die: Die, size: int, centre: tuple[float, float]) -> None:
    """The recessed mark: its floor in shadow, a lit rim on the side towards the light."""
    ink = mark(die.kind, die.face, size)
    rim = np.clip(ink - np.roll(np.roll(ink, 3, 0), 3, 1), 0, 1)
    _blend(img, ink, centre, _shade(die.colour, 0.45))
    _blend(img, rim * 0.6, centre, _shade(die.colour, 1.25))


def draw_die(frame: Image, renderer: Renderer, die: Die, rng: np.random.Generator) -> None:
    """Draw `die` into `frame` as `renderer`'s camera sees it."""
    if die.kind not in FACES or die.face not in FACES[die.kind]:
        raise ValueError(f"a {die.kind} die has no face {die.face!r}")
    others = [f for f in FACES["d20"] if f != die.face]
    neighbours = [others[int(i)] for i in rng.choice(len(others), 3, replace=False)]
    sprite, alpha = (_cube_top if SHAPE[die.kind] == "cube" else _d20_top)(die, neighbours)
    size = SIZE_MM[die.kind]
    height = size * (0.95 if SHAPE[die.kind] == "cube" else 0.9)
    x, y = die.at_mm
    # shadow, then the side walls up to the top (their colour darker), then the top face
    k = 1.0 / SPRITE_PX_PER_MM
    n = sprite.shape[0]
    tilt_axis = rng.uniform(0, 180)
    squash = math.cos(math.radians(die.tilt_deg))
    local = (rotate(tilt_axis) @ scale(1.0, squash) @ rotate(-tilt_axis) @ rotate(die.angle_deg)
             @ scale(k) @ translate(-n / 2, -n / 2))
    sh = np.asarray(cv2.GaussianBlur((alpha * 0.45).astype(np.float32), (0, 0), 2.5 * SPRITE_PX_PER_MM), np.float32)
    paste(frame, np.zeros_like(sprite), sh, renderer.plane(0.0) @ translate(x + 2.0, y + 2.5) @ local)
    walls = np.zeros_like(sprite)
    walls[:] = _shade(die.colour, 0.5)
    for z in np.linspace(0.0, height, 5)[:-1]:
        paste(frame, walls, alpha, renderer.plane(float(z)) @ translate(x, y) @ local)
    if die.tilt_deg:  # the side the die leans away from shows as a band beside the top
        lean = (rotate(tilt_axis + 90) @ np.array([0.0, size * math.sin(math.radians(die.tilt_deg)) * 0.5, 0.0]))[:2]
        paste(frame, walls, alpha, renderer.plane(height) @ translate(x + lean[0], y + lean[1]) @ local)
    top = sprite.copy()
    if die.glare > 0:
        spot = np.zeros(alpha.shape, np.float32)
        p = (int(rng.uniform(0.3, 0.7) * n), int(rng.uniform(0.3, 0.7) * n))
        cv2.circle(spot, p, int(n * 0.12), 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), n * 0.05) * die.glare
        top = np.clip(top.astype(np.float32) * (1 - spot[:, :, None]) + 255 * spot[:, :, None], 0, 255).astype(np.uint8)
    H: Mat3 = renderer.plane(height) @ translate(x, y) @ local
    if die.blur_px > 0:
        length = max(3, int(die.blur_px * SPRITE_PX_PER_MM / max(renderer.px_per_mm, 1e-6)))
        kern = np.zeros((length, length), np.float32)
        kern[length // 2, :] = 1.0 / length
        kern = np.asarray(cv2.warpAffine(kern, cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5),
                                                             rng.uniform(0, 180), 1.0), (length, length)), np.float32)
        kern /= max(float(kern.sum()), 1e-6)
        top = np.asarray(cv2.filter2D(top, -1, kern), np.uint8)
        alpha = np.asarray(cv2.filter2D(alpha, -1, kern), np.float32)
    paste(frame, top, alpha, H)


def random_die(kind: str, colour: tuple[int, int, int], at_mm: tuple[float, float], rng: np.random.Generator,
               face: str | None = None, tilt_deg: float = 0.0) -> Die:
    """A die of `kind` thrown at `at_mm`: a random face (unless given) and a random turn."""
    faces = FACES[kind]
    return Die(kind, face if face is not None else faces[int(rng.integers(len(faces)))], colour, at_mm,
               float(rng.uniform(0, 360)), tilt_deg)


def render_roll(renderer: Renderer, scene: RollScene, seed: int = 0, lighting: float = 1.0, blur: float = 0.0,
                glare: int = 0, kelvin: float | None = None, noise: float = 1.0) -> Image:
    """A camera frame of the table with `scene`'s dice on it (and hands above them)."""
    rng = np.random.default_rng([seed, 21])
    table = TableScene(scene.table.tokens, scene.table.slots, 0, scene.table.clutter)
    frame, _ = renderer.compose(table, seed)
    for die in scene.dice:
        draw_die(frame, renderer, die, rng)
    mask = np.zeros(frame.shape[:2], np.uint8)
    for x, y in scene.hands_at:
        q = renderer.project(np.array([[x, y, 0.0]]))[0]
        draw_hand(frame, mask, rng, (float(q[0]), float(q[1])), renderer.px_per_mm)
    return renderer.finish(frame, seed, lighting=lighting, blur=blur, glare=glare, kelvin=kelvin, noise=noise)


def area_pose(pose: CameraPose, layout: TableLayout) -> CameraPose:
    """`pose` cut down to the image of the roll area and the reader's margin around it: the same pixels as
    the full frame's there, rendered in a fraction of the time (training crops, fast tests)."""
    if layout.roll_area_mm is None:
        raise ValueError("the table layout has no roll area (mat file key roll_area_mm)")
    x0, y0, x1, y1 = layout.roll_area_mm
    m = MARGIN_MM + 15.0
    pts = np.array([[x, y, z] for x in (x0 - m, x1 + m) for y in (y0 - m, y1 + m) for z in (0.0, 25.0)])
    px = pose.project(pts)
    lo = np.floor(px.min(axis=0)).astype(int)
    hi = np.ceil(px.max(axis=0)).astype(int)
    K = pose.K.copy()
    K[0, 2] -= lo[0]
    K[1, 2] -= lo[1]
    return dataclasses.replace(pose, K=K, image_size=(int(hi[0] - lo[0]), int(hi[1] - lo[1])))
