"""The authoritative table: the game, its record, and the one place every input goes through.

`submit` serialises every input (camera, phone, judge) under one lock: it gets the next sequence
number, the rules decide, the row is stored durably, and only then is the state changed for everyone
(`version` grows and waiters wake). A restart replays the record, so the state survives crashes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from rules.core.errors import RulesError
from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.game import Game
from rules.kipukas.notation import parse
from rules.kipukas.state import GameState
from tracker.errors import InputError
from tracker.record.snapshots import SnapshotStore, snapshot_path
from tracker.record.store import GameRecord, Row
from tracker.table.board import StandValue
from tracker.table.cards import explain_mat
from tracker.table.derived import SNAPSHOT_EVERY, UNDO_DEPTH, Derived
from tracker.table.entry import Entry as Entry  # re-exported: callers import it from here
from tracker.table.entry import severity_of
from tracker.table.expected import differences, expected_board
from tracker.table.mat import SlotValue, expected_mat
from tracker.table.probes import HIDDEN_RULE, ProbeLedger, hidden_message, unnamed_card
from tracker.table.reconcile import MatSeen, Proposal, Question, propose
from tracker.table.replay import CORRECTIONS, board_body, mat_body, parse_token, replay_record, style_arguments

MAX_EXPLAINED = 12  # actions one board change may explain (fast play: several moves between two readings)


class Table:
    def __init__(self, board: BoardMap, record: GameRecord, decks: Mapping[str, list[str]] | None = None,
                 clock: Callable[[], float] = time.time, style: Mapping[str, Any] | None = None,
                 snapshots: SnapshotStore | None = None) -> None:
        """Open `record`, or start it with `decks` (and `style`: the play style, ``{"name", "cycles",
        "params"}``, domination by default) when it is new."""
        self.board = board
        self.record = record
        self.snapshots = snapshots  # derived state every `snapshot_every` rows, so restarts need not replay all
        self.snapshot_every = SNAPSHOT_EVERY
        self.clock = clock
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._version = 0
        self._rejected: dict[str, int] = {}
        self._probes = ProbeLedger()
        self._explained_at = -1  # the record's last row when the current board was last explained
        self._asked: set[str] = set()
        self.questions: list[Question] = []
        self.warnings: list[str] = []
        self.mat_flags: list[str] = []  # what the stable mat shows that no card action explains
        self.unknown: tuple[str, ...] = ()  # stands with an object the rules cannot explain: no difference, a warning
        self.unconfirmed: tuple[str, ...] = ()  # stands whose soul token waits for its owner's word (a question)
        self._deferred: Question | None = None  # that question, until the mat was read in the same frame
        self.catalog = Catalog.packaged()
        self.alerts: list[tuple[str, str, str]] = []  # (severity, message, key) behind `warnings`
        # Called with the entries each input produced (keyframes, logs); under the table's lock.
        self.listeners: list[Callable[[list[Entry]], None]] = []
        if record.last_seq == 0:
            if decks is None:
                raise InputError(f"{record.path}: a new record needs the players' decks")
            body: dict[str, Any] = {"decks": {p: list(c) for p, c in decks.items()}, "map": board.name,
                                    "players": sorted(decks)}
            if style is not None:
                body["style"] = dict(style)
                Game.new(body["decks"], board, **style_arguments(body["style"]))  # refuse a bad style before storing
            self.record.append("start", "tracker", body, ts=clock())
        done = replay_record(record, board, snapshots=snapshots)
        self.derived: Derived = done
        self.game: Game = done.game
        self.observed: dict[str, StandValue] = done.observed
        self.mat: dict[str, SlotValue] = done.mat
        self._remembered: dict[str, str] = {}  # slot -> a face-down card just turned over there
        self._revealed_seen: dict[str, set[str]] = self._revealed_by_slot()
        self._mat_explained_at = -1
        self.start = done.start
        self._snapped = done.seq
        self._rejected = {t: d for t, d in done.rejected.items() if d == done.depth}
        for q in done.open_questions():
            seen = tuple((str(stand), str(text)) for stand, text in dict(q.get("seen") or {}).items())
            self.questions.append(Question(str(q["player"]), str(q["text"]), tuple(q["options"]), seen))
            self._asked.add("|".join(q["options"]))
        self.alerts += [("error", f"replay differs from the record: {m}", "") for m in done.mismatches]
        if snapshots is not None and snapshots.problem:
            self.alerts.append(("warning", snapshots.problem, "snapshots"))
        self.warnings = [m for _, m, _ in self.alerts]
        self._turn = self.game.state.turn
        if self.observed:
            # A crash may have come between storing a board and storing the actions it explains.
            self._explain("overhead")

    # --- inputs ---------------------------------------------------------------------------------------------
    def act(self, source: str, text: str, seat: str | None = None, extra: Mapping[str, Any] | None = None) -> Entry:
        """A player's (or the script's) action in notation. Bad notation raises `InputError` and records
        nothing; a rules rejection is recorded (or counted, `tracker.table.probes`) and returned; an
        entry not stored as a row has `seq` 0. With `seat` (a player's phone), naming a card that seat
        may not know about gets the same rejection whether or not the card is in the game."""
        try:
            action = parse(text)
        except RulesError as exc:
            raise InputError(f"{text!r}: {exc}") from exc
        with self.lock:
            hidden = unnamed_card(self.game.state, self.board, seat, action) if seat else None
            if hidden is None or seat is None:
                entry = self._apply(source, action.to_text(), extra=extra)
            elif hidden[1]:  # the rules decide; a rejection gets the one answer
                entry = self._apply(source, action.to_text(), hide=hidden_message(seat, hidden[0]))
            else:
                entry = self._rejected_row(source, action.to_text(), HIDDEN_RULE, hidden_message(seat, hidden[0]),
                                           refused=True)
            self._bump([entry] if entry.seq else None)
            return entry

    def observe(self, stable: Mapping[str, StandValue], source: str = "overhead") -> list[Entry]:
        """A new stable board from the overhead camera: record it, then record every action it explains."""
        with self.lock:
            if dict(stable) == self.observed:
                # The same board, offered again: explain it anew only if the record changed since (a card
                # played on a phone after its token was already placed), never twice for one position.
                if self._explained_at == self.record.last_seq:
                    return []
                entries = self._explain(source, stale=True, defer=bool(self.mat))
                if entries:
                    self._bump(entries)
                return entries
            entries = [Entry.of(self._append("board", source, {"observed": board_body(dict(stable))}))]
            self.observed = dict(stable)
            self.derived.observed = self.observed
            # with a mat in view, a soul token out of a camp is asked about once the mat had its say
            entries += self._explain(source, defer=bool(self.mat))
            self._bump(entries)
            return entries

    def observe_mat(self, stable: Mapping[str, SlotValue], source: str = "overhead") -> list[Entry]:
        """A new stable mat from the overhead camera: record it (a judges-only row, since it names the
        face-down cards), then record every card action it explains; what it cannot explain is flagged."""
        with self.lock:
            if dict(stable) == self.mat:
                entries = self._ask_deferred(source)
                if self._mat_explained_at == self.record.last_seq and not entries:
                    return []
                entries += self._explain_mat(source, stale=True)
                self._bump(entries)
                return entries
            entries = [Entry.of(self._append("mat", source, {"slots": mat_body(dict(stable))}))]
            before, self.mat = self.mat, dict(stable)
            if self.unconfirmed or self.unknown:  # the mat may show a soul's card that left its camp: a seen move
                entries += self._explain(source)
            entries += self._ask_deferred(source)
            revealed = self._revealed_by_slot()
            self._remembered = {  # a card turned over: the top was read face down, no revealed card arrived
                slot: was.card for slot, v in stable.items()
                if (was := before.get(slot)) is not None and was.face == "down" and was.card is not None
                and v.revealed and revealed.get(slot, set()) <= self._revealed_seen.get(slot, set())}
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
                found = explain_mat(self.game, self.board, self.catalog, self.mat, self._remembered,
                                    self.derived.shown, stale)
                self.mat_flags = found.flags
                # mid-move (stands out of sync), a card in hand is no question yet
                if found.proposal is None or not self._record_proposal(
                        found.proposal, source, entries, ask=not self.differences_of_stands()):
                    break
            return entries
        finally:
            self._mat_explained_at = self.record.last_seq

    def _ask(self, q: Question, source: str, entries: list[Entry]) -> None:
        key = "|".join(q.options)
        if key not in self._asked and not any("|".join(o.options) == key for o in self.questions):
            self._asked.add(key)
            self.questions.append(q)
            body: dict[str, Any] = {"player": q.player, "text": q.text, "options": list(q.options)}
            if q.seen:
                body["seen"] = dict(q.seen)
            entries.append(Entry.of(self._append("question", source, body)))

    def note(self, kind: str, source: str, body: dict[str, Any], question: Question | None = None) -> list[Entry]:
        """Record a row that is no action (a camera's dice reading, an anti-cheat flag), and the question it
        raises, if any, at once for everyone."""
        with self.lock:
            entries = [Entry.of(self._append(kind, source, body))]
            if question is not None:
                self._ask(question, source, entries)
            self._bump(entries)
            return entries

    def undo(self, source: str, reason: str) -> Entry:
        """A judge takes back the last accepted action."""
        with self.lock:
            if not self.derived.stack:
                raise InputError("nothing to undo: no action has been accepted" if not self.derived.depth else
                                 f"an undo reaches back at most {UNDO_DEPTH} actions: correct the row instead")
            if self.game.history:
                undid = self.game.history[-1][0].to_text()
            else:
                undid = str(next(self.record.rows(after=self.derived.stack[-1] - 1,
                                                  upto=self.derived.stack[-1])).body["text"])
            row = self._append("undo", source, {"undid": undid, "reason": reason})
            self.derived.undone(self._state_after)
            self.derived.seq = row.seq
            self.game = self.derived.game
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
            found = next(self.record.rows(after=target - 1, upto=target), None) if target > 0 else None
            if found is None or found.kind != "action":
                raise InputError(f"row {target} is not an action row of this record")
            seen = self.record.last_seq
        done = self._replay_off_lock(seen, {target: text})  # phones keep acting meanwhile
        with self.lock:
            row = self._append("correct", source, {"target": target, "text": text, "reason": reason})
            fixes = {target: text for _, target, text in CORRECTIONS.upto(self.record, row.seq)}
            for later in self.record.rows(after=seen, upto=row.seq):  # recorded while the replay ran
                done.step(later, fixes, self._state_after, parse_token)
            done.observed = self.derived.observed
            self.derived = done
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
        row = self.record.append(kind, source, body, ts=self.clock())
        CORRECTIONS.appended(self.record.path, row)
        self.derived.seq = row.seq
        if kind in ("mat", "shown"):  # the same bookkeeping a replay does, so snapshots match it
            self.derived.step(row, {}, self._state_after, parse_token)
        elif kind == "question":
            self.derived.questions = [*self.derived.questions[-99:], dict(body)]
        return row

    def _replay_off_lock(self, upto: int, extra: Mapping[int, str]) -> Derived:
        """The derived state after row `upto` with corrections `extra` added, rebuilt through read-only
        connections of its own, so the table's lock is not held while it replays."""
        record = GameRecord(self.record.path, readonly=True)
        snaps = SnapshotStore(self.snapshots.path, readonly=True) if self.snapshots is not None else None
        try:
            return replay_record(record, self.board, upto=upto, snapshots=snaps, extra=extra)
        finally:
            record.close()
            if snaps is not None:
                snaps.close()

    def close(self) -> None:
        """Release the record's and the snapshots' files (a game that ended, a command that is done)."""
        with self.lock:
            self.record.close()
            if self.snapshots is not None:
                self.snapshots.close()

    def _state_after(self, seq: int) -> GameState:
        return replay_record(self.record, self.board, upto=seq, snapshots=self.snapshots,
                             corrections_upto=self.record.last_seq).game.state

    def _rejected_row(self, source: str, text: str, rule: str, message: str, refused: bool = False) -> Entry:
        """Store a rejection as its own row, or only count it (a seat that keeps getting rejections).
        `refused`: rejected before the rules were asked (replay does not ask them either)."""
        now = self.clock()
        if self._probes.rejected(source, text, rule, now):
            body: dict[str, Any] = {"text": text, "accepted": False, "rule": rule, "message": message}
            row = self._append("action", source, {**body, "refused": True} if refused else body)
            if not refused:  # a replay asks the rules again and keeps the rejection; a refused row it skips
                self.derived.recorded(row.seq, text, False)
            return Entry.of(row)
        if self._probes.due(source):
            self._store_probes(source, reset=False)
        return Entry(0, now, source, "action", text, False, rule, message)

    def _store_probes(self, source: str, reset: bool) -> None:
        body = self._probes.take(source, reset)
        if body is not None:
            self._append("probes", source, body)

    def _apply(self, source: str, text: str, hide: str | None = None, extra: Mapping[str, Any] | None = None
               ) -> Entry:
        verdict = self.game.apply(text)
        if not verdict.accepted and hide is not None:
            return self._rejected_row(source, text, HIDDEN_RULE, hide, refused=True)
        if not verdict.accepted:
            return self._rejected_row(source, text, verdict.rule, verdict.message)
        try:
            self._store_probes(source, reset=True)
            row = self._append("action", source, {**(extra or {}), "text": text, "accepted": verdict.accepted,
                                                  "rule": verdict.rule, "message": verdict.message})
        except Exception:
            self.game.undo()  # not stored, so it did not happen
            raise
        self.derived.recorded(row.seq, text, verdict.accepted)
        if self.game.state.turn != self._turn:
            self._turn = self.game.state.turn
            for probing in self._probes.sources():
                self._store_probes(probing, reset=False)
            if self.record.can_sign:
                self.record.checkpoint(ts=self.clock())  # end of a diel cycle (#diel_cycle)
        return Entry.of(row)

    def _explain(self, source: str, stale: bool = False, defer: bool = False) -> list[Entry]:
        entries: list[Entry] = []
        try:
            return self._explain_into(source, entries, stale, defer)
        finally:
            self._explained_at = self.record.last_seq

    def _ask_deferred(self, source: str) -> list[Entry]:
        """Ask the question about a soul token no one was seen moving, kept back until the mat was read (its
        card moving would have made it a seen move), if the board still calls for it."""
        entries: list[Entry] = []
        q, self._deferred = self._deferred, None
        if q is not None and set(self.unconfirmed) & {stand for stand, _ in q.seen} and q.stands(self.observed):
            self._ask(q, source, entries)
        return entries

    def _explain_into(self, source: str, entries: list[Entry], stale: bool, defer: bool = False) -> list[Entry]:
        unknown: tuple[str, ...] = ()
        unconfirmed: tuple[str, ...] = ()
        mat = MatSeen(self.mat, self.catalog)
        for _ in range(MAX_EXPLAINED):
            proposal = propose(self.game, self.board, self.observed, stale, mat)
            if proposal is None:
                self._rejected.clear()
                self._asked.clear()
                break
            if proposal.action is None and (proposal.unknown or proposal.unconfirmed):
                # named on the pages, never anyone's action; a soul token no one was seen moving is asked
                unknown, unconfirmed = proposal.unknown, proposal.unconfirmed
                if proposal.question is not None and defer:
                    self._deferred = proposal.question
                elif proposal.question is not None:
                    self._ask(proposal.question, source, entries)
                break
            if not self._record_proposal(proposal, source, entries):
                break
        self.unknown = self._name(self.unknown, unknown, "unknown-object",
                                  lambda s: f"something on {s} the rules cannot explain: unknown object")
        self.unconfirmed = self._name(
            self.unconfirmed, unconfirmed, "unconfirmed-soul",
            lambda s: f"a {self.observed[s].owner} soul token on {s} that no one was seen moving: no move is "
                      f"recorded until {self.observed[s].owner} confirms it on their phone; if it is not a soul, "
                      "it is an unknown object: take it away")
        return entries

    def _name(self, before: tuple[str, ...], stands: tuple[str, ...], key: str,
              message: Callable[[str], str]) -> tuple[str, ...]:
        """Name each stand of `stands` on the pages (warning `key`:stand), and take back those of `before`
        no longer in it: objects the rules cannot explain, soul tokens awaiting their owner's word."""
        for stand in sorted(set(before) - set(stands)):
            self.resolve(f"{key}:{stand}")
        for stand in sorted(set(stands) - set(before)):
            self.warn(message(stand), "warning", key=f"{key}:{stand}")
        return stands

    def _record_proposal(self, proposal: Proposal, source: str, entries: list[Entry], ask: bool = True) -> bool:
        """Record what a camera reading explains: a question (asked when `ask`), or an action with the rules'
        verdict. True when the next explanation may be asked for (the action was accepted)."""
        if proposal.question is not None:
            if ask:
                self._ask(proposal.question, source, entries)
            return False
        assert proposal.action is not None
        accepted_now = self.derived.depth
        if self._rejected.get(proposal.action) == accepted_now:
            return False  # already recorded as rejected in this very position
        entry = self._apply(source, proposal.action)
        entries.append(entry)
        if not entry.accepted:
            self._rejected[proposal.action] = accepted_now
            return False
        return True

    def _bump(self, entries: list[Entry] | None = None) -> None:
        # A question stays open until one of its answers is accepted, or none of them is legal any more.
        answered = {e.text for e in entries or () if e.kind == "action" and e.accepted}
        # One resting on the board (a soul token no one was seen moving) goes when the board no longer shows it.
        self.questions = [q for q in self.questions if not answered.intersection(q.options)
                          and any(self.game.is_legal(parse(o)) for o in q.options) and q.stands(self.observed)]
        self._version += 1
        self._changed.notify_all()
        if self.snapshots is not None and self.record.last_seq - self._snapped >= self.snapshot_every:
            self.snapshot()
        for listener in self.listeners if entries else ():
            listener(list(entries or ()))

    def snapshot(self) -> None:
        """Keep the derived state at the record's last row beside the record (hold the lock)."""
        if self.snapshots is None:
            return
        self.snapshots.put(self.record.last_seq, self.record.last_hash, self.derived.to_bytes())
        self._snapped = self.record.last_seq

    def warn(self, message: str, severity: str = "", key: str = "") -> None:
        """A message for the judges. `key` names what it is about: a later warning with the same key
        replaces it (a camera "back" replaces its "lost"), and `resolve(key)` takes it away. `severity`
        (info, warning, error) is guessed from the words when not given."""
        with self.lock:
            kept = [a for a in self.alerts if not key or a[2] != key][-19:]
            self.alerts = [*kept, (severity or severity_of(message), message, key)]
            self.warnings = [m for _, m, _ in self.alerts]
            self._bump()

    def resolve(self, key: str) -> None:
        """Take away the warnings about `key` (it was put right)."""
        with self.lock:
            if any(a[2] == key for a in self.alerts):
                self.alerts = [a for a in self.alerts if a[2] != key]
                self.warnings = [m for _, m, _ in self.alerts]
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
            seen = {s: v for s, v in self.observed.items() if s not in self.unknown}
            return differences(self.expected(), seen) if self.observed else []

    def entries(self, after: int = 0) -> list[Entry]:
        with self.lock:
            return [Entry.of(r) for r in self.record.rows(after)]


def open_table(board: BoardMap, record: GameRecord, decks: Mapping[str, list[str]] | None = None,
               clock: Callable[[], float] = time.time, style: Mapping[str, Any] | None = None) -> Table:
    """A table whose derived state is snapshotted beside its record (``<record>.snapshots``)."""
    return Table(board, record, decks, clock, style=style, snapshots=SnapshotStore(snapshot_path(record.path)))
