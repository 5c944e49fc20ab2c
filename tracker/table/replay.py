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
as a short one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.board_map import BoardMap
from rules.game import Game
from rules.state import GameState
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


def mat_body(mat: dict[str, SlotValue]) -> dict[str, dict[str, str | None]]:
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


def replay_record(record: GameRecord, board: BoardMap, upto: int | None = None,
                  snapshots: SnapshotStore | None = None, corrections_upto: int | None = None,
                  extra: Mapping[int, str] | None = None) -> Derived:
    """The same as `replay(record.rows(), board, upto)`, starting from the latest snapshot that the rows
    up to `upto` leave valid: one taken before every correction that reaches back behind it.
    `corrections_upto`: apply the corrections recorded up to this row (default `upto`; an undo needs the
    state before an action as the corrections made since see it). `extra`: corrections not recorded yet
    (target -> text), as if recorded after `upto`."""
    upto = record.last_seq if upto is None else min(upto, record.last_seq)
    fixes = [(r.seq, int(r.body["target"]), str(r.body.get("text", "")))
             for r in record.rows(upto=max(upto, corrections_upto or 0), kinds=("correct",))]
    fixes += [(upto + 1, target, text) for target, text in (extra or {}).items()]
    corrections = {target: text for _, target, text in fixes}
    return _from_snapshot(record, board, upto, snapshots, fixes, corrections, {})


def _from_snapshot(record: GameRecord, board: BoardMap, upto: int, snapshots: SnapshotStore | None,
                   fixes: list[tuple[int, int, str]], corrections: Mapping[int, str],
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
            start = Derived.from_bytes(body, board)
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
