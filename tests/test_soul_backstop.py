"""A soul token that appears on a movement stand with none vanishing (a soul leaving its base camp shows no
token leaving, #movement) is the evidence a die in a player's colour fakes: the overhead reader reads a D20 of
12-16 mm as that player's soul at 0.97-1.00 (issue 13, `bench/bench_player_dice.py`). Such a move is recorded
from the camera only when the mat shows the soul's card going to the slot of the territory it moved into;
otherwise it is a one-tap question to the owner, named on every page, withdrawn when the token goes. A
token no legal move out of a camp explains, and a soul token on a territory's stand, are unknown objects."""

from __future__ import annotations

from pathlib import Path

from tests.overhead_support import PALETTE, layout, pose, reference, renderer
from tests.table_helpers import CLAIMS, new_table, say, set_up
from tracker.service.seats import JUDGE, player
from tracker.service.views import view_for
from tracker.table.board import EMPTY, StandValue
from tracker.table.loop import OverheadLoop
from tracker.table.mat import SlotValue
from tracker.table.table import Table
from vision.board import BoardReader
from vision.synth import SlotCard, TableScene, Token

RED = StandValue("soul", "red", 1)
EXIT = "red move HMPU#0004 T1-M9"  # Hilbert (movement 2) out of red's camp on territory 1: legal
PENDING = ("a red soul token on M9 that no one was seen moving: no move is recorded until red confirms it on "
           "their phone; if it is not a soul, it is an unknown object: take it away")


def in_play(tmp_path: Path, name: str = "game.sqlite") -> tuple[Table, dict[str, StandValue]]:
    """The first day: red's Hilbert in its camp on T1, blue's Tears for Oly in its camp on T3, both face up."""
    table = new_table(tmp_path, name)
    seen = set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed", "blue initiative")
    table.observe_mat(cards("1", "3"))
    return table, seen


def cards(*face_up: str) -> dict[str, SlotValue]:
    return {slot: SlotValue("up" if slot in face_up else "empty") for slot in "13459"}


def overhead_actions(table: Table, after: int) -> list[tuple[str, bool]]:
    return [(e.text, e.accepted) for e in table.entries(after) if e.kind == "action" and e.source == "overhead"]


def test_a_soul_token_no_one_moved_next_to_a_camp_records_no_move(tmp_path: Path) -> None:
    """A die read as red's soul on M9, which Hilbert could legally reach from its camp: asked, never recorded;
    taken away, the question goes (also after a restart) and nothing is left in red's name."""
    table, seen = in_play(tmp_path)
    rows = table.record.last_seq
    seen["M9"] = RED
    assert [e.kind for e in table.observe(dict(seen))] == ["board"] and PENDING in table.warnings
    # the mat, read in the same frame, did not change: Hilbert's card is still in slot 1, so red is asked
    assert [e.kind for e in table.observe_mat(cards("1", "3"))] == ["question"]
    [q] = table.questions
    assert q.player == "red" and q.options == (EXIT,) and overhead_actions(table, rows) == []
    table.observe(dict(seen))  # the same board and mat again: asked once
    table.observe_mat(cards("1", "3"))
    assert len([e for e in table.entries(rows) if e.kind == "question"]) == 1
    assert overhead_actions(table, rows) == [] and table.game.state.cards["HMPU#0004"].at == "T1"
    seen["M9"] = EMPTY  # taken away
    table.observe(dict(seen))
    assert table.questions == [] and PENDING not in table.warnings and table.differences() == []
    assert overhead_actions(table, rows) == []
    table.record.close()
    again = new_table(tmp_path)  # a restart replays the record: the withdrawn question stays withdrawn
    assert again.questions == []


