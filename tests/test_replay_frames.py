"""Whole scripted games rendered by `vision.synth`, frame by frame with hands passing over the board,
end with the same record as the script itself played on exact boards: no phantom, no missed moves."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import DECKS, KEY, exact_mat
from tracker.record.store import GameRecord
from tracker.runtime.demo import DemoFrames, DemoTable, begin_step
from tracker.runtime.demo_script import demo_steps
from tracker.table.board import EMPTY, StandValue
from tracker.table.loop import OverheadLoop
from tracker.table.table import Table

pytestmark = pytest.mark.slow


def script_record(tmp_path: Path) -> list[tuple[str, str, bool]]:
    """The script applied to exact boards: what a perfect camera would produce."""
    demo_board = BoardMap.packaged()
    table = Table(demo_board, GameRecord(str(tmp_path / "truth.sqlite"), KEY), DECKS)
    for step in demo_steps():
        begin_step(table, step)
        board = {s: EMPTY for s in demo_board.stands}
        board.update({s: StandValue(k, o, c) for s, (k, o, c) in step.tokens.items()})
        table.observe(board)
        table.observe_mat(exact_mat(step))
    return [(e.source, e.text, e.accepted) for e in table.entries() if e.kind == "action"]


@pytest.mark.parametrize(("seed", "hands", "settled"), [(1, 3, 3), (2, 1, 4)])
def test_rendered_game_matches_the_script(tmp_path: Path, seed: int, hands: int, settled: int) -> None:
    expected = script_record(tmp_path)
    demo = DemoTable(fps=None, repeat=False, folder=tmp_path / f"run{seed}")
    loop = OverheadLoop(demo.table, demo.reader)
    for _, step, first, frame in DemoFrames(demo.renderer, demo_steps(), hands, settled, seed=seed).frames():
        if first:
            begin_step(demo.table, step)
        loop.process(frame)
    got = [(e.source, e.text, e.accepted) for e in demo.table.entries() if e.kind == "action"]
    assert got == expected
    assert demo.table.differences() == [] and demo.table.record.verify().ok
    assert any(not accepted for _, _, accepted in got)  # the script's illegal move is in both records
