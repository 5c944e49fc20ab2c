"""A card's printed die field as a roll spec.

Grammar (covers the die fields of the published cards; terms are summed, #attack):

    spec  := term (("-" | "+") term)* [ "(" note ")" ]
    term  := "D" N | "Base" N | "(+" N ")"

``D6-D6`` is two six-sided dice summed (#contention_ex: "Hilbert rolls with 2 D6 dice"), ``Base 3`` is a
fixed 3, ``Base 2 + D6`` is 2 plus a D6, ``D6-(+6)`` is a D6 plus 6. A trailing parenthesised note
("Option to Re-roll") is printed effect text: it is kept in `note`. Fields outside the grammar
("(without bear) D6-D6, (with bear) D20", "n/a ( D6 in capital )", an empty field) keep their raw text
with ``covered=False`` so the engine asks the players instead of guessing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_TERM = re.compile(r"\s*(?:D(?P<die>\d+)|Base\s+(?P<base>\d+)|\(\+(?P<plus>\d+)\))\s*", re.IGNORECASE)
_NOTE = re.compile(r"^(?P<body>[^()]*?(?:\(\+\d+\)[^()]*?)*)\s*\((?P<note>[^()+][^()]*)\)\s*$")


@dataclass(frozen=True, slots=True)
class RollSpec:
    raw: str
    dice: tuple[int, ...]
    base: int
    covered: bool
    note: str | None = None

    def total(self, faces: Sequence[int]) -> int:
        """Sum of the rolled `faces` (one per die, in order) and the fixed part."""
        if not self.covered:
            raise ValueError(f"die field {self.raw!r} is not covered by the grammar; ask the players for the total")
        if len(faces) != len(self.dice):
            raise ValueError(f"die field {self.raw!r} needs {len(self.dice)} dice, got {len(faces)}")
        for face, sides in zip(faces, self.dice, strict=True):
            if not 1 <= face <= sides:
                raise ValueError(f"a D{sides} cannot show {face}")
        return sum(faces) + self.base

    @property
    def bounds(self) -> tuple[int, int]:
        return len(self.dice) + self.base, sum(self.dice) + self.base

    def __str__(self) -> str:
        return self.raw


def parse_die(raw: str) -> RollSpec:
    """Parse a die field; never raises: unknown forms come back with ``covered=False``."""
    text = raw.strip()
    note = None
    m = _NOTE.match(text)
    if m and m["body"].strip():
        text, note = m["body"].strip(), m["note"].strip()
    dice: list[int] = []
    base = 0
    pos = 0
    if not text:
        return RollSpec(raw, (), 0, False)
    while pos < len(text):
        t = _TERM.match(text, pos)
        if t is None or t.end() == pos:
            return RollSpec(raw, (), 0, False)
        if t["die"]:
            dice.append(int(t["die"]))
        elif t["base"]:
            base += int(t["base"])
        else:
            base += int(t["plus"])
        pos = t.end()
        if pos < len(text):
            if text[pos] not in "-+":
                return RollSpec(raw, (), 0, False)
            pos += 1
    if any(d < 2 for d in dice):
        return RollSpec(raw, (), 0, False)
    return RollSpec(raw, tuple(dice), base, True, note)
