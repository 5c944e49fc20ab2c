"""Game rules beyond the golden file: each test sets up a position and checks one rule section."""

from __future__ import annotations

import pytest

from rules.kipukas.game import Game, Rejected
from rules.kipukas.notation import parse
from tests.game_helpers import new_game, place, play_until

RED = ["HMPU#0001", "WCA9#0001", "FOFE#0001", "K-LE#0001", "zwZA#0001", "PhAU#0001", "jSYU#0001"]
BLUE = ["SWyA#0001", "hLwQ#0001", "F3GW#0001", "K_vJ#0001", "G8OO#0001", "ZrrD#0001", "Eppu#0001"]


def rejected(g: Game, text: str, rule: str, words: str) -> None:
    before = g.to_text()
    verdict = g.apply(text)
    assert not verdict.accepted, f"{text} was accepted"
    assert verdict.rule == rule, verdict
    assert words in verdict.message and text in verdict.message, verdict.message
    assert g.to_text() == before


def test_rejection_raises_with_rule_and_phase_and_undo_restores() -> None:
    g = new_game(RED, BLUE)
    with pytest.raises(Rejected, match=r"'red move HMPU#0001 T7-T1' rejected in the day phase: .*#card_variations"):
        g.push("red move HMPU#0001 T7-T1")
    before = g.to_text()
    g.push("red play HMPU#0001 7 revealed")
    assert g.to_text() != before
    assert g.undo() == parse("red play HMPU#0001 7 revealed")
    assert g.to_text() == before
    with pytest.raises(IndexError):
        Game.new({"red": [], "blue": []}).undo()


def test_summoning_sickness_unrevealed_waits_a_day_revealed_moves_at_once() -> None:
    g = new_game(RED, BLUE)
    g.push("red play HMPU#0001 7 unrevealed")
    g.push("blue play SWyA#0001 6 revealed")
    g.push("blue tame SWyA#0001 tamed")
    g.push("red reveal HMPU#0001")
    g.push("blue move SWyA#0001 T6-M5")  # played revealed: free to move the same day
    rejected(g, "red move HMPU#0001 T7-M7a", "#summoning_sickness", "played unrevealed today")
    play_until(g, "night")
    play_until(g, "day")
    g.push("red move HMPU#0001 T7-M7a")


def test_three_souls_per_player_per_territory() -> None:
    g = new_game(["HMPU#0001", "WCA9#0001", "AnxM#0001", "nqTG#0001", "FOFE#0001"], BLUE)
    place(g, "FOFE#0001", "T8")
    place(g, "nqTG#0001", "M8")
    place(g, "SWyA#0001", "M7b")  # enemy souls do not count towards red's limit
    g.push("red play AnxM#0001 8 unrevealed")  # the third: unrevealed souls take space too
    assert g.prompts()[0].rule == "#tameability"
    g.push("red tame AnxM#0001 tamed")
    g.push("blue initiative")
    rejected(g, "red play WCA9#0001 8 revealed", "#maps", "already has 3 souls in territory 8")
    g.push("red play HMPU#0001 7 revealed")
    rejected(g, "red move HMPU#0001 T7-T8", "#maps", "already has 3 souls in territory 8")
    g.push("red move HMPU#0001 T7-M7a")  # within territory 7: fine


def test_three_cards_per_diel_roll() -> None:
    g = new_game(RED, BLUE)
    g.state.players["red"] = g.state.players["red"].set(played_this_roll=3)
    rejected(g, "red play HMPU#0001 7 revealed", "#game_setup", "already played 3 cards this diel roll")


def test_enemy_on_a_movement_stand_cannot_be_passed_but_a_flyer_passes() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "T1")  # Hilbert, movement 2
    place(g, "SWyA#0001", "M9")
    rejected(g, "red move HMPU#0001 T1-M8", "#movement", "passes an enemy waiting on a movement stand")
    g.push("red move HMPU#0001 T1-M7b")
    place(g, "F3GW#0001", "T2")  # Tears for Oly: heavens dweller, movement 3
    g.push("blue move F3GW#0001 T2-M8")


