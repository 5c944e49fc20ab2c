"""Store-and-forward of the table's records to the tournament hub (`[hub] url` and `token` in table.toml).

The records on the Pi are the store: the pusher reads every game's rows and signed head from the SQLite
files (read-only, beside the table loop that writes them) and sends whatever the hub has not acknowledged.
The hub answers each push with the highest contiguous sequence number it holds for that game; after any
disconnect the pusher asks again and resends from there. At-least-once delivery, idempotent by sequence
number at the hub: nothing lost, nothing duplicated, and the table never waits for the hub.

Pushes can be pipelined (`window` > 1): up to `window` pushes of a game on their way before the first is
answered, so a row recorded while a push is out leaves at once instead of waiting a round trip (issue 20:
that wait was the largest part of a row's way to the spectators under load; the default stays 1, see
`PUSH_WINDOW`). The hub stores one table's pushes in seq order; should one be refused (a gap, Redis away),
every later push of that game is refused too, and the pusher resends from what the hub acknowledged.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import socketio

log = logging.getLogger("kipukas-tracker.hub")
NAMESPACE = "/push"
# Pushes of a game on their way at once. 1: each push waits for the hub's answer, so rows recorded
# meanwhile go together in the next one. Pipelining (more) takes the round trip out of a row's way, but
# sends more, smaller pushes, each costing the hub a Socket.IO event: on this 2-core machine, starved by
# other jobs, it measured slower (p99 x1.2-1.6, `bench/bench_hub.py --also-window 4`); kept as an option.
PUSH_WINDOW = 1


@dataclass
class GameCursor:
    path: Path
    db: sqlite3.Connection
    acked: int | None = None  # None: ask the hub (after every (re)connect)
    refused: str = ""
    sent: int = 0  # the highest seq on its way (pushed, not yet answered); never below `acked`
    inflight: int = 0  # pushes on their way
    oldest: float = 0.0  # when the oldest push on its way left (monotonic)


@dataclass
class PushStats:
    connected: bool = False
    connects: int = 0
    rows_sent: int = 0
    duplicates: int = 0
    witnessed: int = 0
    last_error: str = ""
    acked: dict[str, int] = field(default_factory=dict)
    most_in_flight: int = 0  # the most pushes of one game that were on their way at once


class HubPusher:
    """One background thread pushing every game in `records_dir` to the hub at `url`."""

    def __init__(self, url: str, token: str, records_dir: Path,
                 status: Callable[[], dict[str, Any]] | None = None, poll_s: float = 0.25,
                 batch: int = 200, status_every_s: float = 1.0, window: int = PUSH_WINDOW,
                 answer_timeout_s: float = 10.0, max_pushes_per_s: float = 20.0) -> None:
        """`poll_s`: how often the records are looked at when no `nudge` came (a new game, a restart);
        `window`: pushes of a game on their way at once (1: wait for each answer before the next);
        `answer_timeout_s`: a push unanswered that long means the link is dead: reconnect and resend;
        `max_pushes_per_s`: pushes are spaced at least this far apart (rows recorded meanwhile go together),
        well under the hub's limit per connection (50 messages a second): a table writes a few rows a second,
        so this only ever merges rows of a burst, it never delays a row of a steady game."""
        if window < 1:
            raise ValueError(f"hub pusher window: expected at least 1 push on its way, got {window}")
        self.url, self.token, self.records_dir = url.rstrip("/"), token, Path(records_dir)
        self.status, self.poll_s, self.batch, self.status_every_s = status, poll_s, batch, status_every_s
        self.window, self.answer_timeout_s = window, answer_timeout_s
        self.push_gap_s = 1.0 / max_pushes_per_s
        self._last_push = 0.0
        self._answered_cv = threading.Condition(threading.Lock())
        self._generation = 0  # bumped at every (re)connect: answers meant for an older link are ignored
        self._failed = ""  # an answer said the hub cannot store now: reconnect (with backoff) and ask again
        self.stats = PushStats()
        self._games: dict[str, GameCursor] = {}
        self._client: socketio.Client | None = None
        self._judge_calls = 0
        self._lock = threading.Lock()
        self._last_status = 0.0
        self._wake = threading.Event()

    def nudge(self) -> None:
        """A row was just recorded: push now rather than at the next poll (called under the table's lock,
        so it only sets an event)."""
        self._wake.set()

    def call_judge(self) -> None:
        """A player pressed "call a judge": sent with the next push (kept while the hub is away)."""
        with self._lock:
            self._judge_calls += 1

    def start(self, stop: threading.Event) -> threading.Thread:
        thread = threading.Thread(target=self.run, args=(stop,), name="hub pusher", daemon=True)
        thread.start()
        return thread

    def run(self, stop: threading.Event) -> None:
        backoff = 0.2
        while not stop.is_set():
            try:
                if self._client is None:
                    self._connect()
                    backoff = 0.2
                self.push_once()
                self._send_status()
            except Exception as exc:  # hub or network away: keep the table playing, retry later
                self.stats.last_error = f"{type(exc).__name__}: {exc}"
                self._drop()
                stop.wait(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            self._wake.wait(self.poll_s)
            self._wake.clear()
        self._drop()
        for cursor in self._games.values():
            cursor.db.close()

    def _connect(self) -> None:
        client = socketio.Client(reconnection=False, request_timeout=10)
        client.connect(self.url, auth={"token": self.token}, namespaces=[NAMESPACE],
                       transports=["websocket"], wait_timeout=5)
        with self._answered_cv:
            self._client = client
            self._generation += 1
            self._failed = ""
            for cursor in self._games.values():
                cursor.acked, cursor.sent, cursor.inflight = None, 0, 0
        self.stats.connected = True
        self.stats.connects += 1

    def _drop(self) -> None:
        client, self._client = self._client, None
        self.stats.connected = False
        if client is not None:
            try:
                client.disconnect()
            except Exception:  # already gone
                log.debug("disconnect from the hub failed", exc_info=True)

    def _call(self, event: str, data: dict[str, Any]) -> dict[str, Any]:
        client = self._client
        if client is None or not client.connected:
            raise ConnectionError("not connected to the hub")
        answer = client.call(event, data, namespace=NAMESPACE, timeout=10)
        if not isinstance(answer, dict):
            raise ConnectionError(f"the hub answered {event} with {answer!r}")
        if "retry" in answer:  # the hub is up but its store is not: back off and ask again
            raise ConnectionError(str(answer["retry"]))
        return answer

    def _cursor(self, path: Path) -> GameCursor:
        cursor = self._games.get(path.stem)
        if cursor is None:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            cursor = self._games[path.stem] = GameCursor(path, db)
        return cursor

    def push_once(self) -> int:
        """Send every game's rows the hub has not acknowledged; return how many rows were sent."""
        if self._failed:
            raise ConnectionError(self._failed)
        sent = 0
        for path in sorted(self.records_dir.glob("game-*.sqlite")):
            cursor = self._cursor(path)
            if cursor.refused:
                continue
            top, _ = self._top(cursor)
            if cursor.acked is not None and cursor.acked >= top:
                continue
            if cursor.acked is None:
                key = cursor.db.execute("SELECT value FROM meta WHERE key = 'public_key'").fetchone()
                answer = self._call("hello", {"game": path.stem, "public_key": key[0] if key else ""})
                if "error" in answer:
                    cursor.refused = str(answer["error"])
                    self.stats.last_error = f"{path.stem}: {cursor.refused}"
                    log.error("the hub refused %s: %s", path.stem, cursor.refused)
                    continue
                cursor.acked = int(answer["acked"])
            sent += self._push_game(cursor)
        with self._lock:
            calls, self._judge_calls = self._judge_calls, 0
        for _ in range(calls):
            client = self._client
            if client is not None:
                client.emit("call_judge", {}, namespace=NAMESPACE)
        return sent

    @staticmethod
    def _top(cursor: GameCursor) -> tuple[int, Any]:
        """The game's last row to push (its signed head's, else its last row's) and the signed head."""
        head = cursor.db.execute("SELECT seq, hash, signature FROM head WHERE id = 1").fetchone()
        if head is not None:
            return int(head[0]), head
        return int(cursor.db.execute("SELECT MAX(seq) FROM records").fetchone()[0] or 0), None

    def _push_game(self, cursor: GameCursor) -> int:
        """Send the game's rows past those on their way (or acknowledged), up to `window` pushes out at
        once; the answers come back on the client's own thread (`_answered`). The last row is read again
        before every push: rows recorded while the pusher waited for an answer go in the push that answer
        lets out, not one round trip later (issue 20: with the top read once, before the wait, they waited
        for the next push's answer as well, about one and a half round trips a row)."""
        sent, waited = 0, False
        while True:
            top, head = self._top(cursor)
            with self._answered_cv:
                if cursor.acked is None:
                    break
                start = max(cursor.acked, cursor.sent)
                if start >= top:
                    break
                if cursor.inflight >= self.window:
                    if waited:  # one wait a round: the status, judge calls and other games get their turn
                        break
                    self._answered_cv.wait(self.answer_timeout_s / 4)
                    waited = True
                    self._check_answers(cursor)
                    continue
                generation = self._generation
            wait = self._last_push + self.push_gap_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            rows = cursor.db.execute(
                "SELECT seq, ts, kind, source, body, prev, hash FROM records WHERE seq > ? AND seq <= ? "
                "ORDER BY seq LIMIT ?", (start, top, self.batch)).fetchall()
            if not rows:
                break
            data: dict[str, Any] = {"game": cursor.path.stem, "rows": [
                {"seq": s, "ts": ts, "kind": k, "source": src, "body": json.loads(b), "prev": p, "hash": h}
                for s, ts, k, src, b, p, h in rows]}
            if head is not None and rows[-1][0] == head[0]:
                data["head"] = {"seq": head[0], "hash": head[1], "signature": head[2]}
            with self._answered_cv:
                if generation != self._generation:
                    break  # reconnected meanwhile: the next round asks the hub again
                if cursor.acked is None or max(cursor.acked, cursor.sent) != start:
                    continue  # an answer came meanwhile (a refusal sends us back): read again from there
                if cursor.inflight == 0:
                    cursor.oldest = time.monotonic()
                cursor.inflight += 1
                cursor.sent = int(rows[-1][0])
                self.stats.most_in_flight = max(self.stats.most_in_flight, cursor.inflight)
            self._last_push = time.monotonic()
            self._emit_rows(cursor, data, generation)
            sent += len(rows)
            self.stats.rows_sent += len(rows)
        with self._answered_cv:
            self._check_answers(cursor)
        return sent

    def _emit_rows(self, cursor: GameCursor, data: dict[str, Any], generation: int) -> None:
        """One push, its answer handled by `_answered` when it comes."""
        client = self._client
        if client is None or not client.connected:
            raise ConnectionError("not connected to the hub")
        client.emit("rows", data, namespace=NAMESPACE,
                    callback=lambda answer=None: self._answered(cursor, data, generation, answer))

    def _answered(self, cursor: GameCursor, data: dict[str, Any], generation: int, answer: Any) -> None:
        """The hub's answer to one push (on the client's thread): move the acknowledgement on; a refusal
        sends the pusher back to what the hub holds (every later push of the game is refused as well)."""
        with self._answered_cv:
            if generation != self._generation or cursor.acked is None:
                return  # meant for a link that is gone
            cursor.inflight = max(0, cursor.inflight - 1)
            cursor.oldest = time.monotonic()
            if not isinstance(answer, dict) or "retry" in answer:  # the hub's store is away: reconnect later
                self._failed = str(answer.get("retry") if isinstance(answer, dict) else
                                   f"the hub answered rows with {answer!r}")
                cursor.sent = cursor.acked
            else:
                cursor.acked = max(cursor.acked, int(answer.get("acked", cursor.acked)))
                cursor.sent = max(cursor.sent, cursor.acked)
                self.stats.acked[cursor.path.stem] = cursor.acked
                self.stats.duplicates += int(answer.get("duplicates", 0))
                self.stats.witnessed += 1 if answer.get("witnessed") else 0
                if "error" in answer:
                    self.stats.last_error = f"{cursor.path.stem}: {answer['error']}"
                    log.warning("hub: %s", self.stats.last_error)
                    if cursor.acked < int(data["rows"][-1]["seq"]):
                        cursor.sent = cursor.acked  # resent from there at the next round
            self._answered_cv.notify_all()

    def _check_answers(self, cursor: GameCursor) -> None:
        """A push unanswered for `answer_timeout_s` means the link is dead (called holding the lock)."""
        if cursor.inflight and time.monotonic() - cursor.oldest > self.answer_timeout_s:
            raise ConnectionError(f"no answer from the hub for {self.answer_timeout_s:g} s")

    def _send_status(self) -> None:
        now = time.monotonic()
        if self.status is None or now - self._last_status < self.status_every_s or self._client is None:
            return
        self._last_status = now
        self._client.emit("status", self.status(), namespace=NAMESPACE)
