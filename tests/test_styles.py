"""Play styles of #playstyleoptions: set-up and ends written from the book's text (rules.kipukas.styles,
rules.kipukas.scoring)."""

from __future__ import annotations

import pytest

from rules.kipukas.game import Game
from rules.kipukas.styles import STYLES, StyleError
from tests.game_helpers import place, play_until

RED = ["HMPU#0001", "WCA9#0001", "FOFE#0001", "K-LE#0001", "zwZA#0001", "PhAU#0001", "jSYU#0001"]
BLUE = ["SWyA#0001", "hLwQ#0001", "F3GW#0001", "K_vJ#0001", "G8OO#0001", "ZrrD#0001", "Eppu#0001"]


def start(style: str, capitals: tuple[str, str] = ("4", "9"), camps: tuple[str, ...] = ("6", "7", "5", "8"),
          red: list[str] = RED, blue: list[str] = BLUE, **params: object) -> Game:
    """Set-up through the real actions: blue places first; red holds initiative on turn 1 (a day)."""
    g = Game.new({"red": red, "blue": blue}, style=style, **params)  # type: ignore[arg-type]
    for text in ["red affinity Avian", "blue affinity Decrepit", "red roll d6 2", "blue roll d6 5",
                 f"blue capital {capitals[0]}", f"red capital {capitals[1]}"]:
        g.push(text)
    for i, t in enumerate(camps if g.state.phase == "camps" else ()):
        g.push(f"{'blue' if i % 2 == 0 else 'red'} camp {t}")
    for text in ["red personal none", "blue personal none", f"red draw {','.join(red[:3])}",
                 f"blue draw {','.join(blue[:3])}"]:
        g.push(text)
    assert g.state.phase == "day" and g.state.active == "red"
    return g


def test_fifteen_styles_are_named_and_domination_is_the_default() -> None:
    assert len(STYLES) == 15
    assert Game.new({"red": RED, "blue": BLUE}).style.name == "domination"
    with pytest.raises(StyleError, match="unknown play style 'chess'"):
        Game.new({"red": RED, "blue": BLUE}, style="chess")
    with pytest.raises(StyleError, match="takes no parameter"):
        Game.new({"red": RED, "blue": BLUE}, style="domination", colour="green")


def test_domination_with_a_cycle_limit_ends_by_convention_keeping_the_peace() -> None:
    # #discarding_runout "Keep the peace: Allow the player with more territories to win." (the convention the
    # players agree to hold after a fixed number of diel cycles; a parameter, none by default)
    g = start("domination", cycles=3)
    g.state.claims["1"] = ("red", "camp")
    play_until(g, "over")
    assert g.result == ("red wins after 3 diel cycles: territories held red 4, blue 3; "
                        "convention: keep the peace (#discarding_runout)")


def test_king_of_the_hill_capitals_only_adjacent_and_the_hill_held_wins() -> None:
    # "A territory is selected either randomly or by a ref that must be claimed and held for a certain number
    # of diel cycles ... Players start with only a capital in adjacent territories."
    g = Game.new({"red": RED, "blue": BLUE}, style="king-of-the-hill", hill="3", hold=2)
    for text in ["red affinity Avian", "blue affinity Decrepit", "red roll d6 2", "blue roll d6 5", "blue capital 4"]:
        g.push(text)
    assert not g.apply("red capital 9").accepted  # 9 does not border 4
    g.push("red capital 5")  # M4 joins 4 and 5
    assert g.state.phase == "effects"  # no base camps in this style
    assert sorted(g.state.claims) == ["4", "5"]
    for text in ["red personal none", "blue personal none", "red draw HMPU#0001,WCA9#0001,FOFE#0001",
                 "blue draw SWyA#0001,hLwQ#0001,F3GW#0001"]:
        g.push(text)
    g.state.claims["3"] = ("red", "camp")
    play_until(g, "over")
    assert g.result == "red wins: held the hill, territory 3, for 2 diel cycles (King of the hill)"