def test_moving_onto_an_enemy_forces_an_attack() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "T7")
    place(g, "SWyA#0001", "M7a")
    g.push("red move HMPU#0001 T7-M7a")
    assert g.prompts()[0].text.startswith("your soul moved onto an enemy on M7a")
    rejected(g, "red stop", "#ADRH", "must attack at least once")
    rejected(g, "blue initiative", "#diel_cycle", "need an answer from red")
    g.push("red attack HMPU#0001 SWyA#0001")
    assert g.state.bout is not None and not g.state.bout.final


def test_water_needs_a_swim_and_one_attempt_per_day() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "T3")
    rejected(g, "red move HMPU#0001 T3-MW", "#movement", "crosses water")
    g.push("red swim HMPU#0001 3,4")
    rejected(g, "red swim HMPU#0001 2,2", "#geography", "already tried to swim today")
    play_until(g, "night")
    play_until(g, "day")
    g.push("red swim HMPU#0001 2,2")
    g.push("red move HMPU#0001 T3-MW")
    assert g.state.cards["HMPU#0001"].swimming


def test_nomads_swim_with_a_d6() -> None:
    g = new_game(RED, BLUE)
    g.push("red initiative")
    place(g, "Eppu#0001", "T4")  # Knightsoul: nomad, movement 2
    rejected(g, "blue swim Eppu#0001 2,2", "#habitat_effects", "a D6")
    g.push("blue swim Eppu#0001 2")
    g.push("blue move Eppu#0001 T4-MW")


def test_downed_movement_one_needs_escort() -> None:
    g = new_game(RED, BLUE)
    place(g, "WCA9#0001", "T7", injuries=(1, 1, 0))  # Illia: tolerance 2, movement 1
    rejected(g, "red move WCA9#0001 T7-M7a", "#moving_downed_souls", "escort")


def test_retreat_challenged_and_escaped() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "M7a")
    place(g, "SWyA#0001", "M7a")
    play_until(g, "night")
    play_until(g, "day")
    assert ("red", "7") in g.state.contention_due
    rejected(g, "red play WCA9#0001 7 revealed", "#day", "contention in territory 7")
    rejected(g, "red retreat HMPU#0001 T1", "#retreat", "not within 2")
    rejected(g, "red retreat HMPU#0001 T7", "#retreat", "leaves the contested territory")
    g.push("red retreat HMPU#0001 T8")
    g.push("blue challenge challenge")
    rejected(g, "red roll chase 5", "#retreat", "red rolls 'escape'")
    g.push("red roll escape 5,6")
    g.push("blue roll chase 10")
    assert g.state.cards["HMPU#0001"].at == "T8"
    assert g.state.active == "blue" and not g.state.contention_due


def test_retreat_caught_loses_attacks_for_the_day() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "M7a")
    place(g, "SWyA#0001", "M7a")
    play_until(g, "night")
    play_until(g, "day")
    g.push("red retreat HMPU#0001 T8")
    g.push("blue challenge challenge")
    g.push("blue roll chase 12")
    g.push("red roll escape 5,6")
    hilbert = g.state.cards["HMPU#0001"]
    assert hilbert.at == "M7a" and hilbert.exhausted


def test_storm_injures_exposed_souls_and_wastes_downed_ones() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "M7a")
    place(g, "WCA9#0001", "M7b", injuries=(1, 1, 0))  # forest: no plains healing
    place(g, "FOFE#0001", "T7")  # in a base camp: sheltered
    play_until(g, "diel")
    g.push("blue roll diel storm")
    assert g.state.cards["WCA9#0001"].zone == "discard"
    assert [p.kind for p in g.state.pending] == ["damage"]
    rejected(g, "red roll diel day", "#diel_cycle", "both players have finished")
    g.push("red injure HMPU#0001 1")
    assert g.state.phase == "diel" and g.state.cards["FOFE#0001"].injuries == (0, 0)


def test_loitering_in_the_enemy_capital_means_prison_and_capture_frees() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "T4")
    play_until(g, "night")
    assert g.state.cards["HMPU#0001"].zone == "prison"
    assert g.state.claims["4"] == ("blue", "capital")


