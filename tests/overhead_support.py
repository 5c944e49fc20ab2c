"""Shared set-up for the overhead-camera tests: the starter map on the mat, the default camera, a
renderer and a reference frame of the empty table (built once per test session)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from calibration.camera import CameraPose, default_pose
from calibration.layout import TableLayout
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.synth import Renderer, TableScene, Token

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}


@lru_cache(maxsize=1)
def layout() -> TableLayout:
    return table_layout(BoardMap.packaged())


@lru_cache(maxsize=4)
def pose(tilt: float = 0.0, yaw: float = 0.0) -> CameraPose:
    return default_pose(layout(), tilt_deg=tilt, yaw_deg=yaw)


@lru_cache(maxsize=4)
def renderer(tilt: float = 0.0, yaw: float = 0.0) -> Renderer:
    return Renderer(layout(), pose(tilt, yaw), PALETTE)


@lru_cache(maxsize=4)
def reference(tilt: float = 0.0, yaw: float = 0.0) -> np.ndarray:
    return renderer(tilt, yaw).render(TableScene({}), seed=12345)


def random_tokens(rng: np.random.Generator, fill: float = 0.8) -> dict[str, Token]:
    """A seeded table position: capitals and base camps only on territory stands, soul tokens anywhere."""
    toks: dict[str, Token] = {}
    for s in layout().stands:
        if rng.random() >= fill:
            continue
        kind = str(rng.choice(["capital", "basecamp", "soul"])) if s.kind == "territory" else "soul"
        owner = str(rng.choice(sorted(PALETTE)))
        toks[s.id] = Token(kind, owner, flipped=bool(kind == "soul" and rng.random() < 0.3))
    return toks
