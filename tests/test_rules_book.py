"""Rules of the book (000) the engine once got wrong or left to the players (issue 19), one test per reading.

Each test quotes the sentence it checks; positions are built with the real set-up actions (tests.game_helpers).
"""

from __future__ import annotations

from rules.game import Game
from tests.game_helpers import new_game, place, play_until

RED = ["HMPU#0001", "WCA9#0001", "FOFE#0001", "K-LE#0001", "zwZA#0001", "PhAU#0001", "jSYU#0001"]
BLUE = ["SWyA#0001", "hLwQ#0001", "F3GW#0001", "K_vJ#0001", "G8OO#0001", "ZrrD#0001", "Eppu#0001"]


def rejected(g: Game, text: str, rule: str, words: str) -> None:
    before = g.to_text()
    verdict = g.apply(text)
    assert not verdict.accepted, f"{text} was accepted"
    assert verdict.rule == rule, verdict
    assert words in verdict.message, verdict.message
    assert g.to_text() == before


def test_capital_falls_only_after_every_other_territory_on_the_board() -> None:
    # #maps: "your opponent will not be able to take your capital until they take all other territories
    # on the board" -- not merely the capital holder's other camps.
    g = new_game(RED, BLUE)
    for t in ("5", "6"):
        g.state.claims[t] = ("red", "camp")  # blue has no camp left, but 1, 2 and 3 are nobody's
    place(g, "HMPU#0001", "M4")
    g.push("red move HMPU#0001 M4-T4")
    assert g.state.claims["4"] == ("blue", "capital")
    for t in ("1", "2", "3"):
        g.state.claims[t] = ("red", "camp")
    g.push("blue initiative")  # the next settlement takes the capital: red now holds all else
    assert g.result is not None and g.result.startswith("red wins")


def test_retreat_ends_on_the_nearest_stand_in_territory_the_player_controls() -> None:
    # #retreat: "If successful, move your party to the nearest base camp or movement stand in territory
    # that you control."
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "M7b")  # Hilbert, movement 2, in red's camp 7, with blue's wolf
    place(g, "SWyA#0001", "M7b")
    play_until(g, "night")
    play_until(g, "day")
    rejected(g, "red retreat HMPU#0001 T1", "#retreat", "which red does not control")
    rejected(g, "red retreat HMPU#0001 T6", "#retreat", "which red does not control")  # blue's camp
    rejected(g, "red retreat HMPU#0001 M8", "#retreat", "nearest")  # T8 is one line away, M8 two
    g.push("red retreat HMPU#0001 T8")
    g.push("blue challenge release")
    assert g.state.cards["HMPU#0001"].at == "T8"
    assert g.state.claims["6"] == ("blue", "camp")
