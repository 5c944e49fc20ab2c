"""`turns.settle_claims` visits only the territories an action touched, and once a claim changes in a pass it
visits the capitals too, in the same pass (#maps: a capital falls once its taker holds every other territory).
The random games of `bench/rules_hashes.py` never reach that second visit, so it is held here."""

from __future__ import annotations

from rules.kipukas.context import Ctx
from rules.kipukas.turns import settle_claims
from tests.game_helpers import new_game, place

RED = ["HMPU#0001", "WCA9#0001", "FOFE#0001", "K-LE#0001", "zwZA#0001", "PhAU#0001", "jSYU#0001"]
BLUE = ["SWyA#0001", "hLwQ#0001", "F3GW#0001", "K_vJ#0001", "G8OO#0001", "ZrrD#0001", "Eppu#0001"]


def test_capital_falls_in_the_settlement_of_the_claim_that_completes_the_takers_hold() -> None:
    # Blue's capital is 4; red holds every territory but 3 (nobody's) and 4, and has a soul on 4's territory
    # stand. The move that claims 3 leaves red holding every other territory: the same settlement takes the
    # capital (visited after 3, in map order), so the move itself wins the game (#win).
    g = new_game(RED, BLUE)
    for t in ("1", "2", "5", "6"):
        g.state.claims[t] = ("red", "camp")
    place(g, "FOFE#0001", "T4")
    place(g, "HMPU#0001", "T2")
    settle_claims(Ctx(g.state, g.board, g.catalog, g.style))  # what the placements touched: 4 stays blue's
    assert g.state.claims["4"] == ("blue", "capital") and "3" not in g.state.claims
    verdict = g.push("red move HMPU#0001 T2-T3")
    assert g.state.claims["3"] == ("red", "camp")
    assert g.state.claims["4"] == ("red", "camp"), verdict.message
    assert g.result is not None and g.result.startswith("red wins"), g.result
