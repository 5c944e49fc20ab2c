"""`GameTable`: a table for any game behind the game interface (`rules.core`), with the same record.

Kipukas keeps its own `Table` (cameras, the mat, corrections); the games registered in
`rules.core.registry` are played through this one: every input is asked of the game, written to the
signed, hash-chained record before anyone is told, and the state is always a replay of the record.
It knows no game: it speaks notation lines, verdicts, prompts and views.

Row kinds it writes (the body keys of `tracker.table.replay`'s table, where they exist):
- ``start``: ``game`` (registry name), ``config`` (the game's configuration), ``config_text`` (the same
  as JSON text in the order it was given: a row's body is stored with sorted keys, and a game may read
  an order from its configuration, e.g. kaiju's seats in seating order), ``players`` (seats in play order);
- ``action``: ``text``, ``accepted``, ``rule``, ``message`` (rejected inputs too), and ``public`` when the
  game's `line_for` masks words of ``text`` for spectators (a card drawn): what the hub shows them;
- ``undo``: ``reason``, ``undid``: a judge took back the last accepted action;
- ``board``: ``observed`` (region -> seat or null): a new overhead reading of a game that reads its board
  (`observe`); the actions it implied follow as ``action`` rows from source ``overhead``;
- ``correct``: ``target`` (seq of an action row), ``text`` (its replacement, empty to strike it),
  ``reason`` (and ``public`` as for actions): a judge's correction, as for Kipukas. Replay applies
  corrections retroactively: the rows after the corrected one are re-decided on the corrected state
  (their stored verdicts are then history, not a check), exactly as `tracker.table.replay` does.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.core.interface import SPECTATOR, ReadsBoard, TableGame, Verdict, View
from rules.core.notation import NotationError
from rules.core.registry import new_game
from tracker.errors import InputError, RecordError
from tracker.record.store import GameRecord, Row

KINDS = ("start", "action", "undo", "correct")


@dataclass(frozen=True)
class Started:
    game: str
    config: dict[str, Any]
    players: tuple[str, ...]


def start_row(record: GameRecord) -> Started | None:
    """The start row of an interface game's record; None for a Kipukas record (no ``game`` key)."""
    first = next(record.rows(kinds=("start",)), None)
    if first is None:
        raise RecordError(f"{record.path}: no start row")
    body = first.body
    if "game" not in body:
        return None
    players = tuple(str(p) for p in body.get("players", ()))
    config = dict(body.get("config", {}))
    if "config_text" in body:
        given = json.loads(str(body["config_text"]))
        if given != config:
            raise RecordError(f"{record.path}: row {first.seq}: config_text differs from config")
        config = given
    else:  # a record from before config_text: a mapping keyed by the seats is put back in play order
        config = {k: {p: v[p] for p in players} if isinstance(v, dict) and set(v) == set(players) and players
                  else v for k, v in config.items()}
    return Started(str(body["game"]), config, players)


def replay(record: GameRecord, upto: int | None = None, fixes: Mapping[int, str] | None = None) -> TableGame:
    """The game of an interface record as it stood after row `upto` (all rows by default), with the
    record's corrections (and `fixes`, target row -> text, not yet recorded) applied retroactively. A row
    before the first corrected one whose stored verdict the rules no longer give is a `RecordError`
    naming its sequence number."""
    started = start_row(record)
    if started is None:
        raise RecordError(f"{record.path}: a Kipukas record (open it with the Kipukas table)")
    game = new_game(started.game, started.config)
    if started.players and tuple(game.seats) != started.players:
        raise RecordError(f"{record.path}: the start row seats {', '.join(started.players)}, but its configuration "
                          f"seats {', '.join(game.seats)}")
    rows = list(record.rows(kinds=("action", "undo", "correct"), upto=upto))
    corrections = {int(r.body["target"]): str(r.body.get("text", "")) for r in rows if r.kind == "correct"}
    corrections.update(fixes or {})
    first_fix = min(corrections, default=None)
    for row in rows:
        if row.kind == "undo":
            if game.history:
                game.undo()
        elif row.kind == "action":
            _replay_action(record, game, row, corrections, first_fix)
    return game


def _replay_action(record: GameRecord, game: TableGame, row: Row, corrections: Mapping[int, str],
                   first_fix: int | None) -> None:
    text = corrections.get(row.seq, str(row.body["text"]))
    if not text:
        return  # struck by a judge
    verdict = game.apply(text)
    if (first_fix is None or row.seq < first_fix) and verdict.accepted != bool(row.body["accepted"]):
        raise RecordError(f"{record.path}: row {row.seq} ({row.body['text']!r}) was "
                          f"{'accepted' if row.body['accepted'] else 'rejected'}, the rules now say "
                          f"{verdict.rule or 'accepted'}: {verdict.message}")