def test_highest_body_count_capitals_cannot_be_taken_and_most_defeated_wins() -> None:
    # "Territory claims do not matter. Capitals cannot be taken. The game ends when either player runs out of
    # cards. The victor is the player that managed to defeat the most soul cards."
    g = start("highest-body-count")
    place(g, "HMPU#0001", "M4")
    g.push("red move HMPU#0001 M4-T4")
    assert g.state.claims["4"] == ("blue", "capital")
    g.state.players["red"] = g.state.players["red"].set(lost=1)
    g.state.players["blue"] = g.state.players["blue"].set(lost=2)
    for cs in list(g.state.cards.values()):
        if cs.owner == "blue" and cs.zone in ("deck", "hand"):
            g.state.cards[cs.id] = cs.set(zone="discard")
    g.push("blue initiative")
    assert g.result == "red wins: defeated 2 souls to 1 when blue ran out of cards (Highest body count)"


def test_the_cost_is_too_great_removes_a_player_at_the_soul_defeat_limit() -> None:
    # "Domination rules, but in addition it imposes a soul defeat limit that if hit removes the player"
    g = start("cost-too-great", limit=1)
    place(g, "HMPU#0001", "T6", injuries=(1,))  # downed Hilbert beside blue's wolf
    place(g, "SWyA#0001", "T6")
    play_until(g, "night")
    play_until(g, "day")
    if g.state.active == "red":
        g.push("red hold 6")  # downed Hilbert cannot attack; red then hands the turn over
        g.push("red initiative")
    g.push("blue attack SWyA#0001 HMPU#0001")  # a final blow on the downed soul
    for text in ("blue roll attack 6", "red roll defence 1,1"):
        g.push(text)
    while g.state.bout is not None:
        g.push("blue roll attack 6")
        g.push("red roll defence 1,1")
    assert g.result == "blue wins: red lost 1 souls, the limit of 1 (The cost is too great)"


@pytest.mark.parametrize(("style", "expected"), [
    ("ends-justify-means", "red wins after 2 diel cycles: territory held per soul lost red 4, blue 3; "
                           "The ends must justify the means (#playstyleoptions)"),
    ("coastal-war", "red wins after 2 diel cycles: coastal territories held red 2, blue 1; "
                    "Coastal war (#playstyleoptions)"),
])
def test_fixed_cycle_styles_score_at_the_end(style: str, expected: str) -> None:
    # "The player with the most territory gained to souls lost after a fixed number of diel cycles wins."
    # "The player to control the most coastline after a fixed number of diel cycles is the victor."
    g = start(style, cycles=2)
    g.state.claims["3"] = ("red", "camp")
    play_until(g, "over")
    assert g.result == expected


def test_find_the_treasure_first_to_claim_the_marked_space_wins() -> None:
    # "A ref secretly marks a space on the board with an item card, the first player to claim that space wins"
    g = start("find-the-treasure", capitals=("4", "3"), camps=(), marked="5")
    place(g, "HMPU#0001", "M4")
    g.push("red move HMPU#0001 M4-T5")
    assert g.result == "red wins: claimed the marked territory 5 first (Find the treasure)"


def test_a_hill_or_marked_space_must_be_a_territory_of_the_map() -> None:
    with pytest.raises(StyleError, match="hill must be a territory id"):
        Game.new({"red": RED, "blue": BLUE}, style="king-of-the-hill", hill="T3")
    with pytest.raises(StyleError, match="marked must be a territory id"):
        Game.new({"red": RED, "blue": BLUE}, style="find-the-treasure", marked=5)


def test_the_hunt_adds_three_for_most_huntable_souls_defeated() -> None:
    # "After a fixed number of diel cycles, the player with the most territories plus the hunt bonus (player
    # with most souls with a certain type defeated receives a +3 bonus) wins."
    g = start("the-hunt", cycles=2, hunted="Avian")
    g.state.claims["1"] = ("red", "camp")  # red holds 4 territories, blue 3 ...
    g.state.players["red"] = g.state.players["red"].set(hunted=1, lost=1)  # ... but blue defeated an Avian soul
    play_until(g, "over")
    assert g.result == ("blue wins after 2 diel cycles: territories held plus the hunt bonus red 4, blue 6; "
                        "The hunt (#playstyleoptions)")


