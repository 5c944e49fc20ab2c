"""Rules of the book (000) the engine once got wrong or left to the players (issue 19), one test per reading.

Each test quotes the sentence it checks; positions are built with the real set-up actions (tests.game_helpers).
"""

from __future__ import annotations

import pytest

from rules.kipukas.game import Game
from rules.kipukas.notation import NotationError, parse
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


def test_raven_is_constantly_downed_yet_moves_and_attacks_normally() -> None:
    # #contention_ex, the Raven's printed effects: "Constantly downed. Able to move and attack normally when
    # downed." (injury tolerance 0; entered in rules/kipukas/data/effects.json)
    g = new_game(RED, BLUE)
    place(g, "ZrrD#0001", "T6")
    place(g, "HMPU#0001", "T7")
    g.push("red initiative")
    g.push("blue move ZrrD#0001 T6-M7a")  # two lines: its full movement range of 2, not a downed range
    assert g.state.cards["ZrrD#0001"].moved == 2
    g.undo()
    g.push("blue move ZrrD#0001 T6-T7")
    g.push("blue attack ZrrD#0001 HMPU#0001")
    assert g.state.bout is not None and not g.state.bout.final


def test_raven_that_loses_a_keal_means_bout_is_wasted() -> None:
    # #contention_ex: "If Myrthvither Raven looses a keal means bout, waste the Myrthvither Raven."
    g = new_game(RED, BLUE)
    place(g, "ZrrD#0001", "T6")
    place(g, "HMPU#0001", "T7")
    g.push("red initiative")
    g.push("blue move ZrrD#0001 T6-T7")
    g.push("blue attack ZrrD#0001 HMPU#0001")
    for text in ("blue means ZrrD#0001 1", "red means HMPU#0001 1", "blue roll attack =3", "red roll defence 6,6"):
        g.push(text)
    assert g.state.cards["ZrrD#0001"].zone == "discard"
    assert g.state.cards["HMPU#0001"].zone == "play"


def test_judge_override_lets_an_unmodelled_printed_effect_apply_and_undo_removes_it() -> None:
    # Anything still unmodelled: the judge sets the flag for one physical card (docs/rules-engine.md).
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "T6", injuries=(1,))  # Hilbert downed in blue's camp 6 with the wolf
    place(g, "SWyA#0001", "T6")
    play_until(g, "night")
    play_until(g, "day")
    rejected(g, "red attack HMPU#0001 SWyA#0001", "#combat_lifecycle", "downed")
    g.push("judge effect HMPU#0001 attacks_downed on")
    assert "effect HMPU#0001 attacks_downed=on" in g.to_text()
    g.push("red attack HMPU#0001 SWyA#0001")
    g.undo()
    g.undo()
    assert "effect HMPU#0001" not in g.to_text()
    with pytest.raises(NotationError, match="only the judge"):
        parse("blue effect HMPU#0001 attacks_downed on")


def test_printed_roll_modifiers_are_given_as_totals() -> None:
    # #roll_modifiers: terrain features, items and card text modify rolls "at direction of card"; the engine
    # cannot compute them, so the players give the modified total (=N) even on dice the grammar knows.
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "T6")
    place(g, "SWyA#0001", "T6")
    play_until(g, "night")
    play_until(g, "day")
    g.push("red attack HMPU#0001 SWyA#0001")
    g.push("red means HMPU#0001 1")
    g.push("blue means SWyA#0001 1")
    rejected(g, "red roll attack =14", "#attack", "give the faces")
    g.state.cards["ioqs#0009"] = g.state.cards["K_vJ#0001"].set(id="ioqs#0009", code="ioqs", zone="play",
                                                                  at="T6", revealed=True)
    g.push("red roll attack =14")  # a terrain feature is staked in territory 6
    assert g.state.bout is not None and g.state.bout.attack_roll == 14


