"""The grammar of one notation word: which characters a word may hold, what a card id, a number, a list,
a stand pair and each die's faces look like, and the conversion of a checked word to its type. Kept apart
from the verbs (`rules.notation`) so the grammar that guards every record row is read in one place."""

from __future__ import annotations

import re

from rules.core.errors import RulesError

_CARD = re.compile(r"^[A-Za-z0-9_-]{4}(?:#[0-9]{1,8})?$")
_WORD = re.compile(r"^[A-Za-z0-9#=,_-]{1,80}$")  # no markup, quotes or spaces reach a record or a page
_NUMBER = re.compile(r"^[0-9]{1,3}$")
# Faces a die may show, per roll kind (#game_setup, #diel_cycle, #retreat); bout rolls: faces of dice up
# to a D20, or an agreed total =N.
# Other roll kinds (`territory`: the rules name its die, #random_territory): bounded numbers only.
_OTHER_ROLL = re.compile(r"^(?:[0-9]{1,3}(?:,[0-9]{1,3}){0,5}|=[0-9]{1,3})$")
_ROLLS: dict[str, re.Pattern[str]] = {
    "d6": re.compile(r"^[1-6]$"),
    "d20": re.compile(r"^(?:[1-9]|1[0-9]|20)$"),
    "diel": re.compile(r"^(?:day|night|storm)$"),
    "escape": re.compile(r"^[1-6],[1-6]$"),
    "chase": re.compile(r"^(?:[1-9]|1[0-9]|20)$"),
    "attack": re.compile(r"^(?:(?:[1-9]|1[0-9]|20)(?:,(?:[1-9]|1[0-9]|20)){0,5}|=[0-9]{1,3})$"),
    "defence": re.compile(r"^(?:(?:[1-9]|1[0-9]|20)(?:,(?:[1-9]|1[0-9]|20)){0,5}|=[0-9]{1,3})$"),
}


class NotationError(RulesError, ValueError):
    """Text that is not an action in the canonical notation; names the text and the problem."""

    def __init__(self, text: str, problem: str) -> None:
        self.text = text
        self.problem = problem
        super().__init__(f"{text!r}: {problem}")


def _convert(text: str, name: str, hint: object, word: str, choices: tuple[str, ...] | None) -> object:
    if choices is not None and word not in choices:
        raise NotationError(text, f"{name} must be one of {', '.join(choices)}, got {word!r}")
    if hint is int:
        if not _NUMBER.match(word):
            raise NotationError(text, f"{name} must be a whole number, got {word!r}")
        return int(word)
    if hint == tuple[int, ...]:
        parts = word.split(",")
        if not all(_NUMBER.match(p) for p in parts):
            raise NotationError(text, f"{name} must be comma-separated numbers like 4,5, got {word!r}")
        return tuple(int(p) for p in parts)
    if hint == tuple[str, str]:
        ends = _split_path(word)
        if ends is None:
            raise NotationError(text, f"{name} must be FROM-TO stand ids like T7-M6, got {word!r}")
        return ends
    if hint == tuple[str, ...]:
        items = tuple(word.split(","))
        if name == "cards":
            for item in items:
                _check_card(text, item)
        return items
    if name in ("card", "target") and "#" in word:
        _check_card(text, word)
    return word


def _split_path(word: str) -> tuple[str, str] | None:
    # Stand ids contain no dash in kipukas-map/1 files; split at the single dash.
    parts = word.split("-")
    if len(parts) != 2 or not all(parts):
        return None
    return parts[0], parts[1]


def _check_card(text: str, word: str) -> None:
    if not _CARD.match(word):
        raise NotationError(text, f"{word!r} is not a card id (CODE or CODE#SERIAL)")
