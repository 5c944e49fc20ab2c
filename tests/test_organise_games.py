"""The organiser's page starts a game of another kind than Kipukas too (issue 22, item 5): on a table
serving such a game, a judge chooses the game (any of the registry but Kipukas, whose table needs its
cameras' runtime), optionally pastes or uploads a seat's JSON deck, and the pages follow the new record
as after `game new`; bad input is refused naming what, and leaves nothing behind."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rules.kaiju.decks import preconstructed
from rules.kipukas.board_map import BoardMap
from tests.table_helpers import DECKS, KEY
from tracker.cli import main
from tracker.config import parse_config
from tracker.record.store import GameRecord
from tracker.runtime.appliance import TableRuntime, current_game
from tracker.runtime.game_runtime import GameRuntime
from tracker.table.games import start_row
from tracker.table.table import Table
from web.app import create_app


def test_a_judge_starts_another_game_from_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nplayers = ["red", "blue"]\nstate_dir = "{state}"\n[overhead]\nsource = "none"\n'
                      '[game]\nname = "tilemap"\nmap = "skirmish"\n', encoding="utf-8")
    assert main(["game", "new", "--config", str(config)]) == 0
    first = current_game(state)
    assert first is not None
    runtime = GameRuntime(parse_config(config.read_text(encoding="utf-8")), first, state)
    try:
        app, _ = create_app(runtime.service)
        http = app.test_client()
        key = runtime.service.judge_key()
        page = http.get("/organise").get_data(as_text=True)
        assert 'name="game"' in page and '<option value="kaiju">' in page and 'value="kipukas"' not in page
        assert http.post("/organise/new", data={"game": "kaiju"}).status_code == 403
        for form, error in (({"game": "kipukas"}, "unknown game 'kipukas'"),
                            ({"game": "kaiju", "red_deck": "{not json"}, "red's deck: not a JSON deck"),
                            ({"game": "kaiju", "red_deck": '{"team": "DEFAULT"}'}, "cannot start a game"),
                            ({"game": "tilemap", "red_deck": "{}"}, "a tilemap game takes no decks")):
            bad = http.post("/organise/new", data={"k": key, **form})
            assert bad.status_code == 400 and error in bad.get_json()["error"], bad.get_json()
            assert current_game(state) == first, "a refused game leaves the game in progress"
        deck = preconstructed(2)["seats"]
        assert isinstance(deck, dict)
        red = json.dumps(next(iter(deck.values())))
        ok = http.post("/organise/new", data={"k": key, "game": "kaiju",
                                              "red_file": (io.BytesIO(red.encode()), "red.json")},
                       content_type="multipart/form-data")
        assert ok.status_code == 200, ok.get_json()
        out = ok.get_json()
        assert out["ok"] and out["game"] == "kaiju" and out["players"] == ["red", "blue"]
        new = current_game(state)
        assert new is not None and new != first and new.name == out["record"]
        # the pages follow it, as after `game new` (the runtime's heartbeat calls this every second)
        assert runtime.switch_game() and runtime.service.game == "kaiju"
        started = start_row(runtime.table.record)
        assert started is not None and started.config["seats"]["red"] == json.loads(red)
        assert len(list(state.joinpath("records").glob("game-*.sqlite"))) == 2  # refusals left no file
    finally:
        runtime.close()


def test_a_kipukas_table_page_refuses_another_game_naming_the_command(tmp_path: Path) -> None:
    cfg = parse_config("[recording]\nkeyframes = false\n")
    table = Table(BoardMap.packaged(), GameRecord(str(tmp_path / "old.sqlite"), KEY), DECKS)
    runtime = TableRuntime(cfg, table, tmp_path)
    try:
        app, _ = create_app(runtime.service)
        http = app.test_client()
        assert 'name="game"' not in http.get("/organise").get_data(as_text=True)
        bad = http.post("/organise/new", data={"k": runtime.service.judge_key(), "game": "kaiju"})
        assert bad.status_code == 400 and "game new --game kaiju" in bad.get_json()["error"]
        assert current_game(tmp_path) is None
    finally:
        runtime.close()
        table.close()
