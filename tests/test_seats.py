"""More than two seats (#playstyleoptions): Mass conflict, Band together's third party, and Captive's exchange.

Each test quotes the sentence of the rule book it checks; where the book is silent the reading is the one
written in docs/rules-engine.md.
"""

from __future__ import annotations

import random

import pytest

from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.context import Ctx
from rules.kipukas.decks import COPY_LIMITS
from rules.kipukas.game import Game
from rules.kipukas.notation import NotationError, parse
from rules.kipukas.seating import full_seats
from rules.kipukas.selfplay import choose
from rules.kipukas.styles import StyleError
from tests.game_helpers import place

RED = ["HMPU#0001", "WCA9#0001", "FOFE#0001", "K-LE#0001"]
BLUE = ["SWyA#0001", "hLwQ#0001", "F3GW#0001", "K_vJ#0001"]
GREEN = ["KVph#0001", "pVLu#0001", "bSGc#0001", "WWpl#0001"]
YELLOW = ["H8wj#0001", "KCW4#0001", "WWpl#0002", "bSGc#0002"]


def three(style: str = "mass-conflict", **params: object) -> Game:
    """Red, blue and green set up through the real actions: blue places first, then green, then red."""
    g = Game.new({"red": RED, "blue": BLUE, "green": GREEN}, style=style, **params)  # type: ignore[arg-type]
    for text in ["red affinity Avian", "blue affinity Decrepit", "green affinity Brutal", "red roll d6 2",
                 "blue roll d6 5", "green roll d6 3", "blue capital 4", "green capital 2", "red capital 1",
                 "blue camp 5", "green camp 9", "red camp 6", "blue camp 3", "green camp 8", "red camp 7",
                 "red personal none", "blue personal none", "green personal none",
                 "red draw HMPU#0001,WCA9#0001,FOFE#0001", "blue draw SWyA#0001,hLwQ#0001,F3GW#0001",
                 "green draw KVph#0001,pVLu#0001,bSGc#0001"]:
        g.push(text)
    assert g.state.phase == "day" and g.state.active == "red"
    return g


def test_the_notation_names_four_seats_and_no_more() -> None:
    assert parse("green move HMPU#0001 T7-M7b").player == "green"
    assert parse("yellow roll d6 4").player == "yellow"
    with pytest.raises(NotationError, match="unknown player 'purple'"):
        parse("purple roll d6 4")


def test_mass_conflict_territory_limits_by_map_size() -> None:
    # "8 territories = 2 player max, 9-11 territories = 3 player max, 12 territories = 4 players max or
    # starting territories are limited to 1 capital and 1 base camp"
    assert [full_seats(n) for n in (8, 9, 11, 12)] == [2, 3, 3, 4]
    decks = {"red": RED, "blue": BLUE, "green": GREEN}
    assert Game.new(decks, style="mass-conflict").style.camps == 2  # 9 territories: three players of three
    four = Game.new({**decks, "yellow": YELLOW}, style="mass-conflict")
    assert four.style.camps == 1 and tuple(four.state.players) == ("red", "blue", "green", "yellow")
    with pytest.raises(StyleError, match="seat order red, blue, green, yellow; got decks for red, blue, yellow"):
        Game.new({"red": RED, "blue": BLUE, "yellow": YELLOW}, style="mass-conflict")
    with pytest.raises(StyleError, match="3-4 seats: style mass-conflict"):
        Game.new(decks, style="domination")
    with pytest.raises(StyleError, match="unknown seat purple"):
        Game.new({**decks, "purple": YELLOW}, style="mass-conflict")


