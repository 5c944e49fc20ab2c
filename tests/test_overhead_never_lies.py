"""The overhead reader never lies: a seeded subset of the stress bench (other seeds than the ones its
thresholds were tuned on), a board too dark to read, a camera knocked after set-up, and token colours the
map itself shows."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from rules.kipukas.board_map import BoardMap
from tests.overhead_support import PALETTE, layout, pose, random_tokens, reference, renderer
from tests.table_helpers import DECKS, KEY
from tracker.record.store import GameRecord
from tracker.table.loop import OverheadLoop
from tracker.table.table import Table
from vision.board import BoardReader
from vision.palette import palette_problems
from vision.synth import Renderer, TableScene, Token
from vision.synth.bump import bumped_pose
from vision.synth.clutter import Clutter

ROOT = Path(__file__).resolve().parents[1]


def stress_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_overhead_stress", ROOT / "bench" / "bench_overhead_stress.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_overhead_stress", mod)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
@pytest.mark.parametrize("name", ["warm 3000K", "hard shadow", "phone on map", "die on a stand", "bump 3deg 20mm",
                                  "arm across map", "objects on mat"])
def test_stress_condition_accepts_no_wrong_reading(name: str) -> None:
    bench = stress_bench()
    cond = next(c for c in bench.CONDITIONS if c.name == name)
    args = argparse.Namespace(tables=1, frames=3, warmup=3, seed=23, before=False, qr_budget=bench.QR_BUDGET_S)
    renderers: dict[Any, Renderer] = {}
    for mode, t in bench.run_condition(cond, layout(), args, renderers).items():
        accepted = [m for m in t.misses if "ACCEPTED" in m]
        assert t.wrong_accepted == 0, f"{name}, {mode}: {accepted}"
        assert t.covered_flagged == t.covered_n, f"{name}, {mode}: a covered region was read"
        assert t.stand_ok >= 0.8 * t.stand_n, f"{name}, {mode}: {t.stand_ok}/{t.stand_n} stands read"


def test_a_phone_on_the_map_is_unknown_not_empty() -> None:
    toks = random_tokens(np.random.default_rng(31), fill=0.5)
    r = renderer()
    reader = BoardReader(layout(), pose(), PALETTE)  # as `run` builds it: no photo of the empty table
    clean, _ = r.compose(TableScene(toks), seed=31)
    for i in range(3):
        reader.read(r.finish(clean, seed=310 + i))
    ox, oy = layout().map_origin_mm
    w, h = layout().map_size_mm
    frame, truth = r.render_with_truth(TableScene(toks, clutter=[Clutter("phone", (ox + w / 2, oy + h / 2, 22.0))]),
                                       seed=32)
    obs = reader.read(frame)
    covered = [sid for sid in obs.stands if truth.occluded[sid] > 0.25]
    assert len(covered) >= 4
    for sid in covered:
        o = obs.stands[sid]
        assert o.obstructed and o.confidence == 0.0 and o.reason, sid


def test_too_dark_board_is_unreadable_and_makes_no_move(tmp_path: Path) -> None:
    board = BoardMap.packaged()
    table = Table(board, GameRecord(str(tmp_path / "rec.sqlite"), KEY), DECKS)
    reader = BoardReader(layout(), pose(), PALETTE, reference())
    loop = OverheadLoop(table, reader)
    toks = {"T1": Token("capital", "red")}
    r = renderer()
    for seed in range(3):
        loop.process(r.render(TableScene(toks), seed=40 + seed))
    before = dict(table.observed)
    moved = {"T1": Token("capital", "red"), "T2": Token("basecamp", "blue")}
    for seed in range(4):
        dark = (r.render(TableScene(moved), seed=50 + seed).astype(np.float32) * 0.12).astype(np.uint8)
        obs = reader.read(dark)
        assert obs.unreadable == "too dark"
        loop.process(dark)
    assert loop.stabiliser.board().get("T2") is None or loop.stabiliser.board()["T2"].empty
    assert [w for w in table.warnings if w.startswith("board unreadable")] == ["board unreadable: too dark"]
    assert table.observed == before
    for seed in range(3):
        loop.process(r.render(TableScene(moved), seed=60 + seed))
    assert "board readable again" in table.warnings
    assert loop.stabiliser.board()["T2"].kind == "basecamp"


def test_a_knocked_camera_is_followed() -> None:
    toks = random_tokens(np.random.default_rng(41), fill=0.6)
    reader = BoardReader(layout(), pose(), PALETTE, reference())
    reader.read(renderer().render(TableScene(toks), seed=41))
    knocked = Renderer(layout(), bumped_pose(pose(), 2.0, 12.0, np.random.default_rng(42)), PALETTE)
    obs = reader.read(knocked.render(TableScene(toks), seed=43))
    assert reader.motion is not None and reader.motion.moved()
    read = {sid: (o.state, o.owner) for sid, o in obs.stands.items() if not o.obstructed}
    want = {sid: ("empty", None) if sid not in toks else (toks[sid].kind, toks[sid].owner) for sid in read}
    assert read == want
    assert len(read) >= 0.9 * len(obs.stands)


def test_colours_the_map_shows_are_refused_with_suggestions() -> None:
    frame = Renderer(layout(), pose(), {"purple": (150, 40, 140), "red": (40, 40, 210)}).render(
        TableScene({"T7": Token("capital", "purple"), "T4": Token("capital", "red")}), seed=3)
    problems = palette_problems({"purple": (150, 40, 140), "red": (40, 40, 210)}, frame, layout(), pose(),
                                {"T7": "purple", "T4": "red"})
    assert any("purple's colour is too close to the map" in p for p in problems)
    assert not any(p.startswith("red") for p in problems)
    assert problems[-1].startswith("try pieces in ") and "blue" in problems[-1] and "purple" not in problems[-1]
    near = palette_problems({"red": (40, 40, 210), "crimson": (50, 45, 200)}, frame, layout(), pose())
    assert any("crimson and red are too close to each other" in p for p in near)
    assert palette_problems(PALETTE, reference(), layout(), pose()) == []


def test_reader_keeps_its_words_for_what_it_cannot_read() -> None:
    reader = BoardReader(layout(), pose(), PALETTE, reference())
    obs = reader.read((reference().astype(np.float32) * 0.1).astype(np.uint8))
    assert obs.unreadable == "too dark"
    assert all(o.state == "unknown" and o.obstructed and o.reason == "too dark" for o in obs.stands.values())
