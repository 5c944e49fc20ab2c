"""A three-seat Kipukas game on the tracker: `game new` with three decks, played from the notation, replayed
from the signed record (phones for 3-4 seats are not built yet: docs/rules-engine.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.kipukas.catalog import Catalog
from tracker.cli import main
from tracker.config import load_config
from tracker.runtime.appliance import current_game, load_board, open_game
from tracker.service.seats import SPECTATOR, player
from tracker.service.service import TableService


def deck_lines(serial_base: int) -> list[str]:
    """A legal 30-card deck: one of each character, two of each species (distinct serials)."""
    cards = Catalog.packaged().cards.values()
    lines = [f"kpks.us/{c.code}#{serial_base + 1:04d}?t{serial_base}" for c in cards if c.type == "Character"]
    for c in cards:
        if c.type == "Species":
            lines += [f"kpks.us/{c.code}#{serial_base + n:04d}?s{n}" for n in (1, 2)]
    return lines[:30]


def test_game_new_with_three_decks_starts_mass_conflict_played_from_the_notation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nplayers = ["red", "blue", "green"]\nstate_dir = "{tmp_path / "state"}"\n'
                      '[overhead]\nsource = "none"\n', encoding="utf-8")
    decks = []
    for i, seat in enumerate(("red", "blue", "green")):
        path = tmp_path / f"{seat}.txt"
        path.write_text("\n".join(deck_lines(100 * (i + 1))) + "\n", encoding="utf-8")
        decks += ["--deck", f"{seat}={path}"]
    assert main(["game", "new", "--config", str(config), *decks[:4], "--style", "mass-conflict"]) == 2
    assert "one deck per seat (red, blue, green)" in capsys.readouterr().err
    assert main(["game", "new", "--config", str(config), *decks]) == 2  # domination: two seats only
    assert "3-4 seats: style mass-conflict" in capsys.readouterr().err
    assert main(["game", "new", "--config", str(config), *decks, "--style", "mass-conflict"]) == 0
    capsys.readouterr()
    cfg = load_config(config)
    path = current_game(tmp_path / "state")
    assert path is not None
    table = open_game(path, tmp_path / "state", load_board(cfg))
    try:
        for line in ["red affinity Avian", "blue affinity Decrepit", "green affinity Brutal", "red roll d6 2",
                     "blue roll d6 5", "green roll d6 3", "blue capital 4", "green capital 2", "red capital 1"]:
            entry = table.act("judge", line)
            assert entry.accepted, (line, entry)
        assert not table.act("judge", "yellow camp 5").accepted  # no yellow seat at this table
        service = TableService(table)  # the per-viewer projection copes with a third seat (phones come later)
        assert service.seats.players == ("blue", "green", "red")
        for viewer in (player("green"), player("red"), SPECTATOR):
            assert service.snapshot(viewer)["phase"] == "camps"
    finally:
        table.close()
    assert main(["game", "status", "--config", str(config)]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["phase"] == "camps" and status["active"] == "blue"
    assert status["claims"] == {"1": "red capital", "2": "green capital", "4": "blue capital"}
    assert sorted(status["hands"]) == ["blue", "green", "red"]