def test_trap_roll_for_every_territory_passed_through_on_a_named_route() -> None:
    # #traps: traps activate "as entities move between and through territories"; `via` names the route.
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "M7b")
    g.state.cards["K_vJ#0001"] = g.state.cards["K_vJ#0001"].set(zone="play", at="T6")  # blue's trap, unrevealed
    g.push("red move HMPU#0001 M7b-M5")  # route unknown: only territory 5 is rolled against
    assert not g.state.pending
    g.undo()
    rejected(g, "red move HMPU#0001 M7b-M5 via T8", "#movement", "no movement line joins T8 and M5")
    g.push("red move HMPU#0001 M7b-M5 via T6")
    assert [(p.kind, p.territory) for p in g.state.pending] == [("trap-roll", "6")]
    g.push("red roll d20 2")  # detection on 1-4
    g.push("blue trap K_vJ#0001 idle")
    assert g.state.cards["K_vJ#0001"].zone == "discard"


def test_detected_trap_passes_to_the_player_who_now_holds_the_territory() -> None:
    # #contention: "Traps still roll activation/detection for their original player; however, if detected the
    # new territory owner can take control of the trap instead of disabling it."
    g = new_game(RED, BLUE)
    g.state.claims["6"] = ("red", "camp")  # red took blue's camp 6; blue's trap is still there
    g.state.cards["K_vJ#0001"] = g.state.cards["K_vJ#0001"].set(zone="play", at="M6")
    place(g, "HMPU#0001", "M7b")
    g.push("red move HMPU#0001 M7b-T6")
    g.push("red roll d20 3")
    g.push("blue trap K_vJ#0001 idle")
    trap = g.state.cards["K_vJ#0001"]
    assert trap.zone == "play" and trap.control == "red" and trap.owner == "blue"


def test_items_equip_pass_unequip_and_pick_up() -> None:
    # #equiping: "Items are ... equipped ... during the day as a part of the movement phase. Equipped items may
    # transfer between souls if they occupy the same territory/movement stand. ... If a player decides to [unequip],
    # the item ... is dropped in the territory ... A reasonable soul under the control of either player may pick
    # up and equip these items provided they are in the same territory on an uncontested stand."
    g = new_game(["HMPU#0001", "zwZA#0001", "WCA9#0001", "FOFE#0001"], BLUE)
    place(g, "HMPU#0001", "T7")
    place(g, "WCA9#0001", "T7")
    g.push("red equip zwZA#0001 HMPU#0001")
    assert g.state.cards["zwZA#0001"].equipped_to == "HMPU#0001"
    g.push("blue initiative")
    g.push("red pass zwZA#0001 WCA9#0001")
    assert g.state.cards["zwZA#0001"].equipped_to == "WCA9#0001"
    g.push("red end")
    play_until(g, "day")
    if g.state.active == "blue":
        g.push("blue initiative")
    rejected(g, "red pass zwZA#0001 FOFE#0001", "#card_variations", "not in their play")
    g.push("red unequip zwZA#0001")
    assert g.state.cards["zwZA#0001"].equipped_to is None and g.state.cards["zwZA#0001"].at == "T7"
    place(g, "HMPU#0001", "T8")
    place(g, "WCA9#0001", "T8")  # the red souls leave the item behind in territory 7
    place(g, "SWyA#0001", "M7a")
    g.push("red end")
    play_until(g, "day")
    if g.state.active == "red":
        g.push("red initiative")
    g.push("blue pickup zwZA#0001 SWyA#0001")  # either player, same territory, uncontested stand
    item = g.state.cards["zwZA#0001"]
    assert item.equipped_to == "SWyA#0001" and item.control == "blue" and item.at == "M7a"


def test_sabotage_result_discards_the_card() -> None:
    # #sabotage: "these cards have three aspects ...: Success Criteria, Successful Sabotage Result, and Failure
    # Consequence."
    g = new_game(RED, ["fFvj#0001", *BLUE])
    play_until(g, "night")
    if g.state.active == "red":
        g.push("red initiative")
    g.push("blue sabotage fFvj#0001")
    assert g.state.cards["fFvj#0001"].zone == "effect"
    rejected(g, "red resolve fFvj#0001 success", "#card_variations", "blue's card")
    g.push("blue resolve fFvj#0001 failure")
    assert g.state.cards["fFvj#0001"].zone == "discard"


