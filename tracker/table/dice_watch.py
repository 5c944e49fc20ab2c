"""When the dice in the roll area are at rest, and when dice at rest were picked up.

The overhead reader reads the roll area frame by frame (`vision.dice`); this turns those readings into
events: `rest` when the same dice (same kinds, faces and seats, each within `MOVE_MM` of where it was)
have been seen for `frames` frames in a row with no hand in the area; `lifted` when dice that were at
rest are gone or moved (a hand came, then the dice lie elsewhere or show other faces). A frame with a
hand neither confirms nor resets the count, so a roll is never read while a hand is over it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

MOVE_MM = 2.5


class DieSeen(Protocol):
    """One die of a roll reading (`vision.dice.DieReading` has these)."""

    @property
    def kind(self) -> str | None: ...

    @property
    def face(self) -> str | None: ...

    @property
    def owner(self) -> str | None: ...

    @property
    def confidence(self) -> float: ...

    @property
    def centre_mm(self) -> tuple[float, float]: ...

    @property
    def inside(self) -> bool: ...

    @property
    def why(self) -> str: ...


class RollSeen(Protocol):
    """One frame's reading of the roll area (`vision.dice.RollReading` has these)."""

    @property
    def dice(self) -> Sequence[DieSeen]: ...

    @property
    def hand(self) -> bool: ...

    @property
    def unresolved(self) -> int: ...


@dataclass(frozen=True)
class DieAtRest:
    """A die at rest, as the record keeps it."""

    kind: str | None
    face: str | None
    owner: str | None
    confidence: float
    at_mm: tuple[float, float]
    inside: bool
    why: str = ""

    @property
    def known(self) -> bool:
        return self.kind is not None and self.face is not None and self.owner is not None

    def body(self) -> dict[str, object]:
        return {"kind": self.kind, "face": self.face, "owner": self.owner, "confidence": round(self.confidence, 3),
                "at_mm": [round(self.at_mm[0], 1), round(self.at_mm[1], 1)], "inside": self.inside,
                **({"why": self.why} if self.why else {})}


@dataclass(frozen=True)
class Rest:
    """Dice that came to rest (`unresolved`: blobs that could not be told apart into dice)."""

    dice: tuple[DieAtRest, ...]
    unresolved: int = 0


def _same(a: Sequence[DieAtRest], b: Sequence[DieAtRest]) -> bool:
    if len(a) != len(b):
        return False
    return all(x.kind == y.kind and x.face == y.face and x.owner == y.owner and x.inside == y.inside
               and math.dist(x.at_mm, y.at_mm) <= MOVE_MM for x, y in zip(a, b, strict=True))


class DiceWatch:
    """Feeds frame readings; says when dice came to rest and when resting dice were lifted."""

    def __init__(self, frames: int = 3) -> None:
        self.frames = frames
        self._candidate: tuple[DieAtRest, ...] | None = None
        self._unresolved = 0
        self._seen = 0
        self.resting: Rest | None = None  # the dice last reported at rest (None: none since they were lifted)

    def feed(self, reading: RollSeen) -> tuple[Rest | None, Rest | None]:
        """One frame: (dice that came to rest with this frame, resting dice that were lifted with it)."""
        if reading.hand:
            return None, None
        dice = tuple(sorted((DieAtRest(d.kind, d.face, d.owner, d.confidence, d.centre_mm, d.inside, d.why)
                             for d in reading.dice), key=lambda d: d.at_mm))
        if self._candidate is not None and _same(dice, self._candidate) and reading.unresolved == self._unresolved:
            self._seen += 1
        else:
            self._candidate, self._unresolved, self._seen = dice, reading.unresolved, 1
        if self._seen != self.frames:
            return None, None
        lifted = None
        if self.resting is not None and not _same(self.resting.dice, dice):
            lifted = self.resting
        rest = Rest(dice, reading.unresolved)
        if self.resting is not None and _same(self.resting.dice, dice):
            return None, None
        self.resting = rest if dice or reading.unresolved else None
        return (rest if dice or reading.unresolved else None), lifted
