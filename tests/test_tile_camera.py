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
    reader = BoardReader(layout, pose, PALETTE, reference, veto=False)  # as the tile camera builds it
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
    # The MILITIA moved c1 -> c2 on the table: its one legal move is declared for red. (The reader is
    # shown reading rendered frames above and in the runtime test; these readings are written directly.)
    after = {**seen, "c1": None, "c2": "red"}
    rows = table.observe(after)
    assert [(r.kind, r.source, r.body.get("text")) for r in rows][1:] == [("action", "overhead", "red move c1-c2")]
    assert rows[1].body["accepted"] and table.game.view("judge")["stack"] == ["red move c1-c2"]
    assert table.act("red pass", "phone:red").accepted and table.act("blue pass", "phone:blue").accepted
    assert table.observe(after) == []  # the same reading once the move resolved: nothing new
    assert table.differences == []
    # A new red token on a spawn tile: the camera cannot tell which card, so red is asked, with the lines.
    rows = table.observe({**after, "a1": "red"})
    assert [r.kind for r in rows] == ["board"] and table.questions == [
        ("red", "the camera sees a new red unit on a1: which card?", ("red play MILITIA a1",))]
    # A blue token where blue has no unit and cannot play: a difference and a question for a judge, no action.
    rows = table.observe({**after, "e4": "blue"})
    assert [r.kind for r in rows] == ["board"] and table.differences == [
        "e4: the camera sees a blue token, the record has nothing"]
    assert table.questions and table.questions[0][0] is None
    # A hand over the board: tiles under it are unknown, never read as empty.
    frame, truth = renderer.render_with_truth(TableScene(here, hands=1), seed=21)
    covered = units_seen(reader.read(frame))
    hidden = {t for t, share in truth.occluded.items() if share > 0.05}
    assert hidden and not hidden & set(covered)
    path = record.path
    record.close()
    again = GameRecord(path, readonly=True)
    assert replay(again).to_text() == table.game.to_text()  # the camera's actions replay like any row
    again.close()


def test_a_tile_table_runtime_reads_its_camera_recording_into_the_record(tmp_path: Path) -> None:
    """`run`'s runtime for a tile-map table with `[overhead]` set: a recorded folder of frames, the pose from
    the calibration file, the stabiliser, and the reading's one legal move recorded from the camera."""
    import threading
    import time

    import cv2

    from calibration.calfile import Calibration
    from tracker.config import parse_config
    from tracker.runtime.game_runtime import GameRuntime

    _, pose, renderer, _ = setup()
    frames = tmp_path / "overhead"
    frames.mkdir()
    start = {"d1": Token("capital", "red"), "d7": Token("capital", "blue")}
    moved = {"d2": Token("capital", "red"), "d7": Token("capital", "blue")}
    for n, scene in enumerate((start, moved)):
        cv2.imwrite(str(frames / f"{n:03d}.png"), renderer.render(TableScene(scene), seed=40 + n))
    Calibration(pose, "manual", 0.0, 0).save(tmp_path / "calibration.json")
    cv2.imwrite(str(tmp_path / "calibration.empty.png"), setup()[3])  # the empty board, same pose
    cfg = parse_config(f'[table]\nplayers = ["red", "blue"]\n[overhead]\nsource = "folder"\npath = "{frames}"\n'
                       f'fps = 20\n[tracking]\ncalibration = "{tmp_path / "calibration.json"}"\nframes_to_agree = 1\n'
                       '[game]\nname = "tilemap"\nmap = "skirmish"\n')
    state = tmp_path / "state"
    record = GameRecord(str(tmp_path / "t.sqlite"), load_or_create_key(state))
    table = GameTable.start(record, "tilemap", {"map": "skirmish", "seats": ["red", "blue"]})
    for line in ("red draw MILITIA", "red draw MILITIA", "red draw SPARK", "red draw ARCHER"):
        assert table.act(line, "phone:red").accepted
    record.close()
    stop = threading.Event()
    runtime = GameRuntime(cfg, tmp_path / "t.sqlite", state, stop=stop)
    threads = runtime.start()
    try:
        end = time.monotonic() + 30
        while time.monotonic() < end and runtime.table.game.view("judge")["stack"] != ["red move d1-d2"]:
            time.sleep(0.1)
        rows = list(runtime.table.record.rows(after=5))
        assert [(r.kind, r.source) for r in rows] == [("board", "overhead"), ("board", "overhead"),
                                                      ("action", "overhead")], rows
        assert rows[-1].body["text"] == "red move d1-d2" and rows[-1].body["accepted"]
    finally:
        stop.set()
        for thread in threads:  # never close the record (or exit) under the camera thread inside a read
            if thread.name == "overhead camera":
                thread.join(timeout=15)
        runtime.close()
