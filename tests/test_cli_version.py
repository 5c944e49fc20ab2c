"""`kipukas-tracker --version` names the installed version; the command line names cards by title."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.kipukas.catalog import Catalog
from tracker.cli import installed_version, main
from tracker.front.names import card_label


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == f"kipukas-tracker {installed_version()}" and installed_version()[0].isdigit()


def test_deck_check_and_scan_name_the_cards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("kpks.us/HMPU#0004?BFxDCJ\nkpks.us/SWyA#0001?abc\n")
    assert main(["deck", "check", str(deck)]) == 0
    names = json.loads(capsys.readouterr().out)["names"]
    assert names[0].startswith("Hilbert") and "Gray Wolf: Harbinger of Night" in names[1]
    assert card_label("HMPU").startswith(f"{Catalog.packaged().card('HMPU').title} · ")
    assert card_label("zzzz") == "zzzz (not in the catalog)"