def test_the_hunt_counts_a_wasted_huntable_soul_and_forbids_discarding_one() -> None:
    # "The huntable cards must be played and cannot be discarded."
    g = start("the-hunt", cycles=5, hunted="Hilbert: King of Avian Frogs")
    verdict = g.apply("red discard HMPU#0001")
    assert not verdict.accepted and verdict.rule == "#playstyleoptions" and "cannot be discarded" in verdict.message
    assert g.apply("red discard WCA9#0001").accepted  # not of the hunted type
    place(g, "HMPU#0001", "T6", injuries=(1,))  # downed Hilbert beside blue's wolf
    place(g, "SWyA#0001", "T6")
    play_until(g, "night")
    play_until(g, "day")
    if g.state.active == "red":
        g.push("red hold 6")
        g.push("red initiative")
    g.push("blue attack SWyA#0001 HMPU#0001")
    while g.state.bout is not None:
        g.push("blue roll attack 6")
        g.push("red roll defence 1,1")
    assert g.state.cards["HMPU#0001"].zone == "discard"
    assert g.state.players["red"].hunted == 1 and g.state.players["blue"].hunted == 0
    with pytest.raises(StyleError, match="no soul card matches 'unicorn'"):
        Game.new({"red": RED, "blue": BLUE}, style="the-hunt", hunted="unicorn")


def test_cradle_robber_taking_the_surrounding_sections_wins() -> None:
    # "A ref secretly marks a space on the board with an incubation card ... The first person to find and take
    # the surrounding sections (thereby protecting the card) wins the match"
    g = start("cradle-robber", capitals=("4", "3"), camps=(), marked="8")  # 8 borders 7 and 9
    g.state.claims["7"] = ("red", "camp")
    place(g, "HMPU#0001", "M9")
    g.push("red move HMPU#0001 M9-T9")
    assert g.result == "red wins: holds every territory around the marked territory 8 (7, 9) (Cradle Robber)"


def test_off_to_the_rescue_claim_the_space_then_usher_the_survivor_to_the_capital() -> None:
    # "A ref secretly marks a space on the board with a soul card, the first player to claim that space and
    # usher the survivor back to their capital wins the match"
    g = start("off-to-the-rescue", capitals=("4", "3"), camps=(), marked="5")
    place(g, "F3GW#0001", "M1")  # blue's flyer (movement 3)
    place(g, "HMPU#0001", "M4")  # red's Hilbert (movement 2)
    g.push("red move HMPU#0001 M4-T5")
    assert g.state.claims["5"] == ("red", "camp") and g.state.rescue == ("red", "HMPU#0001")
    assert "survivor with red HMPU#0001" in g.to_text() and g.result is None
    g.push("blue initiative")
    g.push("red end")
    play_until(g, "day")
    if g.state.active == "blue":
        g.push("blue initiative")
    g.push("red move HMPU#0001 T5-T3")
    assert g.result == "red wins: ushered the survivor from territory 5 back to their capital (Off to the rescue)"


@pytest.mark.parametrize(("style", "expected"), [
    ("explorer", "red wins: used the marked terrain feature against the opponent in territory 5, the referee "
                 "confirms (Explorer)"),
    ("trap-springer", "red wins: set off the marked trap in territory 5, the referee confirms (Trap Springer)"),
])
def test_explorer_and_trap_springer_the_referee_confirms_on_the_marked_space(style: str, expected: str) -> None:
    # Explorer: "the first player to claim that space and successfully use the card against their opponent wins"
    # Trap Springer: "the first player to set off the trap in that space wins the match"
    g = start(style, capitals=("4", "3"), camps=(), marked="5")
    refused = g.apply("judge award red")
    assert not refused.accepted and refused.rule == "#playstyleoptions" and "marked territory 5" in refused.message
    place(g, "HMPU#0001", "M4")
    g.push("red move HMPU#0001 M4-T5")
    assert g.result is None
    assert not g.apply("judge award blue").accepted
    from rules.kipukas.notation import Award
    assert Award("judge", "red") in g.legal_actions(free=True)
    g.push("judge award red")
    assert g.result == expected