def test_capital_is_taken_last_and_taking_everything_wins() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "M4")
    g.push("red move HMPU#0001 M4-T4")
    assert g.state.claims["4"] == ("blue", "capital")  # blue still holds camps 5 and 6
    for t in ("1", "2", "3", "5", "6"):
        g.state.claims[t] = ("red", "camp")
    g.push("blue initiative")  # claims settle after every action: blue's capital is now the last
    assert g.result == "red wins: holds every base camp and capital (#win)"
    rejected(g, "blue end", "#win", "the game is over")


def test_forced_peace_when_no_souls_and_no_cards_remain() -> None:
    g = new_game(RED, BLUE)
    for cs in list(g.state.cards.values()):
        g.state.cards[cs.id] = cs.set(zone="discard")
    g.state.claims["1"] = ("red", "camp")
    g.push("red initiative")
    assert g.state.phase == "peace"
    g.push("blue peace keep")
    g.push("red peace keep")
    assert g.result == "red wins: forced peace kept, 4 territories to 3 (#discarding_runout)"


def test_steal_never_beyond_three_cards() -> None:
    g = new_game(RED, BLUE)
    rejected(g, "red steal SWyA#0001", "#stealing", "more than 3 cards")
    g.push("red play HMPU#0001 7 revealed")
    g.push("red steal K_vJ#0001")
    assert g.state.cards["K_vJ#0001"].zone == "hand" and g.state.cards["K_vJ#0001"].control == "red"


def test_default_effect_card_is_played_in_five_diel_cycles() -> None:
    g = Game.new({"red": RED, "blue": BLUE})
    for text in ["red affinity Avian", "blue affinity Decrepit", "red roll d6 2", "blue roll d6 5",
                 "blue capital 4", "red capital 9", "blue camp 6", "red camp 7", "blue camp 5", "red camp 8",
                 "red default HMPU#0001", "blue personal none", "red draw WCA9#0001,FOFE#0001,K-LE#0001",
                 "blue draw SWyA#0001,hLwQ#0001,F3GW#0001"]:
        g.push(text)
    rejected(g, "red play HMPU#0001 7 revealed", "#personal_effects", "diel cycle 6")
    while g.state.turn < 6:
        play_until(g, "diel") if g.state.phase != "diel" else None
        g.push("red roll diel day")
    assert any("default-effect card is due" in p.text for p in g.prompts())
    g.push("red play HMPU#0001 7 revealed")


def test_first_three_turns_are_day_night_day() -> None:
    g = new_game(RED, BLUE)
    kinds = []
    for _ in range(3):
        kinds.append(g.state.phase)
        rejected(g, "red roll diel night", "#diel_cycle", "both players have finished")
        play_until(g, "night" if g.state.phase == "day" else "day") if g.state.turn < 3 else play_until(g, "diel")
    assert kinds == ["day", "night", "day"] and g.state.phase == "diel"


def test_trap_roll_prompt_and_detection() -> None:
    g = new_game(["K-LE#0001", *(c for c in RED if c != "K-LE#0001")], BLUE)
    g.push("red play K-LE#0001 7 unrevealed")
    place(g, "SWyA#0001", "T6")
    g.push("blue move SWyA#0001 T6-T7")
    prompt = g.prompts()[0]
    assert prompt.player == "blue" and prompt.rule == "#card_activation" and "roll a D20" in prompt.text
    rejected(g, "red roll d20 3", "#card_activation", "no trap activation/detection roll is due from red")
    g.push("blue roll d20 3")
    g.push("red trap K-LE#0001 idle")
    assert g.state.cards["K-LE#0001"].zone == "discard"
    assert g.state.claims["7"] == ("blue", "camp")


def test_digital_cloud_souls_cannot_take_camps() -> None:
    g = new_game(RED, BLUE)
    g.state.cards["ojod#0001"] = g.state.cards["Eppu#0001"].set(id="ojod#0001", code="ojod", owner="red",
                                                                 injuries=(0,))
    place(g, "ojod#0001", "T1")
    g.push("red initiative")
    assert "1" not in g.state.claims


