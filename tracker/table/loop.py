"""The overhead part of the table loop: frame -> observation -> stable board -> the table's record."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from rules.core.errors import RulesError
from rules.kipukas.identity import parse_payload
from tracker.table.board import KINDS, StandValue
from tracker.table.dice_roll import DiceDesk
from tracker.table.dice_watch import RollSeen
from tracker.table.mat import FACES, SlotValue
from tracker.table.stabiliser import Stabiliser
from tracker.table.table import Entry, Table

MIN_CONFIDENCE = 0.5
UNREADABLE_AFTER = 8  # frames a face-down card's QR must stay unread before it counts as unreadable


class StandReading(Protocol):
    state: str
    owner: str | None
    count: int
    confidence: float
    obstructed: bool


class SlotReading(Protocol):
    state: str
    payload: str | None
    confidence: float
    obstructed: bool


class Observation(Protocol):
    @property
    def stands(self) -> dict[str, Any]: ...

    @property
    def slots(self) -> dict[str, Any]: ...


class BoardReading(Protocol):
    def read(self, frame: Any, only: Iterable[str] | None = None, lores: Any = None) -> Observation: ...


class RollReading(Protocol):
    def read(self, frame: Any) -> RollSeen: ...

    def idle(self, frame: Any) -> None: ...


def stand_value(obs: StandReading) -> tuple[StandValue, bool]:
    """A vision reading as (value, unusable): an unknown region or a low confidence counts as obstructed,
    never as a change."""
    kind = obs.state if obs.state in KINDS else "empty"
    value = StandValue(kind, obs.owner if kind != "empty" else None, max(obs.count, 1) if kind != "empty" else 0)
    return value, obs.obstructed or obs.state not in KINDS or obs.confidence < MIN_CONFIDENCE


def slot_value(obs: SlotReading, under: bool | None = None) -> tuple[SlotValue, bool]:
    """A vision slot reading as (value, unusable): the card's physical id from its QR payload, never the
    payload's private token; a payload that is not a Kipukas card reads as no id (a flag, not a guess);
    an unknown region is unusable, never an empty slot. `under`: whether a hidden card's end shows beyond
    the slot's outer edge, None where the camera does not watch it."""
    face = obs.state if obs.state in FACES else "empty"
    card = None
    if face == "down" and obs.payload:
        try:
            card = parse_payload(obs.payload).physical_id
        except RulesError:
            card = None
    return SlotValue(face, card, under), obs.obstructed or obs.state not in FACES or obs.confidence < MIN_CONFIDENCE


IDLE_EVERY = 10  # while no roll is due, every this many frames the roll area's empty model is refreshed


class OverheadLoop:
    """Feeds frames through a board reader and a stabiliser into the table."""

    def __init__(self, table: Table, reader: BoardReading, frames_to_agree: int = 3,
                 dice: tuple[RollReading, DiceDesk] | None = None) -> None:
        self.table = table
        self.reader = reader
        self.dice = dice  # the roll area's reader and the desk its readings go to, when dice are read
        self.stabiliser: Stabiliser[StandValue] = Stabiliser(frames=frames_to_agree)
        self.mat: Stabiliser[SlotValue] = Stabiliser(frames=frames_to_agree)
        self.unread: dict[str, int] = {}  # slot -> consecutive frames a face-down card's QR went unread
        self.under: dict[str, bool] = {}  # slot -> the last usable reading beyond its outer edge
        self.frames = 0
        self.unreadable: str | None = None

    def process(self, frame: Any, lores: Any = None) -> list[Entry]:
        """One overhead frame; ``lores``: the camera's low-resolution stream of it, when it gives one
        (``Frame.lores``), which the reader uses instead of shrinking the frame."""
        self.frames += 1
        rolled = self.process_dice(frame)
        observation = self.reader.read(frame) if lores is None else self.reader.read(frame, lores=lores)
        why = getattr(observation, "unreadable", None)
        if why != self.unreadable:
            # said once when it starts and once when it ends; every page shows the table's warnings
            # one key: "readable again" replaces "unreadable", so a stale reason never stays on the pages
            self.table.warn(f"board unreadable: {why}" if why else "board readable again",
                            "error" if why else "info", key="board-readable")
            self.unreadable = why
        if why:
            return rolled  # no move while the board cannot be read
        readings = {stand: stand_value(obs) for stand, obs in observation.stands.items()}
        self.stabiliser.feed(readings)
        under: dict[str, Any] = getattr(observation, "under", {})
        self.mat.feed({slot: self._slot(slot, obs, under.get(slot)) for slot, obs in observation.slots.items()})
        # Offered every frame: the table records a board only when it changed, and re-explains an unchanged
        # one only when the record moved on (cheap otherwise).
        # Board and mat under one hold of the table's lock: no page sees the board explained without the mat
        # (a soul out of its camp is a move once its card is seen moving, lies21).
        with self.table.lock:
            entries = self.table.observe(self.stabiliser.board())
            mat = self.mat.board()
            return rolled + entries + (self.table.observe_mat(mat) if mat else [])

    def process_dice(self, frame: Any) -> list[Entry]:
        """The roll area, read only while the rules wait for a roll the camera can read (or a reading waits
        for its tap, so a re-roll is seen): the rest of the time it costs nothing."""
        if self.dice is None:
            return []
        reader, desk = self.dice
        if desk.table is not self.table or not (desk.pending or desk.due()):
            if self.frames % IDLE_EVERY == 0:
                reader.idle(frame)  # keeps the empty roll area's model fresh (learned without a photo)
            return []
        return desk.feed(reader.read(frame))

    def _under(self, slot: str, obs: SlotReading | None) -> bool | None:
        """A card's end beyond the slot's edge: an unknown reading there (a hand, an object) holds the last
        usable one, so it neither blocks the slot's own reading nor counts as a change."""
        if obs is None:
            return None
        if not obs.obstructed and obs.state in ("empty", "down") and obs.confidence >= MIN_CONFIDENCE:
            self.under[slot] = obs.state == "down"
        return self.under.get(slot)

    def _slot(self, slot: str, obs: SlotReading, under: SlotReading | None) -> tuple[SlotValue, bool]:
        """A QR missed in one frame (glare, a shadow) is no reading; only one missed for `UNREADABLE_AFTER`
        frames in a row is a face-down card that cannot be identified."""
        value, unusable = slot_value(obs, self._under(slot, under))
        if unusable or value.face != "down" or value.card is not None:
            if not unusable:
                self.unread.pop(slot, None)
            return value, unusable
        self.unread[slot] = self.unread.get(slot, 0) + 1
        return value, self.unread[slot] < UNREADABLE_AFTER