def test_four_players_start_with_a_capital_and_one_base_camp() -> None:
    g = Game.new({"red": RED, "blue": BLUE, "green": GREEN, "yellow": YELLOW}, style="mass-conflict")
    for text in ["red affinity Avian", "blue affinity Decrepit", "green affinity Brutal", "yellow affinity Angelic",
                 "red roll d6 2", "blue roll d6 5", "green roll d6 2", "yellow roll d6 1"]:
        g.push(text)
    assert g.state.phase == "rolloff"  # a tie re-rolls every seat, so the placing order is total
    for text in ["red roll d6 2", "blue roll d6 6", "green roll d6 4", "yellow roll d6 1",
                 "blue capital 4", "green capital 2", "red capital 1", "yellow capital 8",
                 "blue camp 5", "green camp 9", "red camp 6", "yellow camp 7"]:
        g.push(text)
    assert g.state.phase == "effects" and g.state.initiative == "yellow"  # the lowest roll takes initiative
    assert not g.apply("blue camp 3").accepted
    assert sorted(owner for owner, _ in g.state.claims.values()) == ["blue", "blue", "green", "green", "red", "red",
                                                                       "yellow", "yellow"]


def test_foes_block_attack_and_claim_with_three_seats() -> None:
    # #movement: "If the movement or territory stand that you moved onto is occupied, then attack the soul(s)
    # in that space" — any other player's soul is an enemy in Mass conflict ("Same rules as Domination")
    g = three()
    place(g, "HMPU#0001", "T1")
    place(g, "KVph#0001", "T2")
    g.push("red move HMPU#0001 T1-T2")
    assert g.state.pending[0].kind == "combat" and g.state.pending[0].note == "must-attack"
    assert [a.to_text() for a in g.legal_actions()] == ["red attack HMPU#0001 KVph#0001"]


def test_turn_passes_round_the_table_and_ends_when_every_other_seat_has_ended() -> None:
    # #day: "This continues between players until one player decides they have no moves left. At this point
    # they can call for initiative. At this point the other player takes as many actions as they want until
    # they decide to end the turn."
    g = three()
    g.push("red initiative")
    assert g.state.active == "blue" and not g.apply("red end").accepted
    g.push("blue end")
    assert g.state.active == "green" and g.state.done == frozenset({"blue"}) and g.state.phase == "day"
    g.push("green end")
    assert g.state.phase == "night" and g.state.active == "red" and g.state.done == frozenset()


def test_band_together_allies_do_not_fight_and_the_third_party_dominating_loses_everyone() -> None:
    # "Players must work together to defeat a third party ... If the third party dominates the kipuka then both
    # players lose."
    g = three("band-together")
    assert g.style.third == "green" and g.style.allies == frozenset({"red", "blue"})
    place(g, "HMPU#0001", "T1")
    place(g, "F3GW#0001", "T3")
    g.push("red initiative")
    g.push("blue move F3GW#0001 T3-T1")  # onto the ally: no attack, no claim taken from the ally
    assert not g.state.pending and g.state.claims["1"] == ("red", "capital")
    assert all(a.to_text() != "blue attack F3GW#0001 HMPU#0001" for a in g.legal_actions())
    with pytest.raises(StyleError, match="third party sits at green or yellow"):
        Game.new({"red": RED, "blue": BLUE, "green": GREEN}, style="band-together", third="red")
    over = three("band-together")
    for t in over.board.holdable:
        over.state.claims[t] = ("green", "capital" if t == "2" else "camp")
    place(over, "KVph#0001", "T2")
    over.push("red initiative")
    assert over.result == "green, the third party, dominates the kipuka: every player loses (Band together)"


