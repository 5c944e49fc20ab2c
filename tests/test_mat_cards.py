"""Cards on the mat drive the game (#placement, #mats): stable slot readings become plays and reveals, the
trap roll is prompted from what the camera saw, what cannot be attributed is flagged, never guessed, and a
face-down card's identity reaches only its owner and judges."""

from __future__ import annotations

import json
from pathlib import Path

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import new_table, say, set_up
from tracker.overhead.layout import table_layout
from tracker.service.seats import JUDGE, SPECTATOR, player
from tracker.service.views import view_for
from tracker.table.board import StandValue
from tracker.table.mat import EMPTY_SLOT, SlotValue
from tracker.table.table import Table

WOLF = "SWyA#0001"  # red's Gray Wolf (a species)


def empty_mat() -> dict[str, SlotValue]:
    return {spec.id: EMPTY_SLOT for spec in table_layout(BoardMap.packaged()).slots}


def mat_with(**slots: SlotValue) -> dict[str, SlotValue]:
    mat = empty_mat()
    mat.update(slots)
    return mat


def camera_actions(table: Table) -> list[tuple[str, bool]]:
    """The card actions the overhead camera recorded (claims during set-up are the stands' business)."""
    return [(e.text, e.accepted) for e in table.entries() if e.kind == "action" and e.source == "overhead"
            and e.text.split(" ")[1] in ("play", "reveal", "move")]


def test_a_face_down_card_becomes_the_play_its_qr_names_and_stays_private(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed")
    table.observe_mat(mat_with(**{"3": SlotValue("up"), "1": SlotValue("down", WOLF)}))
    assert camera_actions(table)[-1] == (f"red play {WOLF} 1 unrevealed", True)
    assert table.mat_flags == [] and table.game.state.cards[WOLF].zone == "play"
    # Only red and the judge may know which card lies face down in slot 1.
    for viewer in (player("blue"), SPECTATOR):
        text = json.dumps(view_for(table, viewer))
        assert WOLF not in text and "Gray Wolf" not in text, viewer
    assert WOLF in json.dumps(view_for(table, player("red")))
    judge = view_for(table, JUDGE)
    assert any(e["kind"] == "mat" and WOLF in e["action"] for e in judge["log"])  # the camera's row


def test_a_card_turned_over_is_a_reveal_and_a_shown_card_laid_face_up_is_a_revealed_play(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    set_up(table)
    table.shown("front", "F3GW#0001")
    table.observe_mat(mat_with(**{"3": SlotValue("up")}))
    assert camera_actions(table) == [("blue play F3GW#0001 3 revealed", True)]
    table.observe_mat(mat_with(**{"3": SlotValue("up"), "1": SlotValue("down", WOLF)}))
    say(table, f"red tame {WOLF} tamed", "blue initiative")
    table.observe_mat(mat_with(**{"3": SlotValue("up"), "1": SlotValue("up")}))
    assert camera_actions(table)[-1] == (f"red reveal {WOLF}", True)
    assert table.game.state.cards[WOLF].revealed and table.differences() == []


def test_the_trap_roll_is_prompted_when_a_soul_enters_where_the_camera_saw_an_unrevealed_card(
        tmp_path: Path) -> None:
    table = new_table(tmp_path)
    seen = set_up(table)
    table.shown("front", "F3GW#0001")
    table.observe_mat(mat_with(**{"3": SlotValue("up")}))  # Tears for Oly, played revealed at T3
    table.observe_mat(mat_with(**{"3": SlotValue("up"), "1": SlotValue("down", WOLF)}))  # red's, unrevealed
    say(table, f"red tame {WOLF} tamed")
    seen["M1"] = StandValue("soul", "blue", 1)  # Oly: T3 -> M1, into territory 1, its card onto slot 1
    table.observe(dict(seen))
    table.observe_mat(mat_with(**{"1": SlotValue("up")}))
    assert camera_actions(table)[-1] == ("blue move F3GW#0001 T3-M1", True)
    prompts = table.game.prompts()
    assert any(p.player == "blue" and p.rule == "#card_activation" and "d20" in p.text.lower() for p in prompts), \
        prompts
    # The prompt reaches blue's phone without naming red's face-down card.
    blue = view_for(table, player("blue"))
    assert any(p["mine"] and "d20" in p["text"].lower() for p in blue["prompts"])
    assert WOLF not in json.dumps(blue)


def test_what_cannot_be_attributed_is_flagged_never_guessed(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    set_up(table)
    before = len(table.game.history)
    # A card that is in neither deck, a card in two slots at once, a face-down card whose QR cannot be read,
    # and a face-up card nobody showed to the front camera.
    table.observe_mat(mat_with(**{"1": SlotValue("down", "ZZZZ#0009"), "8": SlotValue("down", WOLF),
                                  "7": SlotValue("down", WOLF), "3": SlotValue("down"), "5": SlotValue("up")}))
    assert len(table.game.history) == before and camera_actions(table) == []
    flags = "\n".join(table.differences())
    assert "slot 1: a face-down card that is in neither registered deck" in flags
    assert "seen in two slots at once (7, 8)" in flags
    assert "slot 3: a face-down card whose QR code cannot be read" in flags
    assert "slot 5: a face-up card the record does not have" in flags
    assert WOLF not in flags and "ZZZZ" not in flags  # flags are for everyone: no face-down card named
    assert not view_for(table, SPECTATOR)["in_sync"]
    # Put right, the table is in sync again.
    table.observe_mat(empty_mat())
    assert table.differences() == [] and view_for(table, SPECTATOR)["in_sync"]


def test_a_card_missing_from_its_slot_is_out_of_sync_and_a_restart_keeps_the_mat(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    set_up(table)
    table.shown("front", "F3GW#0001")
    table.observe_mat(mat_with(**{"3": SlotValue("up")}))
    table.observe_mat(empty_mat())
    assert any(f.startswith("slot 3: the record has 1 card(s) here, the mat shows none") for f in table.differences())
    again = Table(table.board, table.record)
    assert again.mat == table.mat and again.game.to_text() == table.game.to_text()


def test_a_card_taken_off_the_mat_is_asked_about_never_discarded_by_the_camera(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed")
    table.observe_mat(mat_with(**{"3": SlotValue("up"), "1": SlotValue("down", WOLF)}))
    history = len(table.game.history)
    table.observe_mat(mat_with(**{"3": SlotValue("up")}))
    assert len(table.game.history) == history  # nothing happened to the card as far as the record goes
    assert table.game.state.cards[WOLF].zone == "play"
    (q,) = table.questions
    assert q.player == "red" and q.options == (f"red discard {WOLF}",)
    # The question names red's face-down card: blue's phone gets it redacted.
    assert WOLF not in json.dumps(view_for(table, player("blue")))
    say(table, f"red discard {WOLF}")
    table.observe_mat(mat_with(**{"3": SlotValue("up")}))  # the next frame: the same mat, the record moved on
    assert table.differences() == [] and table.questions == []
