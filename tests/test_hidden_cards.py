"""Hidden placement, face down under the mat (#placement_how): the rules' side.

"Hidden (special circumstances required, undermat)": a card goes under the mat only when its printed text
allows it, which the engine models as the effect flag ``hidden_placement`` (set per card in the catalog's
effects, or by a judge for one physical card).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from rules.kipukas.game import Game
from rules.kipukas.notation import Play, parse
from tests.game_helpers import new_game
from tests.table_helpers import CLAIMS, DECKS, KEY, SETUP, empty_board, new_table, say, set_up
from tracker.overhead.layout import table_layout
from tracker.record.store import GameRecord
from tracker.service.seats import SPECTATOR, player
from tracker.service.views import view_for
from tracker.table.board import StandValue
from tracker.table.mat import SlotValue
from tracker.table.table import Table
from vision.board import BoardReader
from vision.regions import centre_mm, on_mat_edge
from vision.synth import Renderer, SlotCard, TableScene
from vision.synth.clutter import Clutter

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}

RED = ["K-LE#0001", "ro1A#0001", "HMPU#0001", "WCA9#0001", "FOFE#0001", "zwZA#0001", "PhAU#0001"]
BLUE = ["SWyA#0001", "hLwQ#0001", "F3GW#0001", "K_vJ#0001", "G8OO#0001", "ZrrD#0001", "Eppu#0001"]


def _game() -> Game:
    return new_game(RED, BLUE)


def test_a_card_without_the_printed_allowance_cannot_be_played_hidden() -> None:
    g = _game()
    verdict = g.apply("red play K-LE#0001 9 hidden")
    assert not verdict.accepted
    assert verdict.rule == "#placement_how"
    assert "judge effect K-LE#0001 hidden_placement on" in verdict.message
    assert not any(isinstance(a, Play) and a.face == "hidden" for a in g.legal_actions())


def test_a_trap_allowed_by_the_judge_is_played_hidden_and_stays_unrevealed() -> None:
    g = _game()
    g.push("judge effect K-LE#0001 hidden_placement on")
    hidden = [str(a) for a in g.legal_actions() if isinstance(a, Play) and a.face == "hidden"]
    assert hidden == [f"red play K-LE#0001 {t} hidden" for t in ("7", "8", "9")]
    g.push("red play K-LE#0001 9 hidden")
    cs = g.state.cards["K-LE#0001"]
    assert (cs.zone, cs.hidden, cs.revealed) == ("play", True, False)
    assert "card K-LE#0001 red T9 hidden" in g.to_text()
    g.undo()
    assert g.state.cards["K-LE#0001"].zone == "hand"


def test_an_item_is_played_hidden_only_with_the_allowance_and_lies_dropped_in_the_territory() -> None:
    g = _game()
    assert not g.apply("red play ro1A#0001 9 hidden").accepted
    assert not g.apply("red play ro1A#0001 9 unrevealed").accepted  # items are not played on the mat openly
    g.push("judge effect ro1A#0001 hidden_placement on")
    g.push("red play ro1A#0001 9 hidden")
    honey = g.state.cards["ro1A#0001"]
    assert (honey.zone, honey.at, honey.hidden, honey.equipped_to) == ("play", "T9", True, None)


def test_the_notation_round_trips_the_hidden_placement() -> None:
    action = parse("red play K-LE#0001 9 hidden")
    assert isinstance(action, Play) and action.face == "hidden"
    assert str(action) == "red play K-LE#0001 9 hidden"
    with pytest.raises(Exception, match="hidden"):
        parse("red play K-LE#0001 9 underneath")


def test_fast_legal_generation_matches_trial_with_a_hidden_allowance() -> None:
    g = _game()
    g.push("judge effect K-LE#0001 hidden_placement on")
    g.push("judge effect ro1A#0001 hidden_placement on")
    assert [str(a) for a in g.legal_actions()] == [str(a) for a in g.legal_actions_by_trial()]


# -- the table: a card's end beyond a slot's edge, against the record ------------------------------------------

JOKER = "hLwQ#0001"  # blue's Plane Table Joker (a species), in hand after set-up


def _table(tmp_path: Path) -> Table:
    table = new_table(tmp_path)
    set_up(table)
    return table


def _mat(**slots: SlotValue) -> dict[str, SlotValue]:
    """Every slot empty, the edges watched and showing no card's end; then `slots`."""
    layout = table_layout(BoardMap.packaged())
    mat = {s.id: SlotValue(under=False if on_mat_edge(layout, s.id) else None) for s in layout.slots}
    mat.update(slots)
    return mat


