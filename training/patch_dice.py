"""Real-looking players' dice on stands, for the patch classifier's "rounded dice" scenes (issue 13, lies19).

``training.patch_data.player_dice`` (lies17) draws a player's die as ``vision.synth.clutter`` does: a sharp
cube with a flat top, or a flat D20 hexagon. The project's real dice are rounded (``vision.synth.dice``: the
D6 and the diel die a sphere-cut cube with a recessed circle, the D20 an icosahedron seen from above), and
such a die on an empty territory or movement stand was read as a confident soul, base camp or capital in
58 of 141 frames (lies18, ``bench/bench_player_dice.py``): the network never saw one. These dice are
drawn after the scene is composed, each resting on a stand (empty or holding a piece) in its owner's colour
or near it, ``DIE_MM`` wide; the stand it rests on is labelled unknown (something that is not a piece is on
it), whatever share of the stand's top it hides.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.layout import TableLayout
from vision.dice_faces import SHAPE, SIZE_MM
from vision.synth import Renderer, TableScene
from vision.synth.dice import Die, draw_die, random_die
from vision.synth.tokens import GEOMETRY
from vision.warp import Mat3

ROUNDED_DICE = (1, 4)  # a scene's rounded dice, at least / fewer than
DIE_MM = (12.0, 20.0)  # a real die's edge (D6, diel) or width (D20)
KINDS = ("d6", "diel", "d20")
ON_PIECE = 0.3  # share of the dice put on a stand that holds a piece (on its top)
NEAR_COLOUR = 0.35  # share of the dice in a colour near, not equal to, their owner's


@dataclass(frozen=True)
class StandDie:
    """A rounded die resting on stand ``stand`` (its bottom at ``z_mm``, the stand's top or a piece's)."""

    die: Die
    size_mm: float
    z_mm: float
    stand: str


class Raised:
    """A renderer's planes raised by ``z0_mm``: ``draw_die`` draws from the table top (z 0), a stand is higher."""

    def __init__(self, renderer: Renderer, z0_mm: float) -> None:
        self.renderer = renderer
        self.z0_mm = z0_mm
        self.px_per_mm = renderer.px_per_mm

    def plane(self, z_mm: float) -> Mat3:
        return self.renderer.plane(z_mm + self.z0_mm)


@contextmanager
def die_size(kind: str, size_mm: float) -> Iterator[None]:
    """``vision.synth.dice`` draws every die of a kind at the project's size; a player's may be another."""
    saved = SIZE_MM[kind]
    SIZE_MM[kind] = size_mm
    try:
        yield
    finally:
        SIZE_MM[kind] = saved


def near_colour(colour: tuple[int, int, int], rng: np.random.Generator) -> tuple[int, int, int]:
    """A colour a few hue steps from ``colour``, a little more or less saturated and bright."""
    hsv = cv2.cvtColor(np.array([[colour]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0].astype(np.float64)
    hsv[0] = (hsv[0] + rng.uniform(-8, 8)) % 180
    hsv[1:] = np.clip(hsv[1:] * rng.uniform(0.85, 1.15, 2), 0, 255)
    b, g, r = (int(v) for v in cv2.cvtColor(np.array([[hsv]], np.uint8), cv2.COLOR_HSV2BGR)[0, 0])
    return (b, g, r)


def rounded_dice(layout: TableLayout, scene: TableScene, palette: dict[str, tuple[int, int, int]],
                 rng: np.random.Generator, free: set[str], d20_share: float | None = None) -> list[StandDie]:
    """Rounded dice on territory and movement stands among ``free`` (nothing else over them): mostly on
    empty stands, ``ON_PIECE`` of them on a piece's top. The three kinds are equally likely; ``d20_share``:
    that share of the dice are D20s instead (the D20 seen from above is nearly a soul's outline, and a
    third of the dice were too few for the network to tell them apart, lies19)."""
    empty = sorted(s.id for s in layout.stands if s.id in free and s.id not in scene.tokens)
    held = sorted(s.id for s in layout.stands if s.id in free and s.id in scene.tokens)
    out: list[StandDie] = []
    for _ in range(int(rng.integers(*ROUNDED_DICE))):
        pool = held if held and (rng.random() < ON_PIECE or not empty) else empty
        if not pool:
            break
        sid = pool.pop(int(rng.integers(len(pool))))
        x, y, z = layout.stand_world(sid)
        tok = scene.tokens.get(sid)
        if tok is not None:
            z += GEOMETRY["soul" if tok.kind == "soul" else tok.kind].height_mm
        colour = palette[str(rng.choice(sorted(palette)))]
        if rng.random() < NEAR_COLOUR:
            colour = near_colour(colour, rng)
        if d20_share is None:
            kind = KINDS[int(rng.integers(len(KINDS)))]
        else:
            kind = "d20" if rng.random() < d20_share else KINDS[int(rng.integers(KINDS.index("d20")))]
        size = float(rng.uniform(*DIE_MM))
        die = random_die(kind, colour, (x + rng.uniform(-3, 3), y + rng.uniform(-3, 3)), rng)
        out.append(StandDie(die, size, z, sid))
    return out


def footprint(r: Renderer, d: StandDie) -> NDArray[np.float64]:
    """The pixels' outline of the die from its bottom to its top (a circle around its widest extent)."""
    x, y = d.die.at_mm
    height = d.size_mm * (0.95 if SHAPE[d.die.kind] == "cube" else 0.9)
    a = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    ring = np.column_stack([x + d.size_mm / 2 * 1.1 * np.cos(a), y + d.size_mm / 2 * 1.1 * np.sin(a)])
    pts = np.vstack([np.column_stack([ring, np.full(len(ring), d.z_mm + z)]) for z in (0.0, height)])
    return np.asarray(cv2.convexHull(np.round(r.project(pts)).astype(np.float32)).reshape(-1, 2), np.float64)


def draw_rounded(frame: NDArray[np.uint8], mask: NDArray[np.uint8], r: Renderer, dice: list[StandDie],
                 rng: np.random.Generator) -> None:
    """Draw ``dice`` into ``frame`` as ``r``'s camera sees them and mark what they hide in ``mask``."""
    for d in dice:
        with die_size(d.die.kind, d.size_mm):
            draw_die(frame, cast(Renderer, Raised(r, d.z_mm)), d.die, rng)
        cv2.fillPoly(mask, [np.round(footprint(r, d)).astype(np.int32)], 255)
