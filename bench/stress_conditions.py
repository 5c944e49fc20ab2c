"""The table conditions of the overhead stress bench (``bench/bench_overhead_stress.py``): light, blur, JPEG,
resolution, camera bumps, foreign objects and token colours, each a category the reader must meet its targets
in, and the magnitudes its thresholds were tuned at (``TUNING_CONDITIONS``), kept apart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.layout import TableLayout
from training.patch_dice import DIE_MM, KINDS, StandDie
from vision.synth.clutter import Clutter
from vision.synth.dice import random_die
from vision.synth.scene import Token
from vision.synth.tokens import GEOMETRY

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}
CLOSE_PALETTE = {"purple": (150, 40, 140), "teal": (140, 140, 30)}  # near the map's magenta and green


@dataclass(frozen=True)
class Condition:
    name: str
    finish: dict[str, Any] = field(default_factory=dict)
    clutter: Callable[[TableLayout, np.random.Generator], list[Clutter]] | None = None
    hands: int = 0
    bump: tuple[float, float] | None = None  # (degrees, mm)
    size: tuple[int, int] | None = None
    palette: dict[str, tuple[int, int, int]] | None = None
    # real-looking dice (``vision.synth.dice``) put on stands after the scene is composed
    dice: Callable[[TableLayout, np.random.Generator, dict[str, Token]], list[StandDie]] | None = None


def _on_map(layout: TableLayout, rng: np.random.Generator) -> list[Clutter]:
    ox, oy = layout.map_origin_mm
    w, h = layout.map_size_mm
    return [Clutter("phone", (ox + w * rng.uniform(0.3, 0.7), oy + h * rng.uniform(0.3, 0.7), 22.0))]


def _die(layout: TableLayout, rng: np.random.Generator) -> list[Clutter]:
    s = layout.stands[int(rng.integers(len(layout.stands)))]
    x, y, z = layout.stand_world(s.id)
    return [Clutter("die", (x + rng.uniform(-3, 3), y + rng.uniform(-3, 3), z))]


def _player_die(layout: TableLayout, rng: np.random.Generator) -> list[Clutter]:
    """A die in a player's colour (issue 21: each player's dice are theirs) on a territory stand, empty or
    not: the stand whose pieces (a capital 16 mm square) a die's top (14-20 mm) can pass for."""
    territory = [s for s in layout.stands if s.kind == "territory"]
    s = territory[int(rng.integers(len(territory)))]
    x, y, z = layout.stand_world(s.id)
    colour = PALETTE[sorted(PALETTE)[int(rng.integers(len(PALETTE)))]]
    return [Clutter("die", (x + rng.uniform(-3, 3), y + rng.uniform(-3, 3), z), colour)]


def _rounded_die(layout: TableLayout, rng: np.random.Generator, tokens: dict[str, Token]) -> list[StandDie]:
    """A player's die as the real ones look (rounded D6 or diel die, D20; 12-20 mm; the owner's colour) on
    any stand, empty or on its piece's top: a soul's, base camp's or capital's size and outline (lies18)."""
    s = layout.stands[int(rng.integers(len(layout.stands)))]
    x, y, z = layout.stand_world(s.id)
    tok = tokens.get(s.id)
    if tok is not None:
        z += GEOMETRY["soul" if tok.kind == "soul" else tok.kind].height_mm
    colour = PALETTE[sorted(PALETTE)[int(rng.integers(len(PALETTE)))]]
    kind = KINDS[int(rng.integers(len(KINDS)))]
    size = float(rng.uniform(*DIE_MM))
    return [StandDie(random_die(kind, colour, (x + rng.uniform(-3, 3), y + rng.uniform(-3, 3)), rng), size, z, s.id)]


