"""Shared helpers of the web tests: a table with seats on a real server, Socket.IO clients per role
that keep every message they get, and the golden game as a script of phone lines."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import socketio

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import KEY
from tracker.record.store import GameRecord
from tracker.runtime.server import WebServer
from tracker.service.seats import Seats
from tracker.service.service import TableService
from tracker.table.table import Table
from web.namespace import Limits

GOLDEN = Path(__file__).parent / "golden" / "hilbert_vs_wolf_and_raven.game"
PIN = "4711"
FAST = Limits(rate_per_s=10_000.0, burst=10_000, strikes_to_disconnect=10**9, seat_rate_per_s=10_000.0,
              seat_burst=10_000, rejected_per_min=10**6, rejected_burst=10_000)


def golden_script(path: Path = GOLDEN) -> tuple[dict[str, list[str]], list[str]]:
    """The decks and the action lines of a golden game file."""
    decks: dict[str, list[str]] = {}
    lines: list[str] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.startswith("deck "):
            _, seat, cards = raw.split()
            decks[seat] = cards.split(",")
        elif raw.startswith("> "):
            lines.append(raw[2:].strip())
    return decks, lines


def new_service(tmp_path: Path, decks: dict[str, list[str]] | None = None, pin: str = PIN,
                **options: Any) -> TableService:
    decks = decks or golden_script()[0]
    table = Table(BoardMap.packaged(), GameRecord(str(tmp_path / "web.sqlite"), KEY), decks)
    return TableService(table, Seats(("red", "blue"), judge_pin=pin), **options)


@contextmanager
def running(service: TableService, limits: Limits = FAST) -> Iterator[WebServer]:
    server = WebServer(service, "127.0.0.1", 0, limits=limits)
    server.start()
    try:
        yield server
    finally:
        server.shutdown()


@dataclass
class Peer:
    """A real python-socketio client that records every event it receives, in order."""

    name: str
    client: socketio.Client
    events: list[tuple[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def of(self, event: str) -> list[Any]:
        with self.lock:
            return [d for e, d in self.events if e == event]

    def last_version(self) -> int:
        states = self.of("state")
        return int(states[-1]["version"]) if states else -1

    def wait_version(self, version: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while self.last_version() < version:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name} never got version {version} (has {self.last_version()})")
            time.sleep(0.01)

    def call(self, event: str, data: Any) -> Any:
        return self.client.call(event, data, namespace="/table", timeout=10)

    def close(self) -> None:
        self.client.disconnect()


def close_all(peers: list[Peer]) -> None:
    """Disconnect clients in parallel (each waits for the server's goodbye)."""
    threads = [threading.Thread(target=p.close) for p in peers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)


def connect(server: WebServer, name: str, auth: dict[str, Any] | None = None,
            headers: dict[str, str] | None = None, transport: str = "websocket") -> Peer:
    client = socketio.Client(reconnection=False)
    peer = Peer(name, client)

    def record(event: str, data: Any = None) -> None:
        with peer.lock:
            peer.events.append((event, data))

    client.on("*", record, namespace="/table")
    client.connect(f"http://127.0.0.1:{server.port}", namespaces=["/table"], transports=[transport],
                   auth=auth, headers=headers or {}, wait_timeout=10)
    return peer


def auth_for(service: TableService, who: str) -> dict[str, Any] | None:
    if who == "judge":
        return {"pin": PIN}
    if who == "spectator":
        return None
    return {"token": service.join_tokens()[who]}
