"""Domain-randomised die crops for the dice face network, rendered by `vision.synth.dice`.

Every *session* is a camera of its own (height, tilt, turn and offset drawn from the seed) rendered only
over the roll area (a crop of the 2028 x 1520 frame, same focal length, so a die keeps its ~40 px), with
the dice reader of that pose. Each frame of a session throws a dozen dice of random kinds, faces, turns and
colours (any hue: the seats' colours are not special) into the roll area, some touching, some tilted,
glaring or still moving, under a random lamp (2700-7500 K), light level, lens blur, glare, sensor noise and
JPEG quality. The reader's own candidate step (`DiceReader.candidates`) finds the dice and cuts their crops,
so training sees exactly what the reader will feed the network, centring errors included; a crop is kept
when exactly one true die lies within `MATCH_MM` of the found one.
"""

from __future__ import annotations

import colorsys
import math

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.dice import DiceReader
from vision.dice_faces import FACES, SIZE_MM
from vision.dice_net import class_names
from vision.synth import Renderer, TableScene
from vision.synth.dice import Die, area_pose, draw_die

KIND_WEIGHTS = {"diel": 0.12, "d6": 0.22, "d20": 0.66}  # the D20 (20 faces, small numerals) gets most crops
D20_WEIGHTS = {"diel": 0.04, "d6": 0.08, "d20": 0.88}  # the extra sessions that feed the D20's 20 numerals
# round 7's hard sessions: the cubes in dim light and glare (where report seeds lost them), D20s kept in the mix
HARD_WEIGHTS = {"diel": 0.3, "d6": 0.45, "d20": 0.25}
MATCH_MM = 6.0
CLASSES = class_names()


def random_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(float(rng.uniform(0, 1)), float(rng.uniform(0.45, 1.0)),
                                  float(rng.uniform(0.4, 1.0)))
    return (int(b * 255), int(g * 255), int(r * 255))


def throw(rng: np.random.Generator, area: tuple[float, float, float, float], count: int,
          kind_weights: dict[str, float] | None = None, glare_share: float = 0.3) -> list[Die]:
    """`count` dice spread over `area` (at least a die apart), a third with a touching neighbour, their kinds
    drawn with `kind_weights` (default `KIND_WEIGHTS`), `glare_share` of them with a specular spot."""
    x0, y0, x1, y1 = area
    kw = kind_weights or KIND_WEIGHTS
    kinds = list(kw)
    weights = np.array([kw[k] for k in kinds])
    dice: list[Die] = []

    def free(p: tuple[float, float], size: float) -> bool:
        inside = x0 + size / 2 <= p[0] <= x1 - size / 2 and y0 + size / 2 <= p[1] <= y1 - size / 2
        return inside and all(math.dist(p, d.at_mm) > (size + SIZE_MM[d.kind]) / 2 + 0.4 for d in dice)

    def make(kind: str, at: tuple[float, float]) -> Die:
        tilt = float(rng.uniform(4, 15)) if rng.random() < 0.3 else 0.0
        blur = float(rng.uniform(0.0, 1.5)) if rng.random() < 0.15 else 0.0
        glare = float(rng.uniform(0.3, 0.85)) if rng.random() < glare_share else 0.0
        faces = FACES[kind]
        return Die(kind, faces[int(rng.integers(len(faces)))], random_colour(rng), at, float(rng.uniform(0, 360)),
                   tilt, blur, glare)

    for _ in range(count * 20):
        if len(dice) >= count:
            break
        kind = kinds[int(rng.choice(3, p=weights / weights.sum()))]
        at = (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)))
        if not free(at, SIZE_MM[kind] + 6.0):
            continue
        dice.append(make(kind, at))
        if rng.random() < 0.35:
            other = kinds[int(rng.choice(3, p=weights / weights.sum()))]
            a = rng.uniform(0, 2 * math.pi)
            gap = (SIZE_MM[kind] + SIZE_MM[other]) / 2 + float(rng.uniform(0.0, 1.5))
            near = (at[0] + gap * math.cos(a), at[1] + gap * math.sin(a))
            if free(near, SIZE_MM[other]):
                dice.append(make(other, near))
    return dice


def session(seed: int, frames: int, kind_weights: dict[str, float] | None = None, hard: bool = False
            ) -> tuple[NDArray[np.float16], NDArray[np.int16]]:
    """The crops and class labels of one session (a camera pose) of `frames` frames, dice kinds drawn with
    `kind_weights` (default `KIND_WEIGHTS`). `hard`: the light is dim (0.35-0.7, more sensor noise) in half
    the frames and 60 % of the dice glare (round 7: where the cubes were lost)."""
    cv2.setNumThreads(1)
    rng = np.random.default_rng([seed, 2101])
    layout = table_layout(BoardMap.packaged())
    full = default_pose(layout, image_size=(2028, 1520), height_mm=float(rng.uniform(850, 1150)),
                        yaw_deg=float(rng.uniform(-180, 180)), tilt_deg=float(rng.uniform(0, 20)),
                        offset_mm=(float(rng.uniform(-150, 150)), float(rng.uniform(-100, 100))))
    pose = area_pose(full, layout)
    renderer = Renderer(layout, pose, {})
    reader = DiceReader(layout, pose, {}, renderer.render(TableScene({}), seed=seed), net=None)
    assert layout.roll_area_mm is not None
    xs: list[NDArray[np.float32]] = []
    ys: list[int] = []
    for f in range(frames):
        fseed = seed * 1000 + f
        dice = throw(rng, layout.roll_area_mm, int(rng.integers(14, 23)), kind_weights, 0.6 if hard else 0.3)
        clean, _ = renderer.compose(TableScene({}), fseed)
        for die in dice:
            draw_die(clean, renderer, die, rng)
        dim = hard and rng.random() < 0.5
        frame = renderer.finish(clean, fseed, lighting=float(rng.uniform(0.35, 0.7) if dim else rng.uniform(0.45, 1.3)),
                                noise=float(rng.uniform(1.2, 2.5) if dim else rng.uniform(0.5, 2.0)),
                                blur=float(rng.uniform(0.2, 1.2)) if rng.random() < 0.5 else 0.0,
                                jpeg_quality=int(rng.integers(60, 96)), kelvin=float(rng.uniform(2700, 7500)),
                                glare=int(rng.integers(0, 4)))
        found = reader.candidates(frame)
        if found is None:
            continue
        for c in found.dice:
            near = [d for d in dice if math.dist(d.at_mm, c.centre_mm) < MATCH_MM]
            if len(near) == 1:
                xs.append(c.crop)
                ys.append(CLASSES.index(f"{near[0].kind}:{near[0].face}"))
    if not xs:
        return np.zeros((0, 1, 1), np.float16), np.zeros(0, np.int16)
    return np.stack(xs).astype(np.float16), np.array(ys, np.int16)
