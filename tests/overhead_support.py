"""Shared set-up for the overhead-camera tests: the starter map on the mat, the default camera, a
renderer and a reference frame of the empty table (built once per test session)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from calibration.camera import CameraPose, default_pose
from calibration.layout import TableLayout
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.board import BoardReader
from vision.observation import StandObs
from vision.synth import Renderer, SlotCard, TableScene, Token

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


def half_resolution_table(seed: int, photo: bool) -> tuple[BoardReader, Renderer, np.ndarray, dict[str, Token]]:
    """A 1014x760 table of random pieces (60 % of the stands) and its reader after three clean warm-up
    frames: (reader, renderer, the composed clean table, the tokens), with the empty-table photo or not."""
    size = (1014, 760)
    lay = layout()
    r = Renderer(lay, default_pose(lay, image_size=size), PALETTE)
    tokens = random_tokens(np.random.default_rng(seed), fill=0.6)
    clean, _ = r.compose(TableScene(tokens), seed=seed)
    reader = BoardReader(lay, default_pose(lay, image_size=size), PALETTE,
                         r.render(TableScene({}), seed=seed + 500) if photo else None)
    for i in range(3):
        reader.read(r.finish(clean, seed=seed * 10 + i))
    return reader, r, clean, tokens


def stand_tally(stands: Mapping[str, StandObs], tokens: Mapping[str, Token]) -> tuple[int, int]:
    """(right, wrong) among the stands read (not obstructed, confidence >= 0.5) against the tokens."""
    right = wrong = 0
    for sid, o in stands.items():
        if o.obstructed or o.confidence < 0.5:
            continue
        tok = tokens.get(sid)
        want = ("empty", None) if tok is None else (tok.kind, tok.owner)
        right += (o.state, o.owner) == want
        wrong += (o.state, o.owner) != want
    return right, wrong


def random_slots(rng: np.random.Generator, tag: int, letter: str = "T") -> dict[str, list[SlotCard]]:
    """Random cards on the mat: face down (a payload naming ``letter``, ``tag`` and the slot), face up or,
    off the transit slots, landscape; about a fifth of the slots empty."""
    out: dict[str, list[SlotCard]] = {}
    for s in layout().slots:
        u = rng.random()
        if u < 0.45:
            out[s.id] = [SlotCard("down", f"kpks.us/{letter}{tag:03d}#{len(out):04d}?S{s.id}")]
        elif u < 0.65:
            out[s.id] = [SlotCard("up")]
        elif u < 0.8 and not s.id.startswith("transit"):
            out[s.id] = [SlotCard("landscape")]
    return out
