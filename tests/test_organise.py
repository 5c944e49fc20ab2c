"""The organiser's page starts a new game without SSH: decks pasted or uploaded per seat, checked by the
rules, a new record made the game in progress, the pages switched to it."""

from __future__ import annotations

import io
from pathlib import Path

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import DECKS, KEY
from tests.test_run_command import deck_lines
from tracker.config import parse_config
from tracker.record.store import GameRecord
from tracker.runtime.appliance import TableRuntime, current_game
from tracker.table.table import Table
from web.app import create_app


def test_a_judge_starts_a_new_game_from_the_page(tmp_path: Path) -> None:
    cfg = parse_config("[recording]\nkeyframes = false\n")
    table = Table(BoardMap.packaged(), GameRecord(str(tmp_path / "old.sqlite"), KEY), DECKS)
    runtime = TableRuntime(cfg, table, tmp_path)
    service = runtime.service
    app, _ = create_app(service)
    http = app.test_client()
    key = service.judge_key()
    red, blue = "\n".join(deck_lines(0)), "\n".join(deck_lines(100))
    assert http.post("/organise/new", data={"red_deck": red, "blue_deck": blue}).status_code == 403
    bad = http.post("/organise/new", data={"k": key, "red_deck": red, "blue_deck": red})
    assert bad.status_code == 400 and "listed twice" in bad.get_json()["error"]
    assert current_game(tmp_path) is None, "a refused game leaves nothing behind"
    ok = http.post("/organise/new", data={"k": key, "red_deck": red,
                                          "blue_file": (io.BytesIO(blue.encode()), "blue.txt")},
                   content_type="multipart/form-data")
    assert ok.status_code == 200 and ok.get_json()["ok"], ok.get_json()
    assert current_game(tmp_path) is not None and service.table is runtime.table is not table
    assert service.table.game.state.phase == "affinity" and len(service.table.start["decks"]["blue"]) == 30
    assert http.get("/organise").status_code == 200
