"""The roll the rules asked for, read by the camera (issue 21, items 3 and 4): readings at rest become the
prompt's answer with source camera after one tap; unreadable dice, dice outside the area and the wrong
seat's dice become questions; a re-roll before confirmation and a typed result that differs from the
camera's are flagged for the judge. Readings are plain data (what `vision.dice` returns), the table, its
record and the rules are real."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.table_helpers import new_table, say
from tracker.errors import InputError
from tracker.record.store import GameRecord
from tracker.table.dice_roll import DiceDesk
from tracker.table.dice_stats import roll_statistics
from tracker.table.dice_watch import DiceWatch
from tracker.table.table import Table


@dataclass(frozen=True)
class Die:
    kind: str | None
    face: str | None
    owner: str | None
    centre_mm: tuple[float, float] = (400.0, -60.0)
    inside: bool = True
    confidence: float = 0.999
    why: str = ""


@dataclass(frozen=True)
class Reading:
    dice: tuple[Die, ...] = ()
    hand: bool = False
    unresolved: int = 0
    extra: dict[str, str] = field(default_factory=dict)


def rest(desk: DiceDesk, *dice: Die, frames: int = 3) -> list[str]:
    """A throw: a hand over the area, then the dice still for `frames` frames; the kinds of rows recorded."""
    kinds = [e.kind for e in desk.feed(Reading(hand=True))]
    for _ in range(frames):
        kinds += [e.kind for e in desk.feed(Reading(tuple(dice)))]
    return kinds


@pytest.fixture()
def table(tmp_path: Path) -> Table:
    t = new_table(tmp_path)
    say(t, "red affinity Avian", "blue affinity Decrepit")
    return t


def test_a_roll_at_rest_waits_for_one_tap_and_then_answers_the_prompt_with_source_camera(table: Table) -> None:
    desk = DiceDesk(table)
    assert [r.prefix for r in desk.due()] == ["blue roll d6", "red roll d6"]
    assert rest(desk, Die("d6", "5", "red"), frames=2) == []  # not yet still for three frames
    assert desk.feed(Reading((Die("d6", "5", "red"),)))[0].kind == "dice"
    [waiting] = desk.views("red")
    assert waiting["label"] == "read 5" and waiting["text"] == "red roll d6 5"
    assert table.game.state.players["red"].rolloff is None  # nothing decided before the tap
    entry = desk.confirm("blue", waiting["id"])  # the opponent may confirm too
    assert entry.accepted and entry.source == "camera" and entry.text == "red roll d6 5"
    row = next(iter(table.record.rows(after=entry.seq - 1, upto=entry.seq)))
    assert row.body["confirmed_by"] == "blue" and row.body["dice_row"] == waiting["id"]
    assert table.game.state.players["red"].rolloff == 5 and desk.pending == []
    with pytest.raises(InputError, match="no camera reading"):
        desk.confirm("red", waiting["id"])


def test_a_hand_in_the_area_never_lets_a_roll_be_read(table: Table) -> None:
    desk = DiceDesk(table)
    for _ in range(6):
        assert desk.feed(Reading((Die("d6", "5", "red"),), hand=True)) == []
    assert desk.pending == []


def test_unreadable_dice_and_dice_outside_the_area_become_questions_to_the_roller(table: Table) -> None:
    desk = DiceDesk(table)
    assert rest(desk, Die("d6", None, "red", why="face unsure")) == ["dice", "question"]
    q = table.questions[-1]
    assert q.player == "red" and "could not read" in q.text and "red roll d6 4" in q.options
    assert desk.pending == []
    desk2 = DiceDesk(table)
    assert rest(desk2, Die("d6", "3", "blue", inside=False)) == ["dice", "question"]
    assert table.questions[-1].player == "blue" and "outside the roll area" in table.questions[-1].text
    say(table, "blue roll d6 3")  # the phone answers; the question goes away
    assert all(q.player != "blue" for q in table.questions)


def test_the_wrong_seats_dice_are_flagged(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    say(t, "red affinity Avian", "blue affinity Decrepit", "red roll d6 5")
    desk = DiceDesk(t)
    assert rest(desk, Die("d6", "4", "red")) == ["dice", "question", "flag"]
    flag = [r for r in t.record.rows() if r.kind == "flag"][-1]
    assert flag.body["flag"] == "wrong-seat" and flag.body["player"] == "blue"
    assert any("blue rolled with red's dice" in w for w in t.warnings)


def test_a_die_picked_up_and_rolled_again_before_confirming_is_flagged(table: Table) -> None:
    desk = DiceDesk(table)
    rest(desk, Die("d6", "1", "blue"))
    first = desk.pending[0]
    kinds = rest(desk, Die("d6", "6", "blue", centre_mm=(450.0, -40.0)))
    assert kinds == ["flag", "dice"]
    flag = [r for r in table.record.rows() if r.kind == "flag"][-1]
    assert flag.body["flag"] == "re-roll" and flag.body["camera"] == "blue roll d6 1"
    assert flag.body["dice_row"] == first.id
    assert [p.text for p in desk.pending] == ["blue roll d6 6"]


def test_a_typed_result_that_differs_from_the_camera_is_flagged_and_asked(table: Table) -> None:
    desk = DiceDesk(table)
    rest(desk, Die("d6", "2", "blue"))
    got = desk.typed("blue", "blue roll d6 6")
    assert got is not None and [e.kind for e in got] == ["flag", "question"]
    assert table.game.state.players["blue"].rolloff is None  # the typed value is not applied
    flag = [r for r in table.record.rows() if r.kind == "flag"][-1].body
    assert (flag["flag"], flag["camera"], flag["typed"]) == ("typed-differs", "blue roll d6 2", "blue roll d6 6")
    assert table.questions[-1].options == ("blue roll d6 2", "blue roll d6 6")
    assert table.act("judge", "blue roll d6 2").accepted  # the judge settles it from the keyframe
    # typing what the camera read is the same as the tap
    rest(desk, Die("d6", "4", "red"))
    [entry] = desk.typed("red", "red roll d6 4") or []
    assert entry.source == "camera" and entry.accepted


def test_a_d20_trap_roll_and_the_diel_die_are_read(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    say(t, "red affinity Avian", "blue affinity Decrepit", "red roll d6 5", "blue roll d6 2", "red capital 7",
        "blue capital 4", "red camp 8", "blue camp 3", "red camp 1", "blue camp 5", "red personal none",
        "blue personal none", "red draw HMPU#0004,SWyA#0001,WCA9#0001", "blue draw F3GW#0001,ZrrD#0002,hLwQ#0001",
        "blue play F3GW#0001 3 unrevealed", "red play HMPU#0004 1 revealed", "blue initiative",
        "red move HMPU#0004 T1-T3")
    desk = DiceDesk(t)
    assert "red roll d20" in [r.prefix for r in desk.due()]
    rest(desk, Die("d6", "3", "red", centre_mm=(350.0, -50.0)), Die("d20", "14", "red"))
    assert desk.confirm("red", desk.pending[0].id).text == "red roll d20 14"
    say(t, "red attack HMPU#0004 F3GW#0001", "red means HMPU#0004 1", "blue means F3GW#0001 1")
    rest(desk, Die("d6", "1", "red", centre_mm=(350.0, -50.0)), Die("d6", "4", "red", centre_mm=(420.0, -50.0)))
    assert desk.pending[-1].text == "red roll attack 1,4"  # two D6 of Hilbert's D6-D6
    assert desk.confirm("red", desk.pending[-1].id).accepted
    say(t, "blue roll defence 1", "blue stop", "red end", "blue initiative", "red end", "blue retreat F3GW#0001 M4",
        "red challenge release", "red initiative", "blue end")
    assert t.game.state.phase == "diel"
    rest(desk, Die("diel", "storm", "blue", centre_mm=(500.0, -70.0)))
    entry = desk.confirm("red", desk.pending[-1].id)
    assert entry.accepted and entry.text == "blue roll diel storm" and entry.source == "camera"


def test_watch_reports_rest_once_and_a_lift_only_for_dice_that_were_at_rest() -> None:
    watch = DiceWatch(frames=2)
    one = Reading((Die("d20", "7", "red"),))
    assert watch.feed(one) == (None, None)
    rest_, lifted = watch.feed(one)
    assert rest_ is not None and lifted is None and rest_.dice[0].face == "7"
    assert watch.feed(one) == (None, None)  # still the same dice: said once
    moved = Reading((Die("d20", "7", "red", centre_mm=(460.0, -60.0)),))
    watch.feed(moved)
    rest2, lifted2 = watch.feed(moved)
    assert rest2 is not None and lifted2 is not None and lifted2.dice[0].at_mm == (400.0, -60.0)


def test_chi_squared_of_each_players_reported_rolls(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    say(t, "red affinity Avian", "blue affinity Decrepit", "red roll d6 6", "blue roll d6 6", "red roll d6 6",
        "blue roll d6 1")
    record = GameRecord(str(t.record.path), readonly=True)
    try:
        stats = roll_statistics(record.rows())
    finally:
        record.close()
    red = stats["red"]["d6"]
    assert red["rolls"] == 2 and red["counts"]["6"] == 2 and red["dof"] == 5
    assert red["chi2"] == pytest.approx(10.0)  # (2 - 1/3)^2 / (1/3) + 5 * (1/3)
    assert 0.0 < red["p"] < 1.0 and stats["blue"]["d6"]["rolls"] == 2


def test_log_export_writes_the_chi_squared_of_reported_rolls(tmp_path: Path) -> None:
    from tracker.cli import main

    t = new_table(tmp_path)
    say(t, "red affinity Avian", "blue affinity Decrepit", "red roll d6 3", "blue roll d6 2")
    path = t.record.path
    t.close()
    out = tmp_path / "game.jsonl"
    assert main(["log", "export", str(path), "--out", str(out)]) == 0
    rolls = json.loads((tmp_path / "game.jsonl.rolls.json").read_text())
    assert rolls["format"] == "kipukas-rolls/1"
    assert rolls["rolls"]["red"]["d6"]["counts"]["3"] == 1 and rolls["rolls"]["blue"]["d6"]["rolls"] == 1
    assert all(json.loads(line)["kind"] != "rolls" for line in out.read_text().splitlines())  # rows only