def test_random_territory_selection_rerolls_above_the_highest_number() -> None:
    # #random_territory: "If the number rolled is within the highest number on the board, then apply the effect
    # to that territory. Otherwise, re-roll"
    g = new_game(RED, BLUE)
    assert "territory 4 is selected" in g.apply("red roll territory 4").message
    assert "roll again" in g.apply("red roll territory 17").message
    rejected(g, "red roll territory 21", "#random_territory", "1 to 20")


def test_taming_a_rogue_later_in_the_game() -> None:
    # #taming: "Either player can attempt to tame a rouge soul ... at the begining of the day before contention
    # is resolved. It is first avaliable to the player with initiative. The player who attempts taming must have
    # a fully controlled soul already in the same territory as the rouge soul."
    g = new_game(RED, BLUE)
    place(g, "SWyA#0001", "M8")
    g.state.cards["SWyA#0001"] = g.state.cards["SWyA#0001"].set(rogue=True)
    rejected(g, "red tame SWyA#0001 tamed", "#taming", "fully controlled soul")
    place(g, "HMPU#0001", "T8")
    rejected(g, "blue tame SWyA#0001 tamed", "#taming", "not blue's turn")
    g.push("red tame SWyA#0001 rogue")
    rejected(g, "red tame SWyA#0001 tamed", "#taming", "already tried")
    play_until(g, "night")
    play_until(g, "day")
    if g.state.active == "blue":
        g.push("blue initiative")
    g.push("red tame SWyA#0001 tamed")
    wolf = g.state.cards["SWyA#0001"]
    assert not wolf.rogue and wolf.owner == "red"


def test_healer_heals_a_soul_in_its_territory_once_per_its_cycles() -> None:
    # #keal_means_DHT: "The soul must be within the same territory as the healing entity ... Healers can only
    # heal a certain number of KEAL means with in a certain number of diel cycles."
    g = new_game(RED, BLUE)
    place(g, "WCA9#0001", "T8", injuries=(1, 0, 0))
    place(g, "FOFE#0001", "T9")
    rejected(g, "red heal WCA9#0001 1", "#keal_means_DHT", "no healer")
    g.push("judge effect FOFE#0001 heals on")  # a healer's printed text, set by the judge
    rejected(g, "red heal WCA9#0001 1", "#keal_means_DHT", "no healer")  # Brox is in territory 9
    place(g, "FOFE#0001", "M8")
    g.push("red heal WCA9#0001 1")
    assert g.state.cards["WCA9#0001"].injuries == (0, 0, 0)
    assert g.state.cards["FOFE#0001"].healed_turn == 1


def test_underground_dwellers_dig_tunnels_that_other_underground_dwellers_use() -> None:
    # #habitat_effects Underground: "Secondary Effect: Undergroud dwellers can make underground tunnels";
    # #geo_markers: "Underground Tunnel: Connect territories and shorten travel for underground dwellers"
    g = new_game(RED, BLUE)
    place(g, "WCA9#0001", "T8")  # Illia and Dorsay: underground, movement 1
    rejected(g, "red dig WCA9#0001 T1", "#habitat_effects", "beyond")
    rejected(g, "red dig HMPU#0001 M8", "#card_variations", "not in their play")
    g.push("red dig WCA9#0001 M7a")
    assert "tunnel T8-M7a" in g.to_text() and g.state.cards["WCA9#0001"].moved == 1


def test_rogue_roams_one_path_per_d6_step_before_either_turn() -> None:
    # #rouge: "Each day, before either player's turn, you must roll for the rouge species' movement ... Repeat
    # until it has moved its entire Movement Range. Movement is the responsibility of the ... person whom
    # originally played the rouge."
    g = new_game(RED, BLUE)
    place(g, "SWyA#0001", "T6")
    g.state.cards["SWyA#0001"] = g.state.cards["SWyA#0001"].set(rogue=True)  # the wolf went rogue
    rejected(g, "red roam SWyA#0001 M6", "#card_variations", "blue's card")
    rejected(g, "blue roam SWyA#0001 T8", "#rouge", "not at the end of a path")
    g.push("blue roam SWyA#0001 M7b")
    rejected(g, "blue roam SWyA#0001 T7", "#rouge", "whole movement range")
    assert g.state.cards["SWyA#0001"].at == "M7b"


