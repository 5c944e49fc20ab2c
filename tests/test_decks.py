"""Deck validation (#deck_structure) and the `deck check` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.kipukas.catalog import Catalog
from rules.kipukas.decks import COPY_LIMITS, check_deck
from tracker.cli import main


def valid_deck() -> list[str]:
    """30 cards within the copy limits, as kpks.us payloads with distinct serials."""
    lines: list[str] = []
    serial = 0
    for card in Catalog.packaged().cards.values():
        for _ in range(COPY_LIMITS[card.type]):
            if len(lines) < 30:
                serial += 1
                lines.append(f"kpks.us/{card.code}#{serial:04d}?TOKEN{serial}")
    return lines


def test_valid_deck_with_comments_bare_codes_and_personal_effect() -> None:
    lines = ["# my deck", "", *valid_deck()[:-2], "HMPU", "WCA9#0007", "https://www.kpks.us/aS1Q"]
    report = check_deck(lines)
    assert report.valid, report.problems
    assert len(report.cards) == 30 and report.personal_effect is not None
    assert report.personal_effect.card.code == "aS1Q" and report.personal_effect.line == 33
    assert [e.physical_id for e in report.cards[-2:]] == ["HMPU", "WCA9#0007"]


def test_problems_name_their_lines() -> None:
    lines = valid_deck()
    lines[3] = lines[2]                    # same physical card twice
    lines.append("kpks.us/y5ZD#0001")      # incubation
    lines.append("not a card")
    lines.append("QQQQ")                   # unknown code
    report = check_deck(lines)
    assert not report.valid
    text = "\n".join(report.problems)
    assert "line 4: " in text and "same physical card as line 3" in text
    assert "line 31: " in text and "incubation" in text
    assert "line 32: 'not a card'" in text and "line 33: 'QQQQ'" in text


def test_copy_limit_and_size() -> None:
    lines = [*valid_deck()[:29], "FOFE"]  # Brox (character) is already in; a second copy breaks the limit of 1
    report = check_deck(lines)
    brox_lines = [i + 1 for i, t in enumerate(lines) if "FOFE" in t]
    assert len(brox_lines) == 2
    assert any("2 copies of Brox" in p and "at most 1" in p for p in report.problems)
    assert any("deck has 29" in p for p in check_deck(valid_deck()[:29]).problems)


def test_two_personal_effects() -> None:
    report = check_deck([*valid_deck(), "aS1Q", "jKPw"])
    assert report.problems == ["line 32: a second personal effect (Suspended Animation); a deck takes at most one, "
                               "already on line 31 (#deck_structure)"]


def test_deck_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.txt"
    good.write_text("\n".join(valid_deck()) + "\n", encoding="utf-8")
    assert main(["deck", "check", str(good)]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True
    bad = tmp_path / "bad.txt"
    bad.write_text("HMPU\n", encoding="utf-8")
    assert main(["deck", "check", str(bad)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is False and out["problems"]
    assert main(["deck", "check", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read deck file" in capsys.readouterr().err
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    assert main(["deck", "check", str(binary)]) == 2
