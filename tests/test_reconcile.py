"""Stable boards -> actions in notation -> the rules engine -> the record, without cameras."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.table_helpers import new_table, say, set_up
from tracker.errors import InputError
from tracker.table.board import EMPTY, StandValue
from tracker.table.mat import SlotValue
from tracker.table.stabiliser import Stabiliser
from tracker.table.table import Entry, Table

RED = StandValue("soul", "red", 1)
BLUE = StandValue("soul", "blue", 1)


def actions(table_entries: list) -> list[tuple[str, bool]]:  # type: ignore[type-arg]
    return [(e.text, e.accepted) for e in table_entries if e.kind == "action"]


def cards(table: Table, *face_up: str) -> list[Entry]:
    """The mat after a soul's move (#movement: its card goes to the slot of the territory it moved into):
    the slots of territories 1, 3, 4, 5 and 9 empty but for `face_up`. A soul token appearing out of a base
    camp is a move only when its card is seen moving too (a die can look like a soul token)."""
    return table.observe_mat({slot: SlotValue("up" if slot in face_up else "empty") for slot in "13459"})


def test_setup_claims_come_from_the_tokens(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    set_up(table)
    claims = [e.text for e in table.entries() if e.source == "overhead" and e.kind == "action"]
    assert claims == ["red capital 7", "blue capital 4", "red camp 8", "blue camp 3", "red camp 1", "blue camp 5"]
    assert table.differences() == []


def test_claims_out_of_turn_are_rejected_and_not_repeated(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    say(table, "red affinity Avian", "blue affinity Decrepit", "red roll d6 5", "blue roll d6 2")
    seen = {"T4": StandValue("capital", "blue", 1)}
    [_, entry] = table.observe(seen)
    assert not entry.accepted and entry.text == "blue capital 4" and entry.rule == "#game_setup"
    seen = {"T4": StandValue("capital", "blue", 1), "M1": EMPTY}  # another reading of the same board
    assert actions(table.observe(seen)) == []  # the same rejection is not recorded twice
    both = {"T4": StandValue("capital", "blue", 1), "T7": StandValue("capital", "red", 1)}
    assert actions(table.observe(both)) == [("red capital 7", True), ("blue capital 4", True)]


def test_illegal_move_is_recorded_flagged_and_put_right(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    seen = set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    cards(table, "1", "3")
    seen["M4"] = BLUE
    assert actions(table.observe(dict(seen))) == []  # a token out of a camp alone: asked, not recorded
    assert actions(cards(table, "1", "4")) == [("blue move F3GW#0001 T3-M4", True)]  # its card moved: seen
    seen["M5"] = RED
    table.observe(dict(seen))
    [bad] = [e for e in cards(table, "4", "5") if e.kind == "action"]
    assert (bad.text, bad.accepted, bad.rule) == ("red move HMPU#0004 T1-M5", False, "#movement")
    assert "M5: board shows red soul, record expects empty" in table.differences()
    assert table.game.state.cards["HMPU#0004"].at == "T1"
    seen["M5"] = EMPTY
    assert actions(table.observe(dict(seen))) == [] and actions(cards(table, "1", "4")) == []
    assert table.differences() == []
    seen["M9"] = RED
    table.observe(dict(seen))
    assert actions(cards(table, "4", "9")) == [("red move HMPU#0004 T1-M9", True)]


def test_two_quick_moves_in_one_reading_are_both_recorded(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    seen = set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    cards(table, "1", "3")
    seen["M4"], seen["M9"] = BLUE, RED  # blue moved, then red moved, before the camera saw a clear view
    table.observe(dict(seen))
    assert actions(cards(table, "4", "9")) == [("blue move F3GW#0001 T3-M4", True), ("red move HMPU#0004 T1-M9", True)]
    assert table.differences() == []


def test_ambiguous_token_becomes_a_question_to_its_player(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    seen = set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed", "blue initiative",
        "red play WCA9#0001 1 revealed")
    seen["M9"] = RED  # Hilbert or Illia and Dorsay left the base camp on territory 1?
    [_board, question] = table.observe(dict(seen))
    assert question.kind == "question" and table.questions[-1].player == "red"
    assert set(table.questions[-1].options) == {"red move HMPU#0004 T1-M9", "red move WCA9#0001 T1-M9"}
    entry = table.act("phone:red", "red move WCA9#0001 T1-M9")  # the answer
    assert entry.accepted and table.differences() == [] and table.questions == []


def test_bad_notation_is_refused_and_records_nothing(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    before = table.record.last_seq
    with pytest.raises(InputError, match="red fly"):
        table.act("phone:red", "red fly HMPU#0004 to the moon")
    assert table.record.last_seq == before


def test_judge_undo_and_correction_are_entries_and_survive_restart(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed")
    wrong = table.act("phone:red", "red play SWyA#0001 1 revealed")
    assert wrong.accepted
    undo = table.undo("judge", "red meant Hilbert")
    assert undo.kind == "undo" and table.game.state.cards["SWyA#0001"].zone == "hand"
    say(table, "red play SWyA#0001 8 revealed")
    fix = table.correct("judge", table.record.last_seq, "red play HMPU#0004 8 revealed", "wrong card read")
    assert fix.kind == "correct"
    assert table.game.state.cards["HMPU#0004"].at == "T8" and table.game.state.cards["SWyA#0001"].zone == "hand"
    state = table.game.to_text()
    table.record.close()
    again = new_table(tmp_path)  # a restart replays the record
    assert again.game.to_text() == state and again.record.verify().ok
    with pytest.raises(InputError, match="not an action row"):
        again.correct("judge", 1, "red end", "row 1 is the start row")


def test_stabiliser_ignores_obstructed_frames_and_needs_agreement() -> None:
    stab = Stabiliser(frames=3)
    assert stab.feed({"M1": (EMPTY, False)}) == {"M1": EMPTY}
    assert stab.feed({"M1": (RED, True)}) == {}  # a hand: no change
    assert stab.feed({"M1": (RED, False)}) == {}
    assert stab.feed({"M1": (RED, False)}) == {}
    assert stab.feed({"M1": (RED, True)}) == {}  # obstruction does not reset agreement
    assert stab.feed({"M1": (RED, False)}) == {"M1": RED}
    assert stab.board() == {"M1": RED}
    assert stab.feed({"M1": (EMPTY, False)}) == {} and stab.pending() == {"M1": EMPTY}


def test_card_shown_to_the_front_camera_becomes_a_question(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    set_up(table)
    [shown, question] = table.shown("front", "F3GW#0001")
    assert shown.kind == "shown" and question.kind == "question"
    [q] = table.questions
    assert q.player == "blue" and "blue play F3GW#0001 3 revealed" in q.options
    assert "blue play F3GW#0001 7 revealed" not in q.options  # red's capital: not legal for blue
    assert table.act("phone:blue", "blue play F3GW#0001 3 revealed").accepted
    assert table.questions == []  # answered
    assert table.shown("front", "QQQQ#0001")[0].kind == "shown" and table.questions == []  # not in this game


def test_a_stack_of_souls_looks_like_one_token_and_stays_in_sync(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    seen = set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed", "blue initiative",
        "red play WCA9#0001 1 revealed", "red move HMPU#0004 T1-M9", "red move WCA9#0001 T1-M9")
    assert table.expected()["M9"] == StandValue("soul", "red", 2)  # the record knows the stack
    seen["M9"] = RED  # the camera sees one token
    table.observe(dict(seen))
    assert table.differences() == [] and [e for e in table.entries() if e.kind == "question"] == []


def test_a_token_placed_before_the_card_was_declared_is_explained_afterwards(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    seen = set_up(table)
    say(table, "blue play F3GW#0001 3 revealed")
    cards(table, "3")
    seen["M9"] = RED  # red moves a token out before declaring the soul on the phone
    assert [e.kind for e in table.observe(dict(seen))] == ["board"]  # nothing in play can explain it yet
    say(table, "red play HMPU#0004 1 revealed", "blue initiative")
    assert actions(cards(table, "3", "9")) == [("red move HMPU#0004 T1-M9", True)]
    assert table.observe(dict(seen)) == []  # offered again: nothing more


def test_a_move_declared_on_a_phone_before_the_camera_sees_it_is_not_undone(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    seen = set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed", "blue initiative",
        "red move HMPU#0004 T1-M9")
    assert table.observe(dict(seen)) == []  # the stale board (no token on M9 yet) is not a move back
    assert table.game.state.cards["HMPU#0004"].at == "M9"
    seen["M9"] = RED
    assert [e.kind for e in table.observe(dict(seen))] == ["board"] and table.differences() == []