def test_captive_is_dealt_to_the_other_deck_and_only_its_giver_reveals_it() -> None:
    # "Each player gives the other a soul card, which they shuffle into their deck. Once drawn, the player must
    # play the card unrevealed. The first player to reveal and lead their soul back to their capital wins."
    g = Game.new({"red": RED, "blue": BLUE}, style="captive", captives="HMPU#0001,SWyA#0001")
    assert g.state.cards["HMPU#0001"].owner == "blue" and g.state.cards["SWyA#0001"].owner == "red"
    with pytest.raises(StyleError, match="one soul of each deck"):
        Game.new({"red": RED, "blue": BLUE}, style="captive", captives="HMPU#0001")
    with pytest.raises(StyleError, match="not a soul card"):
        Game.new({"red": RED, "blue": BLUE}, style="captive", captives="K-LE#0001,SWyA#0001")
    for text in ["red affinity Avian", "blue affinity Decrepit", "red roll d6 2", "blue roll d6 5", "blue capital 4",
                 "red capital 3", "blue camp 5", "red camp 2", "blue camp 6", "red camp 1", "red personal none",
                 "blue personal none", "red draw WCA9#0001,FOFE#0001,K-LE#0001",
                 "blue draw HMPU#0001,hLwQ#0001,F3GW#0001", "red play FOFE#0001 3 revealed",
                 "blue play HMPU#0001 4 unrevealed", "red initiative"]:
        g.push(text)
    verdict = g.apply("blue reveal HMPU#0001")
    assert not verdict.accepted and "only red reveals it" in verdict.message
    assert "blue reveal HMPU#0001" not in [a.to_text() for a in g.legal_actions()]


@pytest.mark.parametrize(("style", "seats", "seed"), [("mass-conflict", 3, 1), ("mass-conflict", 4, 2),
                                                      ("band-together", 3, 3)])
def test_direct_generation_equals_trial_application_with_more_seats(style: str, seats: int, seed: int) -> None:
    """The generators offer exactly what the handlers accept, in order, in seeded random games of 3-4 seats."""
    rng = random.Random(seed)
    pool = [c for c in Catalog.packaged().cards.values() for _ in range(COPY_LIMITS[c.type])]
    decks = {}
    for i, seat in enumerate(("red", "blue", "green", "yellow")[:seats]):
        rng.shuffle(pool)
        decks[seat] = [f"{c.code}#{i + 1}{k:03d}" for k, c in enumerate(pool[:30])]
    g = Game.new(decks, style=style, cycles=10)
    checked = 0
    for step in range(600):
        if g.result:
            break
        actions = g.legal_actions()
        if step % 2 == 0:
            assert actions == g.legal_actions_by_trial(), (step, g.to_text())
            checked += 1
        g.push(choose(Ctx(g.state, g.board, g.catalog, g.style), actions, rng))
    assert checked > 20 and (g.result is None or "wins" in g.result or "tie" in g.result)
    assert BoardMap.packaged().name == "starter"


def test_the_game_interface_names_every_seat_and_shows_each_its_own_hand() -> None:
    from rules.kipukas.adapter import new

    game = new({"decks": {"red": RED, "blue": BLUE, "green": GREEN}, "style": "mass-conflict"})
    assert game.seats == ("red", "blue", "green")
    players = game.view("green")["players"]
    assert isinstance(players, dict) and players["green"]["deck"] == sorted(GREEN) and players["red"]["deck"] == 4


def test_after_a_won_bout_the_next_foe_in_seat_order_answers() -> None:
    # Reading (docs/rules-engine.md, the book is silent for more seats): after a bout the first foe of the winner
    # in seat order with a soul in the territory responds (two seats: the opponent).
    g = three()
    place(g, "HMPU#0001", "T1")
    place(g, "KVph#0001", "T2")
    place(g, "F3GW#0001", "T2")
    g.push("red move HMPU#0001 T1-T2")
    assert {a.to_text() for a in g.legal_actions()} == {"red attack HMPU#0001 F3GW#0001",
                                                         "red attack HMPU#0001 KVph#0001"}
    for text in ["red attack HMPU#0001 KVph#0001", "red means HMPU#0001 1", "green means KVph#0001 1",
                 "red roll attack 6,6", "green roll defence 1,1"]:
        g.push(text)
    assert g.state.pending[0].player == "red" and g.state.pending[0].note == "press"
    g.push("red stop")
    assert g.state.pending[0].kind == "combat" and g.state.pending[0].player == "blue"
    assert g.state.pending[0].note == "respond" and g.state.pending[0].territory == "2"
