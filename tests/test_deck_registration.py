"""Deck registration: duplicates of a physical card refused, the deck file format written and read."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core.errors import PayloadError
from tracker.front.registration import DeckRegistration, DuplicateCard, physical_key, read_deck_file


def test_same_physical_card_twice_is_refused() -> None:
    deck = DeckRegistration(owner="red")
    assert deck.add("kpks.us/HMPU#0004?BFxDCJ") == "HMPU#0004"
    deck.add("kpks.us/HMPU#0005?QQxDCJ")  # another copy of the same card is a different physical card
    with pytest.raises(DuplicateCard, match="HMPU#0004"):
        deck.add("kpks.us/HMPU#0004?BFxDCJ")
    assert deck.lines() == ["kpks.us/HMPU#0004?BFxDCJ", "kpks.us/HMPU#0005?QQxDCJ"]


def test_older_cards_are_compared_by_payload() -> None:
    assert physical_key("https://www.kpks.us/frlU") == "https://www.kpks.us/frlU"
    deck = DeckRegistration()
    deck.add("https://www.kpks.us/frlU")
    with pytest.raises(DuplicateCard):
        deck.add("https://www.kpks.us/frlU")


def test_non_kipukas_payload_is_refused() -> None:
    with pytest.raises(PayloadError):
        DeckRegistration().add("https://shop.example.com/price")


def test_deck_file_round_trip(tmp_path: Path) -> None:
    deck = DeckRegistration(owner="blue")
    for payload in ("kpks.us/jKPw#0002?5Wz31Z", "https://www.kpks.us/frlU", "kpks.us/ioqs#0002?nRPbqJ"):
        deck.add(payload)
    path = tmp_path / "blue.deck"
    deck.write(path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Kipukas deck of blue: 3 cards\n")
    assert read_deck_file(path) == deck.lines()


def test_read_deck_file_skips_comments_and_blanks(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    text = "# mine\n\n  kpks.us/jKPw#0002?5Wz31Z  \n# trap cards\nhttps://www.kpks.us/frlU\n"
    path.write_text(text, encoding="utf-8")
    assert read_deck_file(path) == ["kpks.us/jKPw#0002?5Wz31Z", "https://www.kpks.us/frlU"]


def test_registered_deck_is_checked_by_the_rules() -> None:
    from rules.kipukas.catalog import Catalog

    deck = DeckRegistration(owner="red")
    souls = [c for c in Catalog.packaged().cards.values() if c.type in ("Character", "Species")]
    for n, card in enumerate(souls[:12]):
        deck.add(f"kpks.us/{card.code}#{n + 1:04d}?tok{n}")
    report = deck.check()
    assert not report.valid
    assert any("30" in p for p in report.problems)  # twelve cards is not a deck
    assert len(report.cards) == 12


def test_deck_file_is_the_owners_only(tmp_path: Path) -> None:
    deck = DeckRegistration(owner="red")
    deck.add("kpks.us/HMPU#0004?BFxDCJ")
    deck.write(tmp_path / "red.txt")
    assert (tmp_path / "red.txt").stat().st_mode & 0o077 == 0  # the payloads hold the cards' private tokens


def test_register_refuses_an_empty_source_and_an_unwritable_out_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tracker.cli import main

    empty = tmp_path / "empty"
    empty.mkdir()
    code = main(["register", "--out", str(tmp_path / "deck.txt"), "--folder", str(empty)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert not (tmp_path / "deck.txt").exists()
    code = main(["register", "--out", str(tmp_path / "missing" / "deck.txt"), "--folder", str(empty)])
    err = capsys.readouterr().err
    assert code == 2 and "does not exist" in err and err.count("\n") == 1
