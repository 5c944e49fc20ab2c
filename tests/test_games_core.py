"""The game interface: the registry, the notation cursor, and Kipukas through its adapter."""

from __future__ import annotations

import random

import pytest

from rules.core.interface import TableGame
from rules.core.notation import NotationError, Words
from rules.core.registry import UnknownGame, names, new_game
from rules.kipukas.adapter import KipukasGame
from rules.kipukas.notation import parse
from tests.game_helpers import new_game as set_up
from tests.test_game_properties import random_deck


def kipukas() -> TableGame:
    rng = random.Random(7)
    return new_game("kipukas", {"decks": {"red": random_deck(rng, 1), "blue": random_deck(rng, 2)}})


def test_registry_knows_the_games_and_names_an_unknown_one() -> None:
    assert "kipukas" in names()
    with pytest.raises(UnknownGame, match=r"unknown game 'chess'.*kipukas"):
        new_game("chess", {})


def test_words_name_the_position_of_a_bad_word() -> None:
    w = Words("red roar twice")
    assert w.word("seat") == "red"
    assert w.choice("verb", ("roar",)) == "roar"
    with pytest.raises(NotationError, match=r"word 3.*whole number"):
        w.number("count")


def test_kipukas_adapter_applies_undoes_and_lists_per_seat() -> None:
    g = kipukas()
    assert isinstance(g, TableGame) and g.seats == ("red", "blue")
    red = g.legal_actions("red")
    assert red and all(line.startswith("red ") for line in red)
    assert all(parse(line).to_text() == line for line in red)  # the remembered listing is what parse gives
    before = g.to_text()
    verdict = g.apply(red[0])
    assert verdict.accepted and g.history == (red[0],)
    assert g.undo() == red[0] and g.to_text() == before and g.history == ()
    bad = g.apply("red fly away")
    assert not bad.accepted and bad.rule == "notation" and g.to_text() == before


def test_kipukas_view_hides_hands_from_the_other_seat_and_spectators() -> None:
    rng = random.Random(3)
    g = KipukasGame(set_up(random_deck(rng, 1), random_deck(rng, 2)))  # each seat holds 3 cards
    red_hand = g.view("red")["players"]["red"]["hand"]  # type: ignore[index]
    assert isinstance(red_hand, list) and red_hand
    assert g.view("blue")["players"]["red"]["hand"] == len(red_hand)  # type: ignore[index]
    judge_deck = g.view("judge")["players"]["red"]["deck"]  # type: ignore[index]
    assert isinstance(judge_deck, list) and g.view("spectator")["players"]["red"]["deck"] == len(judge_deck)  # type: ignore[index]
