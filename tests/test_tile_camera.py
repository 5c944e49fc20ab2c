"""The overhead camera on the tile-map game: a tile layout file places one calibrated region per tile,
the same per-region reader as for Kipukas stands reads rendered unit tokens on tiles, and the game turns
the reading into its one legal move, a question (which card?) or a difference, never a guess."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import CameraPose, default_pose
from calibration.errors import CalibrationFileError
from calibration.layout import TableLayout
from rules.core.interface import ReadsBoard
from tracker.overhead.tiles import load, units_seen
from tracker.record.keys import load_or_create_key
from tracker.record.store import GameRecord
from tracker.table.games import GameTable, replay
from vision.board import BoardReader
from vision.synth import Renderer, TableScene, Token

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}


@lru_cache(maxsize=1)
def setup() -> tuple[TableLayout, CameraPose, Renderer, np.ndarray]:
    layout = load("skirmish").table_layout()
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    return layout, pose, renderer, renderer.render(TableScene({}), seed=1)


def tokens(board: list[dict[str, object]]) -> dict[str, Token]:
    return {str(p["tile"]): Token("capital", str(p["controller"])) for p in board}


def test_layout_files_are_validated_naming_file_and_key(tmp_path: Path) -> None:
    assert len(load("arena").tiles()) == 81 and load("skirmish").centre_mm("a1") == (20.0, 140.0)
    bad = tmp_path / "bad.json"
    for data, key in (({"format": "tilemap-layout/1", "map": "x", "columns": 7, "rows": 7, "size_mm": [160, 160],
                        "first_tile_mm": [20, 140], "pitch_mm": 20, "token_mm": 24, "height_mm": 10}, "token_mm"),
                      ({"format": "tilemap-layout/1", "map": "x", "columns": 9, "rows": 7, "size_mm": [160, 160],
                        "first_tile_mm": [20, 140], "pitch_mm": 20, "token_mm": 14, "height_mm": 10},
                       "first_tile_mm"),
                      ({"format": "tilemap-layout/2"}, "format"),
                      ({"format": "tilemap-layout/1", "colour": 1}, "colour")):
        bad.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(CalibrationFileError, match=rf"bad.json: {key}: "):
            load(str(bad))
    with pytest.raises(CalibrationFileError, match="no packaged tile layout 'moon'"):
        load("moon")


def test_the_camera_reads_units_on_tiles_and_the_game_takes_the_one_legal_move(tmp_path: Path) -> None:
    layout, pose, renderer, reference = setup()
    record = GameRecord(str(tmp_path / "t.sqlite"), load_or_create_key(tmp_path))
    table = GameTable.start(record, "tilemap", {"map": "skirmish", "seats": ["red", "blue"]})
    assert isinstance(table.game, ReadsBoard)
    reader = BoardReader(layout, pose, PALETTE, reference)
    # Red's upkeep draws, a MILITIA played on c1 and resolved: the record's board has three units.
    for line in ("red draw MILITIA", "red draw MILITIA", "red draw SPARK", "red draw ARCHER", "red play MILITIA c1",
                 "red pass", "blue pass"):
        assert table.act(line, "phone:red" if line.startswith("red") else "phone:blue").accepted, line
    board = table.view("judge")["board"]
    assert isinstance(board, list) and {p["tile"] for p in board} == {"c1", "d1", "d7"}
    here = tokens(board)
    seen = units_seen(reader.read(renderer.render(TableScene(here), seed=2)))
    assert seen == {t: here[t].owner if t in here else None for t in load("skirmish").tiles()}
    assert table.observe(seen)[0].kind == "board" and table.differences == [] and table.questions == []
    # The MILITIA moved c1 -> c2 on the table: its one legal move is declared for red.
    moved = {**{k: v for k, v in here.items() if k != "c1"}, "c2": Token("capital", "red")}
    after = units_seen(reader.read(renderer.render(TableScene(moved), seed=3)))
    rows = table.observe(after)
    assert [(r.kind, r.source, r.body.get("text")) for r in rows][1:] == [("action", "overhead", "red move c1-c2")]
    assert rows[1].body["accepted"] and table.game.view("judge")["stack"] == ["red move c1-c2"]
    assert table.act("red pass", "phone:red").accepted and table.act("blue pass", "phone:blue").accepted
    assert table.observe(after) == []  # the same reading once the move resolved: nothing new
    assert table.differences == []
    # A blue token where blue has no unit and cannot play: a difference and a question for a judge, no action.
    odd = {**moved, "e4": Token("capital", "blue")}
    rows = table.observe(units_seen(reader.read(renderer.render(TableScene(odd), seed=5))))
    assert [r.kind for r in rows] == ["board"] and table.differences == [
        "e4: the camera sees a blue token, the record has nothing"]
    assert table.questions and table.questions[0][0] is None
    # A hand over the board: tiles under it are unknown, never read as empty.
    frame, truth = renderer.render_with_truth(TableScene(moved, hands=1), seed=21)
    covered = units_seen(reader.read(frame))
    hidden = {t for t, share in truth.occluded.items() if share > 0.05}
    assert hidden and not hidden & set(covered)
    path = record.path
    record.close()
    again = GameRecord(path, readonly=True)
    assert replay(again).to_text() == table.game.to_text()  # the camera's actions replay like any row
    again.close()
