"""Rebuild a table's game from its record: the state is always a replay of the record.

Row kinds (body keys):
- ``start``: ``decks`` (player -> card ids), ``map``, ``players``, and ``style`` (``name``, ``cycles``,
  ``params``) unless the game is plain domination: the first row of every record;
- ``action``: ``text`` (notation), ``accepted``, ``rule``, ``message``: an input and the verdict it got;
  ``refused`` (true): rejected before the rules were asked (a player named a card they cannot know);
- ``probes``: ``count``, ``last``, ``rule``, ``first_ts``, ``last_ts``: rejected actions of one phone seat
  counted instead of stored one by one (`tracker.table.probes`);
- ``board``: ``observed`` (stand -> token text): a new stable board seen by the overhead camera;
- ``mat``: ``slots`` (slot -> ``{"face", "card"}``): a new stable mat seen by the overhead camera; ``card`` is
  the physical id read from a face-down card's QR (judges only: players never receive mat rows);
- ``shown``: ``card``, ``known``: a card shown to the front camera;
- ``question``: ``player``, ``text``, ``options``: an ambiguity put to a player;
- ``dice``: ``read``, ``status``, ``player``, ``answer``: dice at rest in the roll area (`tracker.table.dice_roll`);
  ``flag``: ``flag``, ``player``, ``camera``, ``typed``, ``dice_row``: an anti-cheat signal. Replay skips both
  (the action a reading answers is its own row, source ``camera``);
- ``undo``: ``reason``, ``undid``: a judge took back the last accepted action (at most `UNDO_DEPTH` back);
- ``correct``: ``target`` (seq of an action row), ``text`` (its replacement, empty to strike it),
  ``reason``: a judge's correction. Replay applies corrections retroactively, so later rows are
  re-decided on the corrected state.

`replay` replays rows held in memory from the first; `replay_record` starts from the latest usable
snapshot (`tracker.table.derived`) and replays only the rows after it, so a long game costs the same
as a short one. Two bounded caches keep that cost flat for a judge scrubbing through the record:
the snapshots last decoded (`SnapshotCache`: a decoded snapshot is never changed, each caller steps a
copy of it) and the record's corrections (`CorrectionIndex`: read once, then only the rows added
since; the record is append-only and each read checks the row it stopped at still has the same hash).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

from rules.kipukas.board_map import BoardMap
from rules.kipukas.game import Game
from rules.kipukas.state import GameState
from tracker.errors import RecordError
from tracker.record.snapshots import SnapshotStore
from tracker.record.store import GameRecord, Row
from tracker.table.board import EMPTY, StandValue
from tracker.table.derived import SHOWN_KEPT, Before, Derived, Replayed, style_arguments
from tracker.table.mat import SlotValue

__all__ = ["SHOWN_KEPT", "Derived", "Replayed", "board_body", "mat_body", "parse_token", "replay", "replay_record",
           "style_arguments"]


def parse_token(text: str) -> StandValue:
    """Inverse of `StandValue.text()`: ``empty``, ``red capital``, ``blue soul x2``."""
    if text == "empty":
        return EMPTY
    words = text.split()
    count = int(words[2][1:]) if len(words) == 3 else 1
    return StandValue(words[1], words[0], count)


def board_body(observed: dict[str, StandValue]) -> dict[str, str]:
    return {s: v.text() for s, v in sorted(observed.items())}


def mat_body(mat: dict[str, SlotValue]) -> dict[str, dict[str, str | bool | None]]:
    return {s: v.body() for s, v in sorted(mat.items())}


def _first(start: Row, board: BoardMap) -> Derived:
    if start.kind != "start":
        raise RecordError("the record does not begin with a start row")
    game = Game.new(start.body["decks"], board, **style_arguments(start.body.get("style")))
    return Derived(game, start=dict(start.body), seq=start.seq)


def _run(d: Derived, rows: Iterable[Row], corrections: Mapping[int, str], before: Before) -> Derived:
    for row in rows:
        d.step(row, corrections, before, parse_token)
    return d


def replay(rows: Iterable[Row], board: BoardMap, upto: int | None = None) -> Derived:
    """The game after every row up to and including `upto` (all rows when None), from the first row."""
    rows = [r for r in rows if upto is None or r.seq <= upto]
    if not rows:
        raise RecordError("the record does not begin with a start row")
    corrections = {int(r.body["target"]): str(r.body.get("text", "")) for r in rows if r.kind == "correct"}

    def before(seq: int) -> GameState:
        return _run(_first(rows[0], board), (r for r in rows[1:] if r.seq <= seq), corrections, before).game.state

    return _run(_first(rows[0], board), rows[1:], corrections, before)


Fix = tuple[int, int, str]  # (row of the correction, row it corrects, the replacement text)


class CorrectionIndex:
    """The corrections of the records read lately, by record path: the first read scans the record
    once, later reads only the rows after the last one seen (a correction is rare, rows are many).
    Thread-safe; holds at most `records` records."""

    def __init__(self, records: int = 8) -> None:
        self.records = records
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, tuple[int, str, list[Fix]]] = OrderedDict()  # path -> (seq, hash, fixes)

    def upto(self, record: GameRecord, upto: int) -> list[Fix]:
        with self._lock:
            seen = self._seen.get(record.path)
        if seen is not None and seen[0] > 0:
            at = next(record.rows(after=seen[0] - 1, upto=seen[0]), None)
            if at is None or at.hash != seen[1]:
                seen = None  # not the record these were read from
        scanned, _, fixes = seen if seen is not None else (0, "", [])
        if upto > scanned:
            new = [(r.seq, int(r.body["target"]), str(r.body.get("text", "")))
                   for r in record.rows(after=scanned, upto=upto, kinds=("correct",))]
            last = next(record.rows(after=upto - 1, upto=upto), None)
            if last is not None:
                fixes = [*fixes, *new]
                with self._lock:
                    self._seen[record.path] = (upto, last.hash, fixes)
                    self._seen.move_to_end(record.path)
                    while len(self._seen) > self.records:
                        self._seen.popitem(last=False)
            else:
                return [*fixes, *new]
        return [f for f in fixes if f[0] <= upto]

    def appended(self, path: str, row: Row) -> None:
        """`row` was just appended to the record at `path`: keep its index current without a read (a
        live table calls this for each row, so its replays never scan the record)."""
        with self._lock:
            seen = self._seen.get(path)
            if seen is None or seen[0] != row.seq - 1:
                return  # not read yet, or behind: the next read catches up from what it has
            fixes = seen[2]
            if row.kind == "correct":
                fixes = [*fixes, (row.seq, int(row.body["target"]), str(row.body.get("text", "")))]
            self._seen[path] = (row.seq, row.hash, fixes)


class SnapshotCache:
    """Snapshots decoded lately, by (snapshot file, row, bytes): decoding costs a few milliseconds,
    a copy of a decoded one a few microseconds. Thread-safe; holds at most `size` states."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, str, int, bytes], Derived] = OrderedDict()

    def derived(self, path: str, seq: int, body: bytes, board: BoardMap) -> Derived:
        """A copy of the snapshot's derived state, free to step on."""
        key = (path, board.name, seq, body)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                return kept.forked()
        kept = Derived.from_bytes(body, board)
        with self._lock:
            self._kept[key] = kept
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return kept.forked()


