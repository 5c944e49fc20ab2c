"""`GameService`: the `tracker.api.TableService` of a table whose game is not Kipukas.

It serves any game of `rules.core.registry` through the game interface only: per-viewer states from
`view(viewer)`, tap-to-act buttons from `legal_actions(seat)` (named by the game's own notation words),
the record's rows with hidden words masked by `line_for`, the judge's undo and corrections, delayed
spectators and the record's exports. It knows no game: adding one to the registry needs nothing here.
What only a Kipukas table has (map picture, keyframes, camera dice, calibration, deck registration)
answers with an honest "this table has none".
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from rules.core.interface import JUDGE as JUDGE_SEAT
from rules.core.interface import SPECTATOR as SPECTATOR_SEAT
from rules.core.interface import TableGame
from rules.core.registry import names
from tracker.errors import InputError
from tracker.record.store import Row
from tracker.service.seats import SPECTATOR, Seats, Viewer
from tracker.service.served import ServedTable
from tracker.table.games import GameTable, replay

LOG_TAIL = 200   # record entries a state carries (older ones come in `log` pages)
LOG_PAGE = 200
SHOWN_KINDS = ("action", "undo", "correct", "board")
Organiser = Callable[[str, dict[str, list[str]]], tuple[str, list[str]]]
"""Start a new record of a game (name, seat -> deck lines); returns the record's file name and the seats."""
NO_MAP = (b'<svg xmlns="http://www.w3.org/2000/svg" width="320" height="40"><text x="8" y="24">'
          b'this game has no map picture</text></svg>')


def seat_of(viewer: Viewer) -> str:
    """The name the game interface knows a viewer by: a seat, ``judge`` or ``spectator``."""
    if viewer.role == "player" and viewer.seat is not None:
        return viewer.seat
    return JUDGE_SEAT if viewer.role == "judge" else SPECTATOR_SEAT


def buttons(lines: list[str]) -> list[dict[str, Any]]:
    """Legal lines grouped by seat and verb, each button labelled with the words after the verb (the
    game's own notation and card codes): what a phone shows as taps."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = {}
    for line in lines:
        words = line.split()
        seat, verb = words[0], words[1] if len(words) > 1 else ""
        groups.setdefault((seat, verb), []).append({"text": line, "label": " ".join(words[2:]) or verb})
    return [{"seat": seat, "verb": verb, "options": options} for (seat, verb), options in groups.items()]


def entry_for(row: Row, game: TableGame, viewer: Viewer) -> dict[str, Any] | None:
    """One record row as `viewer` may read it, or None when they may not see it at all: a rejected input
    only to its sender and judges (it may name anything), hidden words masked by the game's `line_for`."""
    if row.kind not in SHOWN_KINDS:
        return None
    who, judge = seat_of(viewer), viewer.role == "judge"
    body = row.body
    if row.kind == "action" and not body.get("accepted") and not judge and row.source != f"phone:{who}":
        return None
    if row.kind == "board":  # pieces on the table are public
        seen = ", ".join(f"{k} {v}" for k, v in body.get("observed", {}).items() if v) or "no pieces"
        return {"seq": row.seq, "time": row.ts, "source": row.source, "kind": "board", "action": f"camera: {seen}",
                "label": f"camera: {seen}", "accepted": True, "rule": "", "message": ""}
    text = str(body.get("text", body.get("undid", "")))
    shown = text if judge or not text else game.line_for(text, who)
    message = str(body.get("message", body.get("reason", "")))
    if shown != text:
        message = shown + message[len(text):] if message.startswith(text) else shown
    return {"seq": row.seq, "time": row.ts, "source": row.source, "kind": row.kind, "action": shown,
            "label": shown if row.kind != "undo" else f"undo {shown}",
            "accepted": bool(body.get("accepted", row.kind != "action")), "rule": str(body.get("rule", "")),
            "message": message if row.kind != "correct" else f"row {body.get('target')}: {body.get('reason', '')}"}