def test_a_card_end_beyond_the_mat_asks_its_player_which_card_was_played_hidden(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.act("judge", f"judge effect {JOKER} hidden_placement on")
    table.observe_mat(_mat())
    table.observe_mat(_mat(**{"3": SlotValue(under=True)}))
    assert [q.player for q in table.questions] == ["blue"]
    assert f"blue play {JOKER} 3 hidden" in table.questions[0].options
    assert all(line.endswith(" 3 hidden") for line in table.questions[0].options)
    say(table, f"blue play {JOKER} 3 hidden")
    assert table.mat_flags == [] and table.questions == []
    assert table.game.state.cards[JOKER].hidden
    # The card's end is public; which card it is, only blue and the judge may know.
    for viewer in (player("red"), SPECTATOR):
        text = json.dumps(view_for(table, viewer))
        assert JOKER not in text and "Plane Table Joker" not in text, viewer
    assert JOKER in json.dumps(view_for(table, player("blue")))


def test_a_card_under_the_mat_without_a_printed_allowance_is_a_flag_not_a_question(tmp_path: Path) -> None:
    table = _table(tmp_path)
    before = len(table.entries())
    table.observe_mat(_mat(**{"3": SlotValue(under=True)}))
    assert table.questions == []
    assert any("slot 3" in f and "under the mat" in f for f in table.mat_flags), table.mat_flags
    assert [e.kind for e in table.entries()[before:]] == ["mat"]  # the camera's row, and no action


def test_a_hidden_card_the_camera_no_longer_sees_is_flagged_and_its_owner_asked(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.act("judge", f"judge effect {JOKER} hidden_placement on")
    say(table, f"blue play {JOKER} 3 hidden")  # from blue's phone, the camera confirms it next
    table.observe_mat(_mat(**{"3": SlotValue(under=True)}))
    assert table.mat_flags == []
    table.observe_mat(_mat())
    assert any("hidden under the mat" in f for f in table.mat_flags), table.mat_flags
    assert [q.player for q in table.questions] == ["blue"]
    assert table.game.state.cards[JOKER].zone == "play"  # never a discard made by the camera


def test_an_unwatched_edge_never_flags_a_hidden_card(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.act("judge", f"judge effect {JOKER} hidden_placement on")
    say(table, f"blue play {JOKER} 3 hidden")
    table.observe_mat({s: SlotValue() for s in _mat()})  # no edge in view: `under` is None everywhere
    assert table.mat_flags == []


def test_mat_rows_and_snapshots_keep_the_under_mat_reading(tmp_path: Path) -> None:
    table = _table(tmp_path)
    mat = _mat(**{"3": SlotValue(under=True)})
    table.observe_mat(mat)
    row = [r for r in table.record.rows() if r.kind == "mat"][-1]
    assert {s: SlotValue.of(v) for s, v in row.body["slots"].items()} == mat
    assert SlotValue.of({"face": "up", "card": None}) == SlotValue("up")  # rows from before hidden cards


# -- the camera: a card's end rendered beyond the mat's edge is read, a foreign object there is unknown -------

def _reader_and_renderer(reference: bool) -> tuple[BoardReader, Renderer]:
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    ref = renderer.render(TableScene({}), seed=5) if reference else None
    return BoardReader(layout, pose, PALETTE, reference=ref), renderer


@pytest.mark.parametrize("reference", [True, False])
def test_the_reader_sees_card_ends_beyond_the_mat_and_never_guesses_under_an_object(reference: bool) -> None:
    reader, renderer = _reader_and_renderer(reference)
    assert sorted(reader.under_regions) == sorted(f"under:{s}" for s in ("1", "2", "3", "4", "5", "6", "7", "8",
                                                                          "9", "10", "11", "12"))
    reader.read(renderer.render(TableScene({}), seed=31))
    hidden = {"7": [SlotCard("hidden", "https://www.kpks.us/hLwQ#0001?t=x")],
              "11": [SlotCard("hidden", "https://www.kpks.us/ro1A#0001?t=x")],
              "12": [SlotCard("down", "https://www.kpks.us/SWyA#0001?t=x")]}
    for f in range(2):
        clean, _ = renderer.compose(TableScene({}, slots=hidden), seed=40 + f)
        obs = reader.read(renderer.finish(clean, seed=40 + f, kelvin=4000.0))
    read = {s: o.state for s, o in obs.under.items() if not o.obstructed}
    assert read == {s: ("down" if s in ("7", "11") else "empty") for s in obs.under}, read
    assert obs.slots["12"].state == "down" and not obs.slots["11"].obstructed
    # A phone dropped beyond an edge is unknown there; a die is too small to hide a card's end: whatever is
    # read beside it, and on top of a card's end, is never the wrong one.
    x6, y6 = centre_mm(reader.under_regions["under:6"], reader.pose)
    x2, y2 = centre_mm(reader.under_regions["under:2"], reader.pose)
    x7, y7 = centre_mm(reader.under_regions["under:7"], reader.pose)
    scene = TableScene({}, slots=hidden, clutter=[Clutter("die", (x6, y6, 0.0)), Clutter("phone", (x2, y2, 0.0)),
                                                  Clutter("die", (x7, y7, 0.0))])
    obs = reader.read(renderer.render(scene, seed=50))
    assert obs.under["2"].obstructed
    assert obs.under["6"].state != "down" and obs.under["2"].state != "down"
    assert obs.under["7"].state == "down"



def test_an_item_laid_face_down_with_a_soul_becomes_its_equip(tmp_path: Path) -> None:
    # #equiping: an item from hand is equipped to a soul in play; on the mat it lies in that soul's slot.
    decks = {"red": ["HMPU#0004", "SWyA#0001", "ro1A#0001"], "blue": list(DECKS["blue"])}
    table = Table(BoardMap.packaged(), GameRecord(str(tmp_path / "game.sqlite"), KEY), decks)
    say(table, *SETUP)
    seen = empty_board()
    for stand, kind, owner in CLAIMS:
        seen[stand] = StandValue(kind, owner, 1)
        table.observe(dict(seen))
    say(table, "red personal none", "blue personal none", "red draw HMPU#0004,SWyA#0001,ro1A#0001",
        "blue draw F3GW#0001,ZrrD#0002,hLwQ#0001", "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed",
        "blue initiative")
    table.observe_mat(_mat(**{"3": SlotValue("up"), "1": SlotValue("up")}))
    table.observe_mat(_mat(**{"3": SlotValue("up"), "1": SlotValue("down", "ro1A#0001")}))
    assert ("overhead", "red equip ro1A#0001 HMPU#0004") in [(e.source, e.text) for e in table.entries()
                                                              if e.kind == "action" and e.accepted]
    assert table.game.state.cards["ro1A#0001"].equipped_to == "HMPU#0004"
    # In a slot where red has no soul, the item is a flag, never a play.
    table.observe_mat(_mat(**{"3": SlotValue("down", "ro1A#0001"), "1": SlotValue("up")}))
    assert any("slot 3" in f for f in table.mat_flags), table.mat_flags
