"""Kipukas through the game interface where that keeps behaviour identical (issue 22, item 3): the judge's
tools that read a game's state (`log state`, the score sheet, `game status`) replay any record to a
`TableGame` (`tracker.table.replay_any`) and read it through the interface; a Kipukas record gives the
same state text as Kipukas' own replay, and `game status` shows the interface's fields for every game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.core.interface import TableGame
from rules.core.registry import example
from rules.kipukas.board_map import BoardMap
from tests.table_helpers import new_table, say, set_up
from tests.test_run_command import deck_lines
from tracker.cli import main
from tracker.record.keys import load_or_create_key
from tracker.record.store import GameRecord
from tracker.table.games import GameTable
from tracker.table.replay import replay
from tracker.table.replay_any import KIPUKAS, replay_any


def test_any_record_replays_to_a_game_behind_the_interface(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    table.record.close()
    record = GameRecord(str(tmp_path / "game.sqlite"), readonly=True)
    for upto in (None, 3):
        done = replay_any(record, upto)
        own = replay(list(record.rows()), BoardMap.packaged(), upto=upto).game
        assert done.name == KIPUKAS and isinstance(done.game, TableGame)
        assert done.game.to_text() == own.to_text() and done.game.seats == tuple(own.state.players)
        assert done.mismatches == ()
    view = replay_any(record).game.view("spectator")
    assert view["game"] == "kipukas" and isinstance(view["claims"], dict)
    record.close()
    other = GameRecord(str(tmp_path / "kaiju.sqlite"), load_or_create_key(tmp_path / "state"))
    started = GameTable.start(other, "kaiju", example("kaiju"))
    done = replay_any(other)
    assert done.name == "kaiju" and done.game.to_text() == started.game.to_text()
    other.close()


def test_game_status_shows_the_interface_fields_for_a_kipukas_game(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "red.txt").write_text("\n".join(deck_lines(0)) + "\n")
    (tmp_path / "blue.txt").write_text("\n".join(deck_lines(100)) + "\n")
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nstate_dir = "{tmp_path / "state"}"\n[overhead]\nsource = "none"\n', encoding="utf-8")
    assert main(["game", "new", "--config", str(cfg), "--deck", f"red={tmp_path / 'red.txt'}",
                 "--deck", f"blue={tmp_path / 'blue.txt'}"]) == 0
    capsys.readouterr()
    assert main(["game", "status", "--config", str(cfg)]) == 0
    status = json.loads(capsys.readouterr().out)
    # the Kipukas fields as before, and the interface's, as every game shows them
    assert status["phase"] == "affinity" and status["result"] is None and set(status["hands"]) == {"red", "blue"}
    assert status["game"] == "kipukas" and status["view"]["game"] == "kipukas"
    assert status["prompts"] and all(p["player"] in ("red", "blue", None) for p in status["prompts"])
    hidden = status["view"]["players"]["red"]["deck"]
    assert isinstance(hidden, int) and hidden == 30  # the spectator's view: a count, never the cards
