"""The overhead part of the table loop: frame -> observation -> stable board -> the table's record."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from tracker.table.board import KINDS, StandValue
from tracker.table.stabiliser import Stabiliser
from tracker.table.table import Entry, Table

MIN_CONFIDENCE = 0.5


class StandReading(Protocol):
    state: str
    owner: str | None
    count: int
    confidence: float
    obstructed: bool


class Observation(Protocol):
    @property
    def stands(self) -> dict[str, Any]: ...


class BoardReading(Protocol):
    def read(self, frame: Any, only: Iterable[str] | None = None) -> Observation: ...


def stand_value(obs: StandReading) -> tuple[StandValue, bool]:
    """A vision reading as (value, unusable): an unknown region or a low confidence counts as obstructed,
    never as a change."""
    kind = obs.state if obs.state in KINDS else "empty"
    value = StandValue(kind, obs.owner if kind != "empty" else None, max(obs.count, 1) if kind != "empty" else 0)
    return value, obs.obstructed or obs.state not in KINDS or obs.confidence < MIN_CONFIDENCE


class OverheadLoop:
    """Feeds frames through a board reader and a stabiliser into the table."""

    def __init__(self, table: Table, reader: BoardReading, frames_to_agree: int = 3) -> None:
        self.table = table
        self.reader = reader
        self.stabiliser = Stabiliser(frames=frames_to_agree)
        self.frames = 0
        self.unreadable: str | None = None

    def process(self, frame: Any) -> list[Entry]:
        self.frames += 1
        observation = self.reader.read(frame)
        why = getattr(observation, "unreadable", None)
        if why != self.unreadable:
            # said once when it starts and once when it ends; every page shows the table's warnings
            self.table.warn(f"board unreadable: {why}" if why else "board readable again")
            self.unreadable = why
        if why:
            return []  # no move while the board cannot be read
        readings = {stand: stand_value(obs) for stand, obs in observation.stands.items()}
        self.stabiliser.feed(readings)
        # Offered every frame: the table records a board only when it changed, and re-explains an unchanged
        # one only when the record moved on (cheap otherwise).
        return self.table.observe(self.stabiliser.board())