class GameTable:
    """The one owner of an interface game: every input, from any source, goes through `act`, `undo` or
    `correct`, under `lock`; `version` grows with every row (the pages wait on it)."""

    def __init__(self, record: GameRecord, game: TableGame, name: str) -> None:
        self.record = record
        self.game = game
        self.name = name
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._version = 0
        self.warnings: list[str] = []
        self.observed: dict[str, str | None] = {}  # the last board reading recorded
        self.questions: list[tuple[str | None, str, tuple[str, ...]]] = []  # what the camera cannot settle
        self.differences: list[str] = []

    @classmethod
    def start(cls, record: GameRecord, name: str, config: Mapping[str, Any]) -> GameTable:
        """A new game in an empty record (the game's set-up errors raise before anything is written)."""
        if record.last_seq:
            raise RecordError(f"{record.path}: the record already holds {record.last_seq} rows")
        plain = json.loads(json.dumps(config))  # what the record keeps is what a replay gets
        game = new_game(name, plain)
        record.append("start", "tracker", {"game": name, "config": plain, "config_text": json.dumps(plain),
                                           "players": list(game.seats)})
        return cls(record, game, name)

    @classmethod
    def open(cls, record: GameRecord) -> GameTable:
        """The game of an existing record, replayed row by row (see `replay`)."""
        started = start_row(record)
        if started is None:
            raise RecordError(f"{record.path}: a Kipukas record (open it with the Kipukas table)")
        return cls(record, replay(record), started.game)

    # --- change notification --------------------------------------------------------------------------
    def version(self) -> int:
        return self._version

    def wait_for_change(self, after: int, timeout: float) -> int:
        """Block until `version()` exceeds `after` or `timeout` seconds pass; return the version."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._version <= after:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            return self._version

    def _bump(self) -> None:
        with self._changed:
            self._version += 1
            self._changed.notify_all()

    def warn(self, message: str) -> None:
        """A warning every page shows (a player called a judge, a camera fault); kept for this run only."""
        with self.lock:
            self.warnings = [*self.warnings[-19:], message]
        self._bump()

    # --- inputs ---------------------------------------------------------------------------------------
    def act(self, text: str, source: str) -> Verdict:
        """Ask the rules, write the input and its verdict, then return the verdict."""
        return self.submit(text, source)[0]

    def submit(self, text: str, source: str) -> tuple[Verdict, Row]:
        """`act`, returning the row written too (the service shows it to the viewer who acted)."""
        with self.lock:
            verdict = self.game.apply(text)
            body: dict[str, Any] = {"text": text, "accepted": verdict.accepted, "rule": verdict.rule,
                                    "message": verdict.message}
            public = self.game.line_for(text, SPECTATOR)
            if public != text:  # what the hub may show spectators: the game's hidden words masked
                body["public"] = public
            row = self.record.append("action", source, body)
        self._bump()
        return verdict, row

    def undo(self, reason: str) -> str:
        """A judge takes back the last accepted action; the row says which and why."""
        return self.undo_row(reason)[0]

    def undo_row(self, reason: str) -> tuple[str, Row]:
        """`undo`, returning the row written too."""
        with self.lock:
            if not self.game.history:
                raise InputError("nothing to undo: no action has been accepted")
            undid = self.game.undo()
            row = self.record.append("undo", "judge", {"reason": reason, "undid": undid})
        self._bump()
        return undid, row

    def correct(self, target: int, text: str, reason: str) -> Row:
        """A judge replaces (or strikes, with empty `text`) the action recorded at row `target`; the game
        is rebuilt from the record with the correction in place (later rows re-decided)."""
        with self.lock:
            if text:
                try:
                    text = self.game.canonical(text)
                except NotationError as exc:
                    raise InputError(f"{text!r}: {exc}") from exc
            found = next(self.record.rows(after=target - 1, upto=target), None) if target > 0 else None
            if found is None or found.kind != "action":
                raise InputError(f"row {target} is not an action row of this record")
            game = replay(self.record, fixes={target: text})
            body: dict[str, Any] = {"target": target, "text": text, "reason": reason}
            public = game.line_for(text, SPECTATOR) if text else text
            if public != text:
                body["public"] = public
            row = self.record.append("correct", "judge", body)
            self.game = game
        self._bump()
        return row

    def observe(self, seen: Mapping[str, str | None], source: str = "overhead") -> list[Row]:
        """An overhead reading of the pieces (region -> seat, None for empty; unread regions absent), for a
        game that reads its board (`rules.core.interface.ReadsBoard`). A reading that differs from the
        last one recorded is written as a ``board`` row; the actions the game says it implies are asked
        and recorded like any input (source ``overhead``); its questions replace the open ones."""
        if not isinstance(self.game, ReadsBoard):
            raise InputError(f"a {self.name} game does not read its board from a camera")
        rows: list[Row] = []
        with self.lock:
            observed = {k: v for k, v in sorted(seen.items())}
            if observed != self.observed:
                self.observed = observed
                rows.append(self.record.append("board", source, {"observed": observed}))
            reading = self.game.read_board(seen)
            for line in reading.lines:
                verdict = self.game.apply(line)
                rows.append(self.record.append("action", source, {
                    "text": line, "accepted": verdict.accepted, "rule": verdict.rule, "message": verdict.message}))
            self.questions = list(reading.questions)
            self.differences = list(reading.differences)
        if rows or reading.questions:
            self._bump()
        return rows

    def view(self, viewer: str) -> View:
        return self.game.view(viewer)

    def status(self) -> dict[str, Any]:
        """The game in progress for `game status`: no hidden information (the spectator's view)."""
        result = self.game.result
        return {"game": self.name, "players": list(self.game.seats), "rows": self.record.last_seq,
                "result": result.to_text() if result else None, **public_status(self.game)}


def public_status(game: TableGame) -> dict[str, Any]:
    """What `game status` shows of any game through the interface: the blocking prompts and the
    spectator's view (no hidden information)."""
    return {"prompts": [{"player": p.player, "rule": p.rule, "text": p.text} for p in game.prompts() if p.blocking],
            "view": game.view("spectator")}