def test_a_real_camp_exit_is_one_tap_and_the_judge_sees_it_waiting(tmp_path: Path) -> None:
    table, seen = in_play(tmp_path)
    seen["M9"] = RED
    table.observe(dict(seen))
    table.observe_mat(cards("1", "3"))
    judge = view_for(table, JUDGE)
    assert PENDING in judge["warnings"] and [q["options"] for q in judge["questions"]] == [[EXIT]]
    assert [q["mine"] for q in view_for(table, player("red"))["questions"]] == [True]
    assert table.act("phone:red", EXIT).accepted  # red taps the move
    assert table.questions == [] and table.game.state.cards["HMPU#0004"].at == "M9"
    table.observe(dict(seen))
    assert PENDING not in table.warnings and table.differences() == []


def test_a_camp_exit_whose_card_moves_on_the_mat_is_recorded_without_a_tap(tmp_path: Path) -> None:
    table, seen = in_play(tmp_path)
    rows = table.record.last_seq
    seen["M9"] = RED
    table.observe(dict(seen))  # the board settles first: the question waits for the mat
    table.observe_mat(cards("3", "9"))  # Hilbert's card went from slot 1 to slot 9: the move is seen
    assert overhead_actions(table, rows) == [(EXIT, True)]
    assert not [e for e in table.entries(rows) if e.kind == "question"]  # never asked
    assert table.questions == [] and PENDING not in table.warnings and table.differences() == []


def test_a_soul_no_camped_soul_can_reach_or_on_a_territory_stand_is_an_unknown_object(tmp_path: Path) -> None:
    table, seen = in_play(tmp_path)
    rows = table.record.last_seq
    seen["M5"] = RED  # Hilbert (movement 2) cannot reach M5: before, a rejected move in red's name
    seen["T2"] = StandValue("soul", "blue", 1)  # no soul token ever stands on a territory's stand
    table.observe(dict(seen))
    assert [e for e in table.entries(rows) if e.kind == "action"] == [] and table.questions == []
    for stand in ("M5", "T2"):
        assert f"something on {stand} the rules cannot explain: unknown object" in table.warnings
    assert table.differences() == []
    seen["M5"], seen["T2"] = EMPTY, EMPTY
    table.observe(dict(seen))
    assert not [w for w in table.warnings if "unknown object" in w] and table.differences() == []


def test_through_the_loop_a_soul_token_out_of_nowhere_waits_and_a_real_exit_is_recorded(tmp_path: Path) -> None:
    """Rendered frames through the reader, the stabiliser and the table. A red soul token (what a red D20 is
    read as today) appears on M9 with the mat unchanged: no move, a question, the warning. Taken away, all of
    it goes. Then Hilbert really leaves: token on M9 and its card from slot 1 to slot 9: recorded, no tap."""
    table = new_table(tmp_path)
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed", "blue initiative")
    loop = OverheadLoop(table, BoardReader(layout(), pose(), PALETTE, reference()))
    tokens = {stand: Token(kind, owner) for stand, kind, owner in CLAIMS}
    slots = {"1": [SlotCard("up")], "3": [SlotCard("up")]}
    r = renderer()

    def frames(seed: int) -> None:
        for i in range(4):
            loop.process(r.render(TableScene(tokens, slots), seed=seed + i))

    frames(70)
    assert table.differences() == [] and table.observed["T7"] == StandValue("capital", "red", 1)
    rows = table.record.last_seq
    tokens["M9"] = Token("soul", "red")
    frames(80)
    assert table.observed["M9"] == RED and overhead_actions(table, rows) == []
    assert PENDING in table.warnings and [q.options for q in table.questions] == [(EXIT,)]
    asked = table.record.last_seq
    del tokens["M9"]
    frames(90)
    assert table.questions == [] and PENDING not in table.warnings and overhead_actions(table, rows) == []
    tokens["M9"] = Token("soul", "red")
    slots = {"3": [SlotCard("up")], "9": [SlotCard("up")]}
    frames(100)
    assert overhead_actions(table, rows) == [(EXIT, True)]
    assert table.questions == [] and table.differences() == []
    assert not [e for e in table.entries(asked) if e.kind == "question"]  # the real exit asked nothing
