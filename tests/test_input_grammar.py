"""Inputs checked to their grammar before anything is recorded or read (issue 16, items 6 and 7): dice
results within their die, numbers bounded, card ids `CODE` or `CODE#SERIAL` and no markup in any word of
an action; colours learned only for the table's seats, so the overhead loop never meets a label that
the notation cannot carry."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.kipukas.notation import NotationError, parse
from tests.table_helpers import new_table
from tracker.errors import InputError
from tracker.runtime.demo import DemoTable
from vision.synth import TableScene, Token

OUT_OF_RANGE = ["red roll d20 999999999999", "red roll d20 -1", "red roll d20 0", "red roll d20 21",
                "red roll d6 7", "red roll d6 0", "blue roll diel sunny", "red roll escape 7,1",
                "red roll escape 3", "blue roll chase 21", "red roll attack 21", "red roll attack 0,4",
                "red roll attack =99999", "blue injure SWyA#0001 99999", "red swim HMPU#0004 4,²"]
IN_RANGE = ["red roll d20 20", "red roll d20 1", "red roll d6 6", "blue roll diel storm", "red roll escape 6,1",
            "blue roll chase 20", "red roll attack 4,5", "red roll attack =12", "blue roll defence 20",
            "blue injure SWyA#0001 2", "red personal none", "red craft zwZA#0001,PhAU#0001 7"]
MARKUP = ["<img src=x onerror=alert(1)>", "<svg/onload=alert(1)>", "\"><script>alert(1)</script>",
          "x'onmouseover='alert(1)", "HMPU<b>"]


@pytest.mark.parametrize("text", OUT_OF_RANGE)
def test_rolls_and_numbers_outside_their_die_are_not_notation(text: str) -> None:
    with pytest.raises(NotationError):
        parse(text)


@pytest.mark.parametrize("text", IN_RANGE)
def test_rolls_and_numbers_within_their_die_parse(text: str) -> None:
    assert parse(text).to_text() == text


@pytest.mark.parametrize("markup", MARKUP)
@pytest.mark.parametrize("template", ["red reveal {}", "red move {} T5-M4", "red play {} 3 revealed",
                                      "red attack HMPU#0004 {}", "red draw HMPU#0004,{}", "red capital {}",
                                      "red affinity {}"])
def test_markup_never_parses_in_any_field(template: str, markup: str) -> None:
    with pytest.raises(NotationError):
        parse(template.format(markup))


def test_a_card_field_without_hash_must_still_be_a_card_id() -> None:
    with pytest.raises(NotationError, match="not a card id"):
        parse("red reveal anything-at-all")
    assert parse("red reveal HMPU").to_text() == "red reveal HMPU"  # a card whose payload has no serial


def test_an_out_of_range_roll_is_refused_and_not_recorded(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    before = table.record.last_seq
    with pytest.raises(InputError):
        table.act("phone:red", "red roll d20 999999999999")
    assert table.record.last_seq == before


def test_colours_only_for_seats_and_the_reader_keeps_reading(tmp_path: Path) -> None:
    demo = DemoTable(fps=None, repeat=False, folder=tmp_path / "demo")
    demo.latest = demo.renderer.render(TableScene({"T7": Token("capital", "red")}), seed=4)
    for label in ("green", "<img src=x>", "spectator"):
        with pytest.raises(InputError, match="not a seat of this table"):
            demo.service.learn_colours({"T7": label})
    assert set(demo.palette) == {"red", "blue"}
    seen = demo.reader.read(demo.latest)
    assert seen.stands["T7"].owner == "red"