def test_underground_dwellers_use_tunnels_others_do_not() -> None:
    import dataclasses

    g = new_game(RED, BLUE)
    g.board = dataclasses.replace(g.board, extras={**g.board.extras, "tunnels": [{"a": "T7", "b": "T3"}]})
    place(g, "HMPU#0001", "T7")
    place(g, "WCA9#0001", "T7")  # Illia and Dorsay: underground dweller, movement 1
    rejected(g, "red move HMPU#0001 T7-T3", "#movement", "cannot reach T3")
    g.push("red move WCA9#0001 T7-T3")


def test_reinforcement_joins_the_fight_without_a_trap_roll() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "T7")
    place(g, "FOFE#0001", "T8")   # Brox, movement 1, in uncontended territory 8
    place(g, "SWyA#0001", "M7b")
    g.state.cards["K_vJ#0001"] = g.state.cards["K_vJ#0001"].set(zone="play", at="T7")  # blue's unrevealed trap
    g.push("red initiative")
    g.push("blue move SWyA#0001 M7b-T7")  # within territory 7: no trap roll; Hilbert must be attacked
    assert [p.note for p in g.state.pending] == ["must-attack"]
    g.push("blue attack SWyA#0001 HMPU#0001")
    g.push("blue means SWyA#0001 1")
    g.push("red means HMPU#0001 1")
    g.push("blue roll attack 1")
    g.push("red roll defence 6,6")
    rejected(g, "red move FOFE#0001 T8-M8", "#retreat", "only to reinforce")
    g.push("red move FOFE#0001 T8-M7a")
    assert g.state.cards["FOFE#0001"].at == "M7a"
    assert not any(p.kind == "trap-roll" for p in g.state.pending)
    assert g.state.pending[0].note == "respond" and g.state.pending[0].player == "red"


def test_plains_heal_one_means_per_two_cycles_rested() -> None:
    g = new_game(RED, BLUE)
    place(g, "FOFE#0001", "T8", injuries=(1, 0))  # Brox: tolerance 3, territory 8 is plains
    play_until(g, "night")
    assert not g.state.pending and g.state.cards["FOFE#0001"].rested == 1
    g.push("red initiative")
    g.push("blue end")
    prompt = g.prompts()[0]
    assert prompt.player == "red" and prompt.rule == "#habitat_effects" and "heal" in prompt.text
    rejected(g, "red heal FOFE#0001 2", "#keal_means_DHT", "is not injured")
    g.push("red heal FOFE#0001 1")
    assert g.state.cards["FOFE#0001"].injuries == (0, 0)


def test_volcanic_ground_burns_all_but_volcanic_dwellers() -> None:
    import dataclasses

    g = new_game(["AnxM#0001", *RED], BLUE)
    volcanic = dataclasses.replace(g.board.territories["8"], geography="volcanic")
    g.board = dataclasses.replace(g.board, territories={**g.board.territories, "8": volcanic})
    place(g, "FOFE#0001", "T8")
    place(g, "AnxM#0001", "M8")  # Arctechnic Wonderer: volcanic dweller, immune
    place(g, "HMPU#0001", "M7a", injuries=(1,))  # downed, but in forest: untouched
    play_until(g, "night")
    assert [(p.kind, p.cards) for p in g.state.pending] == [("damage", ("FOFE#0001",))]
    rejected(g, "red initiative", "#diel_cycle", "need an answer from red")
    g.push("red injure FOFE#0001 2")
    assert g.state.cards["FOFE#0001"].injuries == (0, 1)


def test_contention_that_ended_is_no_longer_due() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "M7a")
    place(g, "SWyA#0001", "M7a")
    play_until(g, "night")
    play_until(g, "day")
    assert ("red", "7") in g.state.contention_due
    g.state.cards["SWyA#0001"] = g.state.cards["SWyA#0001"].set(zone="discard", at=None)  # a card effect
    g.push("red discard FOFE#0001")  # any accepted input re-checks contention
    assert not g.state.contention_due
    g.push("red play WCA9#0001 7 revealed")