CORRECTIONS = CorrectionIndex()
DECODED = SnapshotCache()


def replay_record(record: GameRecord, board: BoardMap, upto: int | None = None,
                  snapshots: SnapshotStore | None = None, corrections_upto: int | None = None,
                  extra: Mapping[int, str] | None = None) -> Derived:
    """The same as `replay(record.rows(), board, upto)`, starting from the latest snapshot that the rows
    up to `upto` leave valid: one taken before every correction that reaches back behind it.
    `corrections_upto`: apply the corrections recorded up to this row (default `upto`; an undo needs the
    state before an action as the corrections made since see it). `extra`: corrections not recorded yet
    (target -> text), as if recorded after `upto`."""
    upto = record.last_seq if upto is None else min(upto, record.last_seq)
    fixes = CORRECTIONS.upto(record, min(record.last_seq, max(upto, corrections_upto or 0)))
    fixes += [(upto + 1, target, text) for target, text in (extra or {}).items()]
    corrections = {target: text for _, target, text in fixes}
    return _from_snapshot(record, board, upto, snapshots, fixes, corrections, {})


def _from_snapshot(record: GameRecord, board: BoardMap, upto: int, snapshots: SnapshotStore | None,
                   fixes: list[Fix], corrections: Mapping[int, str],
                   memo: dict[int, GameState]) -> Derived:
    def before(seq: int) -> GameState:
        if seq not in memo:
            memo[seq] = _from_snapshot(record, board, seq, snapshots, fixes, corrections, memo).game.state
        return memo[seq]

    start: Derived | None = None
    below: int | None = None
    while snapshots is not None and start is None:
        found = snapshots.latest(upto, below)
        if found is None:
            break
        seq, digest, body = found
        reaching = [target for fseq, target, _ in fixes if fseq > seq and target <= seq]
        if reaching:
            below = min(reaching)
            continue
        row = next(record.rows(after=seq - 1, upto=seq), None)
        if row is None or row.hash != digest:
            snapshots.drop_from(seq)  # written for rows the record no longer has
            below = seq
            continue
        try:
            start = DECODED.derived(snapshots.path, seq, body, board)
        except (RecordError, ValueError, KeyError, TypeError):
            below = seq
    if start is None:
        first = next(record.rows(upto=1), None)
        if first is None:
            raise RecordError(f"{record.path}: the record does not begin with a start row")
        start = _first(first, board)
    return _run(start, record.rows(after=start.seq, upto=upto), corrections, before)


def start_body(record: GameRecord) -> dict[str, Any]:
    first = next(record.rows(upto=1), None)
    if first is None or first.kind != "start":
        raise RecordError(f"{record.path}: the record does not begin with a start row")
    return dict(first.body)