def test_bs_challenge_conceded_against_takes_the_action_back() -> None:
    # #BS: "1. Call them out before the effect is used in game play 2. Pause the battle and hold convention
    # 3. One player must concede reasonability (either for or against) 4. if required, enlist a tie breaking
    # third individual to make the final call"
    g = new_game(RED, BLUE)
    before = g.to_text()
    g.push("red play HMPU#0001 7 revealed")
    rejected(g, "red bs", "#BS", "opponent's last action")
    g.push("blue bs")
    assert g.state.pending[0].kind == "bs" and any(p.rule == "#BS" for p in g.prompts())
    rejected(g, "blue play SWyA#0001 6 revealed", "#diel_cycle", "answer")
    rejected(g, "blue concede against", "#BS", "concedes the other side's point")
    g.push("red concede against")
    assert g.to_text() == before
    g.push("red play HMPU#0001 7 revealed")
    g.push("blue bs")
    g.push("judge concede for")  # the tie-breaking third individual
    assert g.state.cards["HMPU#0001"].zone == "play" and not g.state.pending


def test_item_dropped_in_a_contested_territory_goes_to_the_winner_of_a_grab_bout() -> None:
    # #items: "Items and crafted items are generally not destroyed, but rather dropped when a soul equipped with
    # them is wasted. If a territory is under contention when this happens, each player chooses a suitable card
    # to attempt to grab the item. A KEAL means bout will ensue where the victor equips the item and the loser
    # takes KEAL means damage."
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "T6", injuries=(1,))  # downed Hilbert carries the cloth
    place(g, "WCA9#0001", "M6")
    place(g, "SWyA#0001", "M5")
    g.state.cards["zwZA#0001"] = g.state.cards["zwZA#0001"].set(zone="play", at="T6", equipped_to="HMPU#0001",
                                                                  revealed=True)
    g.push("red initiative")
    g.push("blue move SWyA#0001 M5-T6")
    g.push("blue attack SWyA#0001 HMPU#0001")  # a final blow on the downed soul
    while g.state.bout is not None:
        g.push("blue roll attack 6")
        g.push("red roll defence 1,1")
    assert g.state.cards["HMPU#0001"].zone == "discard"
    assert [(p.kind, p.player) for p in g.state.pending[:2]] == [("grab", "blue"), ("grab", "red")]
    rejected(g, "red grab zwZA#0001 WCA9#0001", "#items", "no grab")
    g.push("blue grab zwZA#0001 SWyA#0001")
    g.push("red grab zwZA#0001 WCA9#0001")
    assert g.state.bout is not None and g.state.bout.grab == "zwZA#0001"
    for text in ("blue means SWyA#0001 1", "red means WCA9#0001 1", "blue roll attack 1", "red roll defence 6,6"):
        g.push(text)
    assert g.state.cards["zwZA#0001"].equipped_to == "WCA9#0001"
    assert (g.state.pending[0].kind, g.state.pending[0].cards) == ("damage", ("SWyA#0001",))


def test_card_effect_prison_holds_up_to_three_until_released() -> None:
    # #prison: "under the effect of certain cards, souls can be taken prisoner ... the souls resides in the
    # basecamp/capital in the territory where the prison is located ... Territories can support a max of 3
    # prisoners ... until it is liberated by meeting the conditions listed on the prison play effect"
    g = new_game(RED, BLUE)
    place(g, "SWyA#0001", "M7a")
    rejected(g, "red imprison SWyA#0001 6", "#prison", "does not hold territory 6")
    rejected(g, "red imprison HMPU#0001 7", "#prison", "not an enemy soul in play")
    g.push("red imprison SWyA#0001 7")
    wolf = g.state.cards["SWyA#0001"]
    assert wolf.zone == "prison" and wolf.at == "T7"
    for card in ("hLwQ#0001", "G8OO#0001"):
        place(g, card, "M7a")
        g.push(f"red imprison {card} 7")
    place(g, "Eppu#0001", "M7a")
    rejected(g, "red imprison Eppu#0001 7", "#prison", "already holds 3 prisoners")
    g.push("blue release SWyA#0001")
    assert g.state.cards["SWyA#0001"].zone == "play"
