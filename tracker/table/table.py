"""The authoritative table: the game, its record, and the one place every input goes through.

`submit` serialises every input (camera, phone, judge) under one lock: it gets the next sequence
number, the rules decide, the row is stored durably, and only then is the state changed for everyone
(`version` grows and waiters wake). A restart replays the record, so the state survives crashes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rules.board_map import BoardMap
from rules.catalog import Catalog
from rules.errors import RulesError
from rules.game import Game
from rules.notation import parse
from tracker.errors import InputError
from tracker.record.store import GameRecord, Row
from tracker.table.board import StandValue
from tracker.table.cards import explain_mat
from tracker.table.expected import differences, expected_board
from tracker.table.mat import SlotValue, expected_mat
from tracker.table.reconcile import Question, propose
from tracker.table.replay import SHOWN_KEPT, board_body, mat_body, replay, style_arguments

MAX_EXPLAINED = 12  # actions one board change may explain (fast play: several moves between two readings)


@dataclass(frozen=True, slots=True)
class Entry:
    """A record row as the tracker reports it."""

    seq: int
    ts: float
    source: str
    kind: str
    text: str
    accepted: bool
    rule: str
    message: str

    @classmethod
    def of(cls, row: Row) -> Entry:
        b = row.body
        text = str(b.get("text") or b.get("undid") or "")
        if row.kind == "correct":
            text = f"correct row {b.get('target')}: {b.get('text') or 'strike'}"
        elif row.kind == "mat":  # judges only: it names the face-down cards
            text = "mat: " + ", ".join(f"{slot} {v['face']}" + (f" {v['card']}" if v.get("card") else "")
                                       for slot, v in b["slots"].items() if v["face"] != "empty")
        return cls(row.seq, row.ts, row.source, row.kind, text, bool(b.get("accepted", True)),
                   str(b.get("rule", "")), str(b.get("message") or b.get("reason") or ""))


class Table:
    def __init__(self, board: BoardMap, record: GameRecord, decks: Mapping[str, list[str]] | None = None,
                 clock: Callable[[], float] = time.time, style: Mapping[str, Any] | None = None) -> None:
        """Open `record`, or start it with `decks` (and `style`: the play style, ``{"name", "cycles",
        "params"}``, domination by default) when it is new."""
        self.board = board
        self.record = record
        self.clock = clock
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._version = 0
        self._rejected: dict[str, int] = {}
        self._explained_at = -1  # the record's last row when the current board was last explained
        self._asked: set[str] = set()
        self.questions: list[Question] = []
        self.warnings: list[str] = []
        self.mat_flags: list[str] = []  # what the stable mat shows that no card action explains
        self.catalog = Catalog.packaged()
        # Called with the entries each input produced (keyframes, logs); under the table's lock.
        self.listeners: list[Callable[[list[Entry]], None]] = []
        rows = list(record.rows())
        if not rows:
            if decks is None:
                raise InputError(f"{record.path}: a new record needs the players' decks")
            body: dict[str, Any] = {"decks": {p: list(c) for p, c in decks.items()}, "map": board.name,
                                    "players": sorted(decks)}
            if style is not None:
                body["style"] = dict(style)
                Game.new(body["decks"], board, **style_arguments(body["style"]))  # refuse a bad style before storing
            self.record.append("start", "tracker", body, ts=clock())
            rows = list(record.rows())
        done = replay(rows, board)
        self.game: Game = done.game
        self.observed: dict[str, StandValue] = done.observed
        self.mat: dict[str, SlotValue] = done.mat
        self._remembered: dict[str, str] = {}  # slot -> a face-down card just turned over there
        self._revealed_seen: dict[str, set[str]] = self._revealed_by_slot()
        self._shown: list[str] = done.shown
        self._mat_explained_at = -1
        self.start = done.start
        self._rejected = done.rejected
        for q in done.questions:
            self.questions.append(Question(str(q["player"]), str(q["text"]), tuple(q["options"])))
            self._asked.add("|".join(q["options"]))
        self.warnings += [f"replay differs from the record: {m}" for m in done.mismatches]
        self._turn = self.game.state.turn
        if self.observed:
            # A crash may have come between storing a board and storing the actions it explains.
            self._explain("overhead")

    # --- inputs ---------------------------------------------------------------------------------------------
    def act(self, source: str, text: str) -> Entry:
        """A player's (or the script's) action in notation. Bad notation raises `InputError` and records
        nothing; a rules rejection is recorded and returned."""
        try:
            action = parse(text)
        except RulesError as exc:
            raise InputError(f"{text!r}: {exc}") from exc
        with self.lock:
            entry = self._apply(source, action.to_text())
            self._bump([entry])
            return entry

    def observe(self, stable: Mapping[str, StandValue], source: str = "overhead") -> list[Entry]:
        """A new stable board from the overhead camera: record it, then record every action it explains."""
        with self.lock:
            if dict(stable) == self.observed:
                # The same board, offered again: explain it anew only if the record changed since (a card
                # played on a phone after its token was already placed), never twice for one position.
                if self._explained_at == self.record.last_seq:
                    return []
                entries = self._explain(source, stale=True)
                if entries:
                    self._bump(entries)
                return entries
            entries = [Entry.of(self._append("board", source, {"observed": board_body(dict(stable))}))]
            self.observed = dict(stable)
            entries += self._explain(source)
            self._bump(entries)
            return entries

    def observe_mat(self, stable: Mapping[str, SlotValue], source: str = "overhead") -> list[Entry]:
        """A new stable mat from the overhead camera: record it (a judges-only row, since it names the
        face-down cards), then record every card action it explains; what it cannot explain is flagged."""
        with self.lock:
            if dict(stable) == self.mat:
                if self._mat_explained_at == self.record.last_seq:
                    return []
                entries = self._explain_mat(source, stale=True)
                self._bump(entries)
                return entries
            entries = [Entry.of(self._append("mat", source, {"slots": mat_body(dict(stable))}))]
            revealed = self._revealed_by_slot()
            self._remembered = {  # a card turned over: the top was read face down, no revealed card arrived
                slot: before.card for slot, v in stable.items()
                if (before := self.mat.get(slot)) is not None and before.face == "down" and before.card is not None
                and v.revealed and revealed.get(slot, set()) <= self._revealed_seen.get(slot, set())}
            self.mat = dict(stable)
            entries += self._explain_mat(source)
            self._revealed_seen = self._revealed_by_slot()
            self._bump(entries)
            return entries

    def _revealed_by_slot(self) -> dict[str, set[str]]:
        return {slot: {mc.card for mc in cards if mc.revealed}
                for slot, cards in expected_mat(self.game.state, self.board, self.catalog).items()}

    def _explain_mat(self, source: str, stale: bool = False) -> list[Entry]:
        entries: list[Entry] = []
        try:
            for _ in range(MAX_EXPLAINED):
                found = explain_mat(self.game, self.board, self.catalog, self.mat, self._remembered, self._shown,
                                    stale)
                self.mat_flags = found.flags
                proposal = found.proposal
                if proposal is None:
                    break
                if proposal.question is not None:
                    if not self.differences_of_stands():  # mid-move, a card in hand is no question yet
                        self._ask(proposal.question, source, entries)
                    break
                assert proposal.action is not None
                accepted_now = len(self.game.history)
                if self._rejected.get(proposal.action) == accepted_now:
                    break
                entry = self._apply(source, proposal.action)
                entries.append(entry)
                if not entry.accepted:
                    self._rejected[proposal.action] = accepted_now
                    break
                self._shown = [c for c in self._shown if c not in entry.text.split(" ")]
            return entries
        finally:
            self._mat_explained_at = self.record.last_seq

    def _ask(self, q: Question, source: str, entries: list[Entry]) -> None:
        key = "|".join(q.options)
        if key not in self._asked:
            self._asked.add(key)
            self.questions.append(q)
            entries.append(Entry.of(self._append("question", source, {
                "player": q.player, "text": q.text, "options": list(q.options)})))

    def undo(self, source: str, reason: str) -> Entry:
        """A judge takes back the last accepted action."""
        with self.lock:
            if not self.game.history:
                raise InputError("nothing to undo: no action has been accepted")
            undid = self.game.history[-1][0].to_text()
            row = self._append("undo", source, {"undid": undid, "reason": reason})
            self.game.undo()
            entry = Entry.of(row)
            self._bump([entry])
            return entry

    def correct(self, source: str, target: int, text: str, reason: str) -> Entry:
        """A judge replaces (or strikes, with empty `text`) the action recorded at row `target`;
        the game is rebuilt from the record with the correction in place."""
        if text:
            try:
                text = parse(text).to_text()
            except RulesError as exc:
                raise InputError(f"{text!r}: {exc}") from exc
        with self.lock:
            rows = list(self.record.rows())
            if not any(r.seq == target and r.kind == "action" for r in rows):
                raise InputError(f"row {target} is not an action row of this record")
            row = self._append("correct", source, {"target": target, "text": text, "reason": reason})
            done = replay([*rows, row], self.board)
            self.game = done.game
            self._rejected.clear()
            entry = Entry.of(row)
            self._bump([entry])
            return entry

    def shown(self, source: str, card: str) -> list[Entry]:
        """A card shown to the front camera (`card` is its physical id, never the payload's token).
        Recorded, and turned into a question to its owner: where it is played, or that it is revealed."""
        with self.lock:
            state = self.game.state
            cs = state.cards.get(card)
            entries = [Entry.of(self._append("shown", source, {"card": card, "known": cs is not None}))]
            self._shown = [*[c for c in self._shown if c != card], card][-SHOWN_KEPT:]
            if cs is not None:
                player = cs.owner
                options: list[str] = []
                if cs.zone == "hand":
                    territories = sorted(self.board.territories, key=lambda t: (len(t), t))
                    options = [f"{player} play {card} {t} revealed" for t in territories]
                elif cs.zone == "play" and not cs.revealed:
                    options = [f"{player} reveal {card}"]
                options = [line for line in options if self.game.is_legal(parse(line))]
                if options:
                    q = Question(player, f"{player} showed {card}: what happens with it?", tuple(options))
                    self.questions.append(q)
                    entries.append(Entry.of(self._append("question", source, {
                        "player": q.player, "text": q.text, "options": list(q.options)})))
            self._bump(entries)
            return entries

    # --- internals ------------------------------------------------------------------------------------------
    def _append(self, kind: str, source: str, body: dict[str, Any]) -> Row:
        return self.record.append(kind, source, body, ts=self.clock())

    def _apply(self, source: str, text: str) -> Entry:
        verdict = self.game.apply(text)
        try:
            row = self._append("action", source, {"text": text, "accepted": verdict.accepted,
                                                  "rule": verdict.rule, "message": verdict.message})
        except Exception:
            if verdict.accepted:
                self.game.undo()  # not stored, so it did not happen
            raise
        if self.game.state.turn != self._turn:
            self._turn = self.game.state.turn
            if self.record.can_sign:
                self.record.checkpoint(ts=self.clock())  # end of a diel cycle (#diel_cycle)
        return Entry.of(row)

    def _explain(self, source: str, stale: bool = False) -> list[Entry]:
        entries: list[Entry] = []
        try:
            return self._explain_into(source, entries, stale)
        finally:
            self._explained_at = self.record.last_seq

    def _explain_into(self, source: str, entries: list[Entry], stale: bool) -> list[Entry]:
        for _ in range(MAX_EXPLAINED):
            proposal = propose(self.game, self.board, self.observed, stale)
            if proposal is None:
                self._rejected.clear()
                self._asked.clear()
                break
            if proposal.question is not None:
                self._ask(proposal.question, source, entries)
                break
            assert proposal.action is not None
            accepted_now = len(self.game.history)
            if self._rejected.get(proposal.action) == accepted_now:
                break  # already recorded as rejected in this very position
            entry = self._apply(source, proposal.action)
            entries.append(entry)
            if not entry.accepted:
                self._rejected[proposal.action] = accepted_now
                break
        return entries

    def _bump(self, entries: list[Entry] | None = None) -> None:
        # A question stays open until one of its answers is accepted, or none of them is legal any more.
        answered = {e.text for e in entries or () if e.kind == "action" and e.accepted}
        self.questions = [q for q in self.questions if not answered.intersection(q.options)
                          and any(self.game.is_legal(parse(o)) for o in q.options)]
        self._version += 1
        self._changed.notify_all()
        for listener in self.listeners if entries else ():
            listener(list(entries or ()))

    def warn(self, message: str) -> None:
        with self.lock:
            self.warnings = [*self.warnings[-19:], message]
            self._bump()

    # --- views ----------------------------------------------------------------------------------------------
    def version(self) -> int:
        with self.lock:
            return self._version

    def wait_for_change(self, after: int, timeout: float) -> int:
        with self._changed:
            self._changed.wait_for(lambda: self._version > after, timeout=timeout)
            return self._version

    def expected(self) -> dict[str, StandValue]:
        with self.lock:
            return expected_board(self.game.state, self.board)

    def differences(self) -> list[str]:
        with self.lock:
            return self.differences_of_stands() + self.mat_flags

    def differences_of_stands(self) -> list[str]:
        with self.lock:
            return differences(self.expected(), self.observed) if self.observed else []

    def entries(self, after: int = 0) -> list[Entry]:
        with self.lock:
            return [Entry.of(r) for r in self.record.rows(after)]
