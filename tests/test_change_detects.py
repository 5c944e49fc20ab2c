"""The overhead reader's change test (``vision.change``) sees every real change of the table: a piece of
each kind placed or removed, a soul token flipped, a card put down, turned or slid under the mat, under
blur, JPEG and dim light. A missed change would repeat a stale reading, which the reader must never do.
Seeds 41-42 here; ``bench/bench_change.py`` measures the margins on other seeds."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from tracker.runtime.demo import PALETTE
from vision.board import BoardReader
from vision.change import UNCHANGED_LEVELS, difference
from vision.synth import Renderer, SlotCard, TableScene, Token

CONDITIONS = {"blur": {"blur": 1.5}, "dim-jpeg": {"lighting": 0.6, "noise": 2.0, "blur": 1.0, "jpeg_quality": 60}}


@pytest.mark.parametrize("condition", sorted(CONDITIONS))
def test_every_real_change_scores_above_the_threshold(condition: str) -> None:
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    reference = renderer.render(TableScene({}), seed=999)
    stands, slots = [s.id for s in layout.stands], [s.id for s in layout.slots]
    tables = {"empty": TableScene({}),
              "soul": TableScene({s: Token("soul", "blue") for s in stands}),
              "soul-flipped": TableScene({s: Token("soul", "blue", 1, True) for s in stands}),
              "capital": TableScene({s: Token("capital", "red") for s in stands}),
              "basecamp": TableScene({s: Token("basecamp", "blue") for s in stands}),
              "down": TableScene({}, {s: [SlotCard("down", f"kipukas:{i}")] for i, s in enumerate(slots)}),
              "up": TableScene({}, {s: [SlotCard("up")] for s in slots}),
              "hidden": TableScene({}, {s: [SlotCard("hidden", f"kipukas:{i}")] for i, s in enumerate(slots)})}
    kept = {}
    for k, (name, scene) in enumerate(tables.items()):
        clean, _ = renderer.compose(scene, seed=41)
        reader = BoardReader(layout, pose, PALETTE, reference)
        reader.read(renderer.finish(clean, seed=42 + k, **CONDITIONS[condition]))  # type: ignore[arg-type]
        kept[name] = dict(reader.changes.before)

    def score(a: str, b: str, rid: str) -> float:
        return difference(kept[a][rid], kept[b][rid][0].astype(np.uint8))

    missed = []
    for a, b in [("empty", "soul"), ("soul", "empty"), ("empty", "capital"), ("capital", "empty"),
                 ("empty", "basecamp"), ("basecamp", "empty"), ("soul", "soul-flipped"), ("soul-flipped", "soul")]:
        missed += [(a, b, sid, round(score(a, b, sid), 2)) for sid in stands if score(a, b, sid) <= UNCHANGED_LEVELS]
    for a, b in [("empty", "down"), ("down", "up"), ("up", "empty"), ("down", "hidden"), ("hidden", "empty")]:
        for sid in slots:
            best = max(score(a, b, q) for q in (sid, f"under:{sid}") if q in kept[a])
            if best <= UNCHANGED_LEVELS:
                missed.append((a, b, sid, round(best, 2)))
    assert not missed
