"""Stable boards -> actions -> rules verdicts, without cameras."""

from __future__ import annotations

from rules.board_map import BoardMap
from tracker.board import EMPTY, StandValue
from tracker.reconcile import Reconciler, differences
from tracker.stabiliser import Stabiliser
from tracker.table import TableModel

HILBERT = "kpks.us/HMPU#0004?BFxDCJ"  # movement 2
OLY = "kpks.us/F3GW#0001?abcdef"  # Tears for Oly, movement 3


def board_with(**stands: StandValue) -> dict[str, StandValue]:
    board = {s: EMPTY for s in BoardMap.packaged().stands}
    board.update(stands)
    return board


def setup_table() -> tuple[TableModel, Reconciler, dict[str, StandValue]]:
    table = TableModel(BoardMap.packaged())
    rec = Reconciler(table)
    seen = board_with(T7=StandValue("capital", "red", 1), T4=StandValue("capital", "blue", 1),
                      T1=StandValue("basecamp", "red", 1), T3=StandValue("basecamp", "blue", 1))
    entries = rec.update(seen)
    assert [(e.action, e.accepted) for e in entries] == [
        ("blue capital T4", True), ("red capital T7", True), ("red basecamp T1", True), ("blue basecamp T3", True)]
    return table, rec, seen


def test_claims_are_recorded_and_basecamp_needs_capital() -> None:
    table = TableModel(BoardMap.packaged())
    rec = Reconciler(table)
    entries = rec.update(board_with(T8=StandValue("basecamp", "red", 1)))
    assert len(entries) == 1 and not entries[0].accepted and entries[0].rule == "#game_setup"
    entries = rec.update(board_with(T8=StandValue("basecamp", "red", 1)))
    assert entries == []  # the same rejected reading is not logged twice
    entries = rec.update(board_with(T7=StandValue("capital", "red", 1), T8=StandValue("basecamp", "red", 1)))
    assert [(e.action, e.accepted) for e in entries] == [("red capital T7", True), ("red basecamp T8", True)]
    assert table.claims == {"T7": ("capital", "red"), "T8": ("basecamp", "red")}


def test_soul_leaving_a_base_camp_then_illegal_then_fixed() -> None:
    table, rec, seen = setup_table()
    assert table.play_soul("phone:red", "red", HILBERT, "T1").accepted
    assert "BFxDCJ" not in repr(table.log)  # the per-copy token is a secret
    seen["M9"] = StandValue("soul", "red", 1)
    [move] = rec.update(seen)
    assert move.accepted and move.action == "red move HMPU#0004 T1-M9"
    # M9 -> M5 is three stands: rejected, flagged, the record keeps the soul on M9.
    seen["M9"], seen["M5"] = EMPTY, StandValue("soul", "red", 1)
    [bad] = rec.update(seen)
    assert not bad.accepted and bad.rule == "#movement" and "movement range is 2" in bad.message
    assert table.souls["HMPU#0004"].stand == "M9"
    assert differences(table, seen) == ["M5: board shows red soul, record expects empty",
                                        "M9: board shows empty, record expects red soul"]
    # The players put the token back: in sync again, nothing new logged.
    seen["M5"], seen["M9"] = EMPTY, StandValue("soul", "red", 1)
    assert rec.update(seen) == [] and differences(table, seen) == []
    # Then a legal move.
    seen["M9"], seen["M8"] = EMPTY, StandValue("soul", "red", 1)
    [ok] = rec.update(seen)
    assert ok.accepted and ok.action == "red move HMPU#0004 M9-M8"


def test_enemy_on_movement_stand_blocks_the_way() -> None:
    table, rec, seen = setup_table()
    table.play_soul("phone:red", "red", HILBERT, "T1")
    table.play_soul("phone:blue", "blue", OLY, "T3")
    seen["M1"] = StandValue("soul", "blue", 1)
    [blue] = rec.update(seen)
    assert blue.accepted and blue.action == "blue move F3GW#0001 T3-M1"
    # red T1 -> T5 would be two stands via M1 (blocked by blue) or M6 ... T1-M6-T5 is free: accepted.
    table.play_soul("phone:red", "red", "kpks.us/SWyA#0001?zz", "T7")  # Gray Wolf, movement 1
    assert table.souls["SWyA#0001"].stand == "T7"


def test_playing_a_soul_outside_own_base_camp_is_rejected() -> None:
    table, _, _ = setup_table()
    entry = table.play_soul("phone:red", "red", HILBERT, "T3")
    assert not entry.accepted and entry.rule == "#movement"
    entry = table.play_soul("phone:red", "red", "kpks.us/ioqs#0002?x", "T1")  # a terrain feature
    assert not entry.accepted and "not a soul" in entry.message


def test_stabiliser_ignores_obstructed_frames_and_needs_agreement() -> None:
    stab = Stabiliser(frames=3)
    red = StandValue("soul", "red", 1)
    assert stab.feed({"M1": (EMPTY, False)}) == {"M1": EMPTY}
    assert stab.feed({"M1": (red, True)}) == {}  # a hand: no change
    assert stab.feed({"M1": (red, False)}) == {}
    assert stab.feed({"M1": (red, False)}) == {}
    assert stab.feed({"M1": (red, True)}) == {}  # obstruction does not reset agreement
    assert stab.feed({"M1": (red, False)}) == {"M1": red}
    assert stab.board() == {"M1": red}
    assert stab.feed({"M1": (EMPTY, False)}) == {} and stab.pending() == {"M1": EMPTY}
