"""The table as the record knows it: claim tokens, souls in play, and the log of every input.

Every input (a stable board change seen by the overhead camera, or a player's declaration) ends as one
log entry with its verdict. Rejected physical moves are logged and flagged, never dropped, and leave the
expected board untouched, so the table is out of sync until the players put the board back or make a
legal move instead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rules.board_map import BoardMap
from rules.catalog import Catalog
from rules.claims import check_claim_token, check_entry_stand
from rules.identity import parse_payload
from rules.movement import check_move
from rules.verdict import Verdict
from tracker.board import EMPTY, StandValue


@dataclass(frozen=True, slots=True)
class LogEntry:
    seq: int
    time: float
    source: str  # "overhead", "front", "phone:<seat>", "script"
    action: str  # canonical text of the action, e.g. "red move HMPU#0004 T1-M9"
    accepted: bool
    rule: str
    message: str


@dataclass
class Soul:
    physical_id: str
    code: str
    title: str
    owner: str
    movement: int
    stand: str


@dataclass
class TableModel:
    board: BoardMap
    catalog: Catalog = field(default_factory=Catalog.packaged)
    claims: dict[str, tuple[str, str]] = field(default_factory=dict)  # territory stand -> (kind, owner)
    souls: dict[str, Soul] = field(default_factory=dict)
    log: list[LogEntry] = field(default_factory=list)
    clock: float = 0.0  # set by the loop; 0 uses wall time
    accepted: int = 0  # how many log entries were accepted: a cheap version of the record

    def expected_board(self) -> dict[str, StandValue]:
        """What the overhead camera should see on every stand if the record is right."""
        view = {stand: EMPTY for stand in self.board.stands}
        for stand, (kind, owner) in self.claims.items():
            view[stand] = StandValue(kind, owner, 1)
        for soul in self.souls.values():
            if self.board.stands[soul.stand].kind == "movement":
                prev = view[soul.stand]
                view[soul.stand] = StandValue("soul", soul.owner, prev.count + 1 if prev.kind == "soul" else 1)
        return view

    def souls_on(self, stand: str, owner: str | None = None) -> list[Soul]:
        return [s for s in self.souls.values() if s.stand == stand and (owner is None or s.owner == owner)]

    def enemy_stands(self, owner: str) -> set[str]:
        return {s.stand for s in self.souls.values() if s.owner != owner}

    def _record(self, source: str, action: str, verdict: Verdict) -> LogEntry:
        entry = LogEntry(len(self.log) + 1, self.clock or time.time(), source, action,
                         verdict.accepted, verdict.rule, verdict.message)
        self.log.append(entry)
        self.accepted += verdict.accepted
        return entry

    def note(self, source: str, action: str, rule: str, message: str, accepted: bool = True) -> LogEntry:
        return self._record(source, action, Verdict(accepted, rule, message))

    def claim(self, source: str, owner: str, kind: str, stand: str) -> LogEntry:
        verdict = check_claim_token(self.board, owner, kind, stand, self.claims)
        if verdict.accepted:
            self.claims[stand] = (kind, owner)
        return self._record(source, f"{owner} {kind} {stand}", verdict)

    def play_soul(self, source: str, owner: str, payload: str, stand: str) -> LogEntry:
        """A soul card played revealed at a base camp or capital (declared on a phone or shown to the
        front camera). The payload's per-copy token never leaves this method."""
        ref = parse_payload(payload)
        card = self.catalog.resolve(ref)
        pid = ref.physical_id if ref.code else card.code
        action = f"{owner} play {pid} {stand} revealed"
        if not card.is_soul or card.movement is None:
            return self._record(source, action, Verdict.reject("#card_variations", f"{card.title} is not a soul card"))
        if pid in self.souls:
            return self._record(source, action, Verdict.reject("#discarding_runout", f"{pid} is already in play"))
        verdict = check_entry_stand(self.board, owner, card.title, stand, self.claims)
        if verdict.accepted:
            self.souls[pid] = Soul(pid, card.code, card.title, owner, card.movement, stand)
        return self._record(source, action, verdict)

    def move_soul(self, source: str, soul: Soul, goal: str) -> LogEntry:
        verdict = check_move(self.board, soul.title, soul.movement, soul.stand, goal, self.enemy_stands(soul.owner))
        action = f"{soul.owner} move {soul.physical_id} {soul.stand}-{goal}"
        if verdict.accepted:
            soul.stand = goal
        return self._record(source, action, verdict)
