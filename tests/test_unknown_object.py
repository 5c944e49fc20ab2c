"""A claim token that appears outside set-up with no legal action to explain it is an unknown object on its
stand (a die in a player's colour reads as that player's capital, issue 13): no action is recorded in that
player's name, the pages name the stand, and the table does not go out of sync for it. During set-up the
same reading is a claim, and the rules' rejection of one out of turn is still recorded."""

from __future__ import annotations

from pathlib import Path

from tests.overhead_support import PALETTE, layout, pose, reference, renderer
from tests.table_helpers import CLAIMS, new_table, say, set_up
from tracker.table.board import StandValue
from tracker.table.loop import OverheadLoop
from vision.board import BoardReader
from vision.synth import TableScene, Token

WARNING = "something on T2 the rules cannot explain: unknown object"


def test_a_capital_no_action_explains_is_named_not_claimed(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    seen = set_up(table)
    rows = table.record.last_seq
    seen["T2"] = StandValue("capital", "blue", 1)  # territory 2 is nobody's; no soul moved there
    entries = table.observe(dict(seen))
    assert [e.kind for e in entries] == ["board"]  # the reading is kept, no action in blue's name
    assert not [e for e in table.entries(rows) if e.kind == "action"]
    assert WARNING in table.warnings and table.differences() == []
    table.observe(dict(seen))  # the same board again: said once
    assert table.warnings.count(WARNING) == 1
    seen["T2"] = StandValue()  # taken away
    table.observe(dict(seen))
    assert WARNING not in table.warnings and table.differences() == []
    assert not [e for e in table.entries(rows) if e.kind == "action"]


def test_a_capital_read_on_a_movement_stand_is_an_unknown_object(tmp_path: Path) -> None:
    """No capital ever stands on a movement stand (bench/bench_player_dice.py: a 14.6 mm D6 on M7a read as a
    red capital at 0.99): in set-up or in play, it is named, not a difference in red's name."""
    table = new_table(tmp_path)
    say(table, "red affinity Avian", "blue affinity Decrepit", "red roll d6 5", "blue roll d6 2")
    table.observe({"M6": StandValue("capital", "red", 1)})
    assert "something on M6 the rules cannot explain: unknown object" in table.warnings
    assert table.differences() == [] and not [e for e in table.entries() if e.kind == "action" and
                                              e.source == "overhead"]
    played = new_table(tmp_path, "play.sqlite")
    seen = set_up(played)
    seen["M6"] = StandValue("basecamp", "blue", 1)
    rows = played.record.last_seq
    played.observe(dict(seen))
    assert "something on M6 the rules cannot explain: unknown object" in played.warnings
    assert played.differences() == [] and not [e for e in played.entries(rows) if e.kind == "action"]


def test_a_claim_out_of_turn_during_set_up_is_still_a_rejected_claim(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    say(table, "red affinity Avian", "blue affinity Decrepit", "red roll d6 5", "blue roll d6 2")
    [_, entry] = table.observe({"T4": StandValue("capital", "blue", 1)})
    assert (entry.text, entry.accepted, entry.rule) == ("blue capital 4", False, "#game_setup")
    assert table.differences() and not [w for w in table.warnings if "unknown object" in w]


def test_through_the_loop_an_unexplained_capital_is_an_unknown_object(tmp_path: Path) -> None:
    """Rendered frames through the reader, the stabiliser and the table: the capital on T2 is read and
    stable (as a blue die of a capital's size is today), and the record takes no action from it."""
    table = new_table(tmp_path)
    set_up(table)
    loop = OverheadLoop(table, BoardReader(layout(), pose(), PALETTE, reference()))
    tokens = {stand: Token(kind, owner) for stand, kind, owner in CLAIMS}
    r = renderer()
    for seed in range(3):
        loop.process(r.render(TableScene(tokens), seed=70 + seed))
    assert table.differences() == [] and table.observed["T7"] == StandValue("capital", "red", 1)
    rows = table.record.last_seq
    tokens["T2"] = Token("capital", "blue")
    for seed in range(4):
        loop.process(r.render(TableScene(tokens), seed=80 + seed))
    assert table.observed["T2"] == StandValue("capital", "blue", 1)
    assert not [e for e in table.entries(rows) if e.kind == "action"]
    assert WARNING in table.warnings and table.differences() == []
    del tokens["T2"]
    for seed in range(4):
        loop.process(r.render(TableScene(tokens), seed=90 + seed))
    assert table.observed["T2"].empty and WARNING not in table.warnings
    assert table.differences() == [] and not [e for e in table.entries(rows) if e.kind == "action"]
