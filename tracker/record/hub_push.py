"""Store-and-forward of the table's records to the tournament hub (`[hub] url` and `token` in table.toml).

The records on the Pi are the store: the pusher reads every game's rows and signed head from the SQLite
files (read-only, beside the table loop that writes them) and sends whatever the hub has not acknowledged.
The hub answers each push with the highest contiguous sequence number it holds for that game; after any
disconnect the pusher asks again and resends from there. At-least-once delivery, idempotent by sequence
number at the hub: nothing lost, nothing duplicated, and the table never waits for the hub.
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


@dataclass
class GameCursor:
    path: Path
    db: sqlite3.Connection
    acked: int | None = None  # None: ask the hub (after every (re)connect)
    refused: str = ""


@dataclass
class PushStats:
    connected: bool = False
    connects: int = 0
    rows_sent: int = 0
    duplicates: int = 0
    witnessed: int = 0
    last_error: str = ""
    acked: dict[str, int] = field(default_factory=dict)


class HubPusher:
    """One background thread pushing every game in `records_dir` to the hub at `url`."""

    def __init__(self, url: str, token: str, records_dir: Path,
                 status: Callable[[], dict[str, Any]] | None = None, poll_s: float = 0.25,
                 batch: int = 200, status_every_s: float = 1.0) -> None:
        """`poll_s`: how often the records are looked at when no `nudge` came (a new game, a restart)."""
        self.url, self.token, self.records_dir = url.rstrip("/"), token, Path(records_dir)
        self.status, self.poll_s, self.batch, self.status_every_s = status, poll_s, batch, status_every_s
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
        self._client = client
        self.stats.connected = True
        self.stats.connects += 1
        for cursor in self._games.values():
            cursor.acked = None

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
        sent = 0
        for path in sorted(self.records_dir.glob("game-*.sqlite")):
            cursor = self._cursor(path)
            if cursor.refused:
                continue
            head = cursor.db.execute("SELECT seq, hash, signature FROM head WHERE id = 1").fetchone()
            last = cursor.db.execute("SELECT MAX(seq) FROM records").fetchone()[0] or 0
            top = int(head[0]) if head else int(last)
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
            sent += self._push_game(cursor, top, head)
        with self._lock:
            calls, self._judge_calls = self._judge_calls, 0
        for _ in range(calls):
            client = self._client
            if client is not None:
                client.emit("call_judge", {}, namespace=NAMESPACE)
        return sent

    def _push_game(self, cursor: GameCursor, top: int, head: Any) -> int:
        sent = 0
        while cursor.acked is not None and cursor.acked < top:
            rows = cursor.db.execute(
                "SELECT seq, ts, kind, source, body, prev, hash FROM records WHERE seq > ? AND seq <= ? "
                "ORDER BY seq LIMIT ?", (cursor.acked, top, self.batch)).fetchall()
            if not rows:
                break
            data: dict[str, Any] = {"game": cursor.path.stem, "rows": [
                {"seq": s, "ts": ts, "kind": k, "source": src, "body": json.loads(b), "prev": p, "hash": h}
                for s, ts, k, src, b, p, h in rows]}
            if head is not None and rows[-1][0] == head[0]:
                data["head"] = {"seq": head[0], "hash": head[1], "signature": head[2]}
            answer = self._call("rows", data)
            before = cursor.acked
            cursor.acked = int(answer.get("acked", before))
            self.stats.acked[cursor.path.stem] = cursor.acked
            self.stats.duplicates += int(answer.get("duplicates", 0))
            self.stats.witnessed += 1 if answer.get("witnessed") else 0
            sent += len(rows)
            self.stats.rows_sent += len(rows)
            if "error" in answer:
                self.stats.last_error = f"{cursor.path.stem}: {answer['error']}"
                log.warning("hub: %s", self.stats.last_error)
                if cursor.acked <= before:
                    break  # the hub cannot take these rows; ask again after the next reconnect
        return sent

    def _send_status(self) -> None:
        now = time.monotonic()
        if self.status is None or now - self._last_status < self.status_every_s or self._client is None:
            return
        self._last_status = now
        self._client.emit("status", self.status(), namespace=NAMESPACE)
