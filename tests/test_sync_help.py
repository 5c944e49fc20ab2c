"""Out of sync explains itself: the stand, what the camera sees and the record expects, the rule and
reason of the rejected move, and what to do."""

from __future__ import annotations

from pathlib import Path

from tests.table_helpers import new_table, say, set_up
from tracker.service.seats import player
from tracker.service.service import TableService
from tracker.table.board import StandValue
from tracker.table.mat import SlotValue


def cards(*face_up: str) -> dict[str, SlotValue]:
    """The mat with a face-up card in each slot of `face_up` (a soul's card follows it, #movement)."""
    return {slot: SlotValue("up" if slot in face_up else "empty") for slot in "13459"}


def test_an_illegal_move_says_rule_reason_and_what_to_do(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    seen = set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    table.observe_mat(cards("1", "3"))
    seen["M4"] = StandValue("soul", "blue", 1)
    table.observe(dict(seen))
    table.observe_mat(cards("1", "4"))  # a soul out of its camp is a move when its card moves too
    seen["M5"] = StandValue("soul", "red", 1)  # Hilbert (movement 2) jumps three stands: illegal
    table.observe(dict(seen))
    table.observe_mat(cards("4", "5"))
    view = TableService(table).snapshot(player("red"))
    assert not view["in_sync"]
    [help_] = view["sync_help"]
    assert help_["stand"] == "M5" and help_["seen"] == "red soul" and help_["expected"] == "empty"
    assert help_["rule"] == "#movement" and "cannot reach M5" in help_["reason"]
    assert help_["todo"] == "take the red soul token off M5 (back to T1), or ask the judge"
    seen.pop("M5")
    table.observe(dict(seen))
    assert TableService(table).snapshot(player("red"))["sync_help"] == []