def _mat(layout: TableLayout, rng: np.random.Generator) -> list[Clutter]:
    picks = rng.choice(len(layout.slots), size=3, replace=False)
    out = []
    for kind, i in zip(("cup", "cardbox", "paper"), picks, strict=True):
        cx, cy = layout.slots[int(i)].centre_mm
        out.append(Clutter(kind, (cx + rng.uniform(-15, 15), cy + rng.uniform(-25, 25), 0.0)))
    return out


CONDITIONS = [
    Condition("clean"),
    Condition("warm 3000K", {"kelvin": 3000.0}),
    Condition("cool 7500K", {"kelvin": 7500.0}),
    Condition("hard shadow", {"shadow": 0.5}),
    Condition("glare spots", {"glare": 6}),
    Condition("blur 1", {"blur": 1.0}),
    Condition("blur 1.5", {"blur": 1.5}),
    Condition("blur 2", {"blur": 2.0}),
    Condition("jpeg q25", {"jpeg_quality": 25}),
    Condition("1014x760", size=(1014, 760)),
    Condition("1014x760 blur 2", {"blur": 2.0}, size=(1014, 760)),
    Condition("1014x760 q25", {"jpeg_quality": 25}, size=(1014, 760)),
    Condition("bump 1deg 5mm", bump=(1.0, 5.0)),
    Condition("bump 3deg 20mm", bump=(3.0, 20.0)),
    Condition("phone on map", clutter=_on_map),
    Condition("die on a stand", clutter=_die),
    Condition("player's die on a stand", clutter=_player_die),
    Condition("1014x760 q25 player's die", {"jpeg_quality": 25}, clutter=_player_die, size=(1014, 760)),
    Condition("rounded die on a stand", dice=_rounded_die),
    Condition("arm across map", hands=1),
    Condition("objects on mat", clutter=_mat),
    Condition("close colours", palette=CLOSE_PALETTE),
]

# the magnitudes the decision's thresholds were tuned at (``--tuning``), beside the categories above
TUNING_CONDITIONS = [
    Condition("jpeg q30", {"jpeg_quality": 30}),
    Condition("jpeg q20", {"jpeg_quality": 20}),
    Condition("1200x900", size=(1200, 900)),
    Condition("bump 2deg 15mm", bump=(2.0, 15.0)),
    Condition("bump 2deg 10mm", bump=(2.0, 10.0)),
    Condition("bump 0.5deg 3mm", bump=(0.5, 3.0)),
    Condition("warm 2700K", {"kelvin": 2700.0}),
    Condition("cool 7000K", {"kelvin": 7000.0}),
    Condition("phone on map", clutter=_on_map),
    Condition("arm across map", hands=1),
    Condition("1014x760 blur 1.8", {"blur": 1.8}, size=(1014, 760)),
    Condition("1014x760 blur 2.2", {"blur": 2.2}, size=(1014, 760)),
    Condition("1014x760 q30", {"jpeg_quality": 30}, size=(1014, 760)),
    Condition("1014x760 q20", {"jpeg_quality": 20}, size=(1014, 760)),
    Condition("1200x900 blur 2", {"blur": 2.0}, size=(1200, 900)),
    Condition("1200x900 q25", {"jpeg_quality": 25}, size=(1200, 900)),
    # the guard on the degraded-frame rule (``vision.stands.DEGRADED_UNEXPLAINED``): foreign objects in frames
    # blurrier than their models must stay flagged
    Condition("1014x760 q25 die", {"jpeg_quality": 25}, clutter=_die, size=(1014, 760)),
    Condition("1014x760 q20 die", {"jpeg_quality": 20}, clutter=_die, size=(1014, 760)),
    Condition("1014x760 q25 arm", {"jpeg_quality": 25}, hands=1, size=(1014, 760)),
    Condition("1014x760 q25 phone", {"jpeg_quality": 25}, clutter=_on_map, size=(1014, 760)),
    Condition("1014x760 blur 2 die", {"blur": 2.0}, clutter=_die, size=(1014, 760)),
    Condition("1014x760 blur 2 phone", {"blur": 2.0}, clutter=_on_map, size=(1014, 760)),
]
