"""The canonical action notation: round trips and errors that name the text."""

from __future__ import annotations

import pytest

from rules.kipukas.notation import VERBS, NotationError, parse

EXAMPLES = [
    "red affinity Avian", "red roll d6 5", "blue capital 4", "blue camp 6", "red personal aS1Q#0001",
    "red personal none", "red default jSYU#0001", "red draw HMPU#0001,WCA9#0001,K-LE#0001", "blue roll diel storm",
    "red initiative", "blue end", "red play HMPU#0001 7 revealed", "blue reveal ZrrD#0001",
    "red move HMPU#0001 T7-M7b", "red swim HMPU#0001 2,2", "blue roll d20 12", "red trap K-LE#0001 sprung",
    "blue attack SWyA#0001 HMPU#0001", "red means HMPU#0001 1", "red roll attack 4,4", "blue roll defence =3",
    "red stop", "red retreat HMPU#0001,WCA9#0001 T8", "blue challenge release", "red roll escape 5,6",
    "blue roll chase 10", "red hold 7", "red bottom", "red craft zwZA#0001,PhAU#0001 HMPU#0001",
    "blue sabotage fFvj#0001", "red injure HMPU#0001 1", "red heal FOFE#0001 1", "blue discard fFvj#0001",
    "red steal K_vJ#0001", "blue tame SWyA#0001 rogue", "red peace keep", "red move HMPU#0001 T7-T6 via M7b",
    "red move HMPU#0001 M8-T7 via T8,M7a", "judge effect ZrrD#0001 attacks_downed on",
    "red equip zwZA#0001 HMPU#0001", "red unequip zwZA#0001", "red pass zwZA#0001 WCA9#0001",
    "blue pickup zwZA#0001 SWyA#0001", "blue resolve fFvj#0001 success", "red roll territory 7",
    "red dig WCA9#0001 M1", "blue roam SWyA#0001 M8", "blue bs", "red concede against", "judge concede for",
    "red grab zwZA#0001 WCA9#0001", "red imprison SWyA#0001 7", "blue release SWyA#0001", "judge award red",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_round_trip(text: str) -> None:
    action = parse(text)
    assert action.to_text() == text and parse(action.to_text()) == action


def test_every_verb_has_an_example() -> None:
    assert {t.split()[1] for t in EXAMPLES} == set(VERBS)


@pytest.mark.parametrize(("text", "words"), [
    ("red", "expected '<player> <verb> ...'"),
    ("purple move HMPU#0001 T7-M7b", "unknown player 'purple'"),
    ("red fly HMPU#0001", "unknown verb 'fly'"),
    ("red move HMPU#0001", "move takes 2 argument(s): red move <card> <path>"),
    ("red move HMPU#0001 T7", "path must be FROM-TO"),
    ("red play HMPU#0001 7 sideways", "face must be one of revealed, unrevealed"),
    ("red means HMPU#0001 one", "index must be a whole number"),
    ("red swim HMPU#0001 2,x", "comma-separated numbers"),
    ("red draw HMPU#0001,HM", "'HM' is not a card id"),
])
def test_errors_name_the_text(text: str, words: str) -> None:
    with pytest.raises(NotationError) as info:
        parse(text)
    assert words in str(info.value) and repr(text) in str(info.value)
