"""The other games at a table: `[game] name` in table.toml, `game new --game`, and their signed,
hash-chained record that replays to the same state (`tracker.table.games.GameTable`)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rules.core.selfplay import choose
from tracker.cli import main
from tracker.config import ConfigError, parse_config
from tracker.record.keys import load_or_create_key, table_public_key
from tracker.record.store import GameRecord
from tracker.table.games import GameTable


def table_toml(tmp_path: Path, game: str, players: str = '["red", "blue"]', extra: str = "") -> Path:
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\nplayers = {players}\nstate_dir = "{tmp_path / "state"}"\n'
                    f'[overhead]\nsource = "none"\n[game]\nname = "{game}"\n{extra}', encoding="utf-8")
    return path


def test_the_game_is_chosen_per_table_and_errors_name_the_key() -> None:
    cfg = parse_config('[table]\nplayers = ["red", "blue", "green"]\n[game]\nname = "tilemap"\nmap = "arena"\n')
    assert cfg.game == "tilemap" and dict(cfg.game_params) == {"map": "arena"}
    assert parse_config("").game == "kipukas"
    assert parse_config('[table]\nplayers = ["red", "blue", "green"]\n').players == ("red", "blue", "green")
    with pytest.raises(ConfigError, match=r"\[table\] players: Kipukas seats two players \(red, blue\), or 3-4"):
        parse_config('[table]\nplayers = ["red", "green"]\n')
    with pytest.raises(ConfigError, match=r"\[game\] name: 'Kaiju!' is not a game name"):
        parse_config('[game]\nname = "Kaiju!"\n')
    with pytest.raises(ConfigError, match=r"\[game\] map: unknown key"):
        parse_config('[game]\nname = "kipukas"\nmap = "skirmish"\n')


def test_game_new_records_a_tilemap_game_and_status_reads_it(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    config = table_toml(tmp_path, "tilemap", extra='map = "skirmish"\n')
    assert main(["game", "new", "--config", str(config)]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["game"] == "tilemap" and made["players"] == ["red", "blue"] and made["rows"] == 1
    record = GameRecord(made["record"], load_or_create_key(tmp_path / "state"))
    table = GameTable.open(record)
    line = table.game.legal_actions("red")[0]
    assert table.act(line, "phone:red").accepted and not table.act("blue end", "phone:blue").accepted
    record.close()
    assert main(["game", "status", "--config", str(config)]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["verified"] and status["game"] == "tilemap" and status["rows"] == 3
    assert status["prompts"][0]["player"] == "red"
    assert isinstance(status["view"]["players"]["red"]["hand"], int)  # the status shows no hand


def test_game_new_refuses_an_unknown_game_and_a_bad_configuration(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    config = table_toml(tmp_path, "chess")
    assert main(["game", "new", "--config", str(config)]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    config = table_toml(tmp_path, "tilemap", extra='map = "moon"\n')
    assert main(["game", "new", "--config", str(config)]) == 2
    assert "no packaged tile map 'moon'" in capsys.readouterr().err
    assert not list((tmp_path / "state" / "records").glob("*.sqlite"))  # no record left behind
    config = table_toml(tmp_path, "kaiju")
    deck = tmp_path / "red.json"
    deck.write_text("{}", encoding="utf-8")
    assert main(["run", "--config", str(config), "--deck", f"red={deck}", "--deck", f"blue={deck}"]) == 2
    assert "--deck starts Kipukas games" in capsys.readouterr().err


def test_a_kaiju_record_is_signed_and_replays_with_undo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = table_toml(tmp_path, "kaiju", players='["red", "blue", "green"]')
    assert main(["game", "new", "--config", str(config)]) == 0
    path = json.loads(capsys.readouterr().out)["record"]
    state = tmp_path / "state"
    record = GameRecord(path, load_or_create_key(state))
    table = GameTable.open(record)
    rng = random.Random(4)
    for i in range(60):
        if i % 9 == 0:
            table.act("red fly", "phone:red")  # refused input is recorded too
        seat_line = choose(table.game.legal_actions(), rng, {"keep": 3.0})
        assert table.act(seat_line, f"phone:{seat_line.split()[0]}").accepted
    undone = table.undo("judge: a card was misread")
    before = table.game.to_text()
    record.close()
    reopened = GameRecord(path, readonly=True)
    assert reopened.verify(table_public_key(state)).ok
    again = GameTable.open(reopened)
    assert again.game.to_text() == before and again.game.history == table.game.history and undone
    assert main(["log", "verify", path]) == 0


def test_game_new_seats_deck_files_into_the_games_configuration(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from rules.core.registry import example

    made = example("kaiju", ["red", "blue"])["seats"]
    assert isinstance(made, dict)
    files = []
    for seat, other in (("red", "blue"), ("blue", "red")):  # each seat plays the other's packaged team
        path = tmp_path / f"{seat}.json"
        path.write_text(json.dumps(made[other]), encoding="utf-8")
        files += ["--deck", f"{seat}={path}"]
    assert main(["game", "new", "--config", str(table_toml(tmp_path, "kaiju")), *files]) == 0
    record = GameRecord(json.loads(capsys.readouterr().out)["record"], readonly=True)
    seats = next(record.rows()).body["config"]["seats"]
    assert seats["red"]["team"] == made["blue"]["team"] and seats["blue"]["team"] == made["red"]["team"]
    record.close()
    assert main(["game", "new", "--config", str(table_toml(tmp_path, "tilemap")), *files]) == 2
    assert "a tilemap game takes no deck files" in capsys.readouterr().err