class GameService(ServedTable):
    """The pages' table for an interface game (see the module docstring). Views are cached per viewer and
    version: one projection per role and change, not one per phone."""

    table: GameTable

    def __init__(self, table: GameTable, seats: Seats | None = None, *, spectator_delay_min: float = 0.0,
                 allowed_origins: tuple[str, ...] = (), public_url: str = "",
                 clock: Callable[[], float] = time.time) -> None:
        self.table = table
        self.game = table.name
        self.seats = seats or Seats(tuple(table.game.seats))
        self.spectator_delay_min = spectator_delay_min
        self.allowed_origins = tuple(allowed_origins)
        self.public_url = public_url
        self.clock = clock
        self.judge_callers: list[Callable[[str], None]] = []
        self.organiser: Organiser | None = None  # set by the runtime that can start a new record
        self.games = tuple(n for n in names() if n != "kipukas")  # Kipukas needs its cameras' runtime
        self._base = 0
        self._lock = threading.Lock()
        self._views: dict[tuple[Viewer, int, int], dict[str, Any]] = {}
        self._delayed: dict[int, TableGame] = {}
        self._tail: list[Row] = []
        self._tail_of: object = None
        self._projected: dict[tuple[int, str, str], dict[str, Any] | None] = {}
        self._fingerprints: dict[str, str] = {}

    def replace(self, table: GameTable) -> None:
        """Serve another game's table (a new record started by an organiser); versions keep growing."""
        with self._lock:
            self._base += self.table.version() + 1
            self.table, self.game = table, table.name
            self._views, self._delayed, self._projected = {}, {}, {}

    # --- views ----------------------------------------------------------------------------------------
    def _delayed_game(self) -> tuple[int, TableGame] | None:
        """The row delayed spectators see now and the game replayed to it, or None (no delay, or the
        delay reaches the latest row)."""
        if self.spectator_delay_min <= 0:
            return None
        table = self.table
        with table.lock:
            upto = table.record.last_row_before(self.clock() - self.spectator_delay_min * 60.0)
            last = table.record.last_seq
        if upto >= last:
            return None
        with self._lock:
            game = self._delayed.get(upto)
        if game is None:
            with table.lock:
                game = replay(table.record, upto)
            with self._lock:
                self._delayed = {upto: game}
        return upto, game

    def snapshot(self, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """The state as `viewer` may see it; the same object until the table (or the delayed row) moves."""
        delayed = self._delayed_game() if viewer.role == "spectator" else None
        table = self.table
        with table.lock:
            version = self.version()
            key = (viewer, version, delayed[0] if delayed else -1)
            with self._lock:
                cached = self._views.get(key)
            if cached is not None:
                return cached
            upto, game = delayed if delayed else (table.record.last_seq, table.game)
            view = self._state(viewer, game, upto, version)
            if delayed:
                view["delayed_min"] = self.spectator_delay_min
            else:
                view["signed_head"] = table.record.signed_head()
            view["table_key"] = table.record.fingerprint
        with self._lock:
            if len(self._views) > 32:
                self._views = {k: v for k, v in self._views.items() if k[1] == version}
            self._views[key] = view
        return view

    def _state(self, viewer: Viewer, game: TableGame, upto: int, version: int) -> dict[str, Any]:
        who = seat_of(viewer)
        seen = game.view(who)
        result = game.result
        seats = [viewer.seat] if viewer.role == "player" and viewer.seat else \
            list(game.seats) if viewer.role == "judge" else []
        lines = [line for seat in seats for line in game.legal_actions(seat)]
        if viewer.role == "judge":
            lines = game.legal_actions()  # the judge acts for anyone (the game's own judge lines are typed)
        state: dict[str, Any] = {
            "version": version, "seq": upto, "game": self.game, "role": viewer.role, "seat": viewer.seat,
            "players": list(game.seats), "view": seen, "phase": seen.get("phase"),
            "result": result.to_text() if result else None,
            "prompts": [{"player": p.player, "rule": p.rule, "text": p.text, "blocking": p.blocking}
                        for p in game.prompts()],
            "actions": buttons(lines), "log": self._entries(viewer, game, max(0, upto - LOG_TAIL), upto),
            "warnings": list(self.table.warnings), "history": len(game.history),
            "questions": [{"player": p, "text": t, "options": list(o)} for p, t, o in self.table.questions
                          if viewer.role == "judge" or (p is not None and p == viewer.seat)],
            "differences": list(self.table.differences),
        }
        if viewer.role == "judge":
            state["state_text"] = game.to_text()
            state["key_fingerprint"] = self.key_fingerprint()
        return state

    def _rows(self, after: int, upto: int) -> list[Row]:
        """Record rows after `after` up to `upto` (hold the table's lock): the latest `LOG_TAIL` come from
        memory (rows are append-only; read once), older ones from the record."""
        record = self.table.record
        if self._tail_of is not record:
            self._tail, self._tail_of = [], record
        last = self._tail[-1].seq if self._tail else max(0, record.last_seq - LOG_TAIL)
        if record.last_seq > last:
            self._tail = (self._tail + list(record.rows(after=last)))[-LOG_TAIL:]
        if self._tail and after >= self._tail[0].seq - 1:
            return [r for r in self._tail if after < r.seq <= upto]
        return list(record.rows(after=after, upto=upto))

    def _entries(self, viewer: Viewer, game: TableGame, after: int, upto: int) -> list[dict[str, Any]]:
        """The rows as `viewer` reads them. A row's projection is kept per role and seat: a recorded row
        never changes, and a masked word stays masked (a card revealed later is shown by the view)."""
        out = []
        for row in self._rows(after, upto):
            key = (row.seq, viewer.role, viewer.seat or "")
            if key not in self._projected:
                if len(self._projected) > 20_000:
                    self._projected = {}
                self._projected[key] = entry_for(row, game, viewer)
            entry = self._projected[key]
            if entry is not None:
                out.append(entry)
        return out

    def entries_since(self, viewer: Viewer, after: int) -> list[dict[str, Any]]:
        return [e for page in self.log_pages(viewer, after, newest_only=False) for e in page]

    def log_pages(self, viewer: Viewer, after: int, newest_only: bool = True) -> list[list[dict[str, Any]]]:
        delayed = self._delayed_game() if viewer.role == "spectator" else None
        table = self.table
        with table.lock:
            upto, game = delayed if delayed else (table.record.last_seq, table.game)
        if newest_only and after == 0:
            after = max(0, upto - LOG_PAGE)
        pages: list[list[dict[str, Any]]] = []
        while after < upto:
            end = min(upto, after + LOG_PAGE)
            with table.lock:
                pages.append(self._entries(viewer, game, after, end))
            after = end
        return pages

    def map_image(self) -> tuple[bytes, str]:
        return NO_MAP, "image/svg+xml"

    def keyframe(self, seq: int, camera: str) -> bytes | None:
        return None  # no camera keeps frames for these games (docs/games.md)

    # --- the judge's replay and exports ---------------------------------------------------------------
    def state_at(self, viewer: Viewer, seq: int) -> dict[str, Any]:
        """The judge's view of the game after row `seq`, replayed from the record."""
        self._judge_only(viewer, "replay the record")
        table = self.table
        with table.lock:
            last = table.record.last_seq
            if not 1 <= seq <= last:
                raise InputError(f"row {seq}: the record has rows 1..{last}")
            game = replay(table.record, seq)
            view = self._state(viewer, game, seq, self.version())
            row = next(table.record.rows(after=seq - 1, upto=seq), None)
        view.update({"row": entry_for(row, game, viewer) if row is not None else None, "last_seq": last,
                     "keyframes": []})
        return view

    def start_game(self, viewer: Viewer, decks: dict[str, list[str]], style: str = "",
                   colours: dict[str, str] | None = None, game: str = "") -> dict[str, Any]:
        """A judge starts a new game of `game` (default: the one in play) from the organiser page; a seat's
        deck lines, when given, are its JSON entry of the game's configuration (as `game new --deck`).
        The runtime's `organiser` writes the new record and makes it current; the pages follow it."""
        self._judge_only(viewer, "start a new game")
        name = game or self.game
        if self.organiser is None:
            raise InputError(f"this table cannot start games from its pages: use `kipukas-tracker game new "
                             f"--game {name}`")
        if name not in self.games:
            raise InputError(f"unknown game {name!r} (this page starts: {', '.join(self.games)})")
        if colours:
            raise InputError(f"a {name} table takes its token colours from the calibration page")
        record, players = self.organiser(name, {seat: lines for seat, lines in decks.items() if lines})
        return {"record": record, "players": players, "style": name, "game": name, "palette": {}}

    def organise_options(self) -> dict[str, Any]:
        return {"players": list(self.seats.players), "styles": [], "colours": [], "palette": {},
                "front_camera": False, "game": self.game, "games": list(self.games)}

    def registration(self, viewer: Viewer, action: str, seat: str = "") -> dict[str, Any]:
        self._judge_only(viewer, "register decks")
        raise InputError(f"a {self.game} table registers no decks with the front camera")

    def calibration_state(self) -> dict[str, Any] | None:
        return None

    def calibration_overlay(self) -> bytes | None:
        return None

    def set_calibration_corners(self, corners: list[list[float]]) -> dict[str, Any]:
        raise InputError(f"this {self.game} table has no overhead camera to calibrate")

    def learn_colours(self, samples: dict[str, str]) -> dict[str, Any]:
        raise InputError(f"this {self.game} table has no overhead camera")

    # --- inputs ---------------------------------------------------------------------------------------
    def act(self, viewer: Viewer, text: str) -> dict[str, Any]:
        """A player's action (their own seat only) or a judge's (any seat, and the game's judge lines);
        returns the recorded entry as the viewer sees it, rejections with their rule and message."""
        source = self._source_of(viewer, text)
        _, row = self.table.submit(text, source)
        return self._project(viewer, row)

    def confirm_roll(self, viewer: Viewer, roll_id: int) -> dict[str, Any]:
        raise InputError(f"this {self.game} table has no camera reading dice")

    def undo(self, viewer: Viewer, reason: str) -> dict[str, Any]:
        self._judge_only(viewer, "undo")
        _, row = self.table.undo_row(reason)
        return self._project(viewer, row)

    def correct(self, viewer: Viewer, target: int, text: str, reason: str) -> dict[str, Any]:
        self._judge_only(viewer, "correct")
        return self._project(viewer, self.table.correct(target, text, reason))

    def _project(self, viewer: Viewer, row: Row) -> dict[str, Any]:
        with self.table.lock:
            entry = entry_for(row, self.table.game, viewer)
        if entry is None:  # pragma: no cover - the sender and judges always see their own rows
            raise InputError(f"row {row.seq} is not visible to {viewer.name}")
        return entry