def test_prisoners_are_freed_when_their_owner_takes_the_territory() -> None:
    g = new_game(RED, BLUE)
    place(g, "HMPU#0001", "T4")
    play_until(g, "night")
    assert g.state.cards["HMPU#0001"].zone == "prison"
    play_until(g, "day")
    for t in ("1", "2", "3", "5", "6"):  # #maps: the capital falls once every other territory is red's
        g.state.claims[t] = ("red", "camp")
    place(g, "WCA9#0001", "M4")
    g.push("red move WCA9#0001 M4-T4")
    assert g.state.claims["4"] == ("red", "camp")
    assert g.state.cards["HMPU#0001"].zone == "play"


def test_capture_transfers_terrain_features_and_reveals_them() -> None:
    g = new_game(RED, BLUE)
    g.state.cards["ioqs#0001"] = g.state.cards["K_vJ#0001"].set(id="ioqs#0001", code="ioqs")
    g.state.cards["ioqs#0001"] = g.state.cards["ioqs#0001"].set(zone="play", at="T6")  # blue terrain, unrevealed
    place(g, "HMPU#0001", "M5")
    g.push("red move HMPU#0001 M5-T6")
    g.push("red roll d20 10")
    feature = g.state.cards["ioqs#0001"]
    assert g.state.claims["6"] == ("red", "camp") and feature.control == "red" and feature.revealed


def test_a_new_terrain_feature_replaces_the_old_one() -> None:
    g = new_game(["ioqs#0001", "I19b#0001", *RED], BLUE)
    g.push("red play ioqs#0001 7 unrevealed")
    g.push("blue initiative")
    g.push("red play I19b#0001 7 revealed")
    assert g.state.cards["ioqs#0001"].zone == "discard" and g.state.cards["I19b#0001"].zone == "play"


def test_night_bottom_then_draw_takes_unknown_cards_first_and_craft_equips() -> None:
    g = new_game(["zwZA#0001", "PhAU#0001", "HMPU#0001", "WCA9#0001", "FOFE#0001", "jSYU#0001"], BLUE)
    place(g, "HMPU#0001", "T7")
    g.state.cards["HMPU#0001"] = g.state.cards["HMPU#0001"].set(zone="play")
    play_until(g, "night")
    g.push("red craft zwZA#0001,PhAU#0001 HMPU#0001")
    assert g.state.cards["zwZA#0001"].equipped_to == "HMPU#0001"
    g.push("blue bottom")
    rejected(g, "red craft zwZA#0001,PhAU#0001 7", "#night", "already used 'craft'")
    g.push("red draw WCA9#0001,FOFE#0001,jSYU#0001")
    rejected(g, "blue draw SWyA#0001,hLwQ#0001,F3GW#0001", "#night", "was put at the bottom of the deck")
    g.push("blue draw K_vJ#0001,G8OO#0001,ZrrD#0001")
    play_until(g, "day")
    g.push("red move HMPU#0001 T7-M7a")
    assert g.state.cards["PhAU#0001"].at == "M7a"  # equipped items travel with the soul


def test_setup_prompts_name_who_must_act() -> None:
    g = Game.new({"red": RED, "blue": BLUE})
    assert [(p.player, p.rule) for p in g.prompts()] == [("red", "#game_setup"), ("blue", "#game_setup")]
    g.push("red affinity Avian")
    assert [p.player for p in g.prompts()] == ["blue"]


def test_a_sprung_trap_that_removes_the_mover_ends_its_obligation_to_attack() -> None:
    g = new_game(["K-LE#0001", *(c for c in RED if c != "K-LE#0001")], BLUE)
    place(g, "HMPU#0001", "T7")
    g.push("red play K-LE#0001 7 unrevealed")
    place(g, "SWyA#0001", "T6")
    g.push("blue move SWyA#0001 T6-T7")
    g.push("blue roll d20 17")
    g.push("red trap K-LE#0001 sprung")
    assert [p.note for p in g.state.pending] == ["must-attack"]
    g.push("blue discard SWyA#0001")  # the trap's printed effect wasted the wolf
    assert not g.state.pending and g.state.active == "red"
