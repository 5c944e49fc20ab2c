"""Simulated tables for the hub's tests and bench: a real signed GameRecord written at a steady rate, and
the real pusher sending it to the hub."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tracker.record.store import GameRecord, Row

KINDS = ("action", "board", "shown")


class SimTable:
    """A table's records folder with one game (or more, with `new_game`) written by a thread."""

    def __init__(self, folder: Path, seed: int) -> None:
        self.records = folder / "records"
        self.records.mkdir(parents=True, exist_ok=True)
        self.key = Ed25519PrivateKey.generate()
        self.rng = random.Random(seed)
        self.games: list[GameRecord] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.on_row: list[Callable[[], None]] = []  # e.g. a pusher's nudge, as the appliance wires it
        self.new_game()

    def new_game(self) -> GameRecord:
        with self.lock:
            record = GameRecord(str(self.records / f"game-{len(self.games) + 1:03d}.sqlite"), self.key)
            record.append("start", "tracker", {"players": ["red", "blue"], "map": "starter", "decks": {}})
            self.games.append(record)
            return record

    def write(self, n: int = 1) -> list[Row]:
        out = []
        with self.lock:
            record = self.games[-1]
            for _ in range(n):
                kind = self.rng.choice(KINDS)
                body = ({"text": f"red move T{self.rng.randint(1, 9)}", "accepted": self.rng.random() < 0.9}
                        if kind == "action" else {"observed": {f"T{self.rng.randint(1, 9)}": "red"}}
                        if kind == "board" else {"card": f"HMPU#{self.rng.randint(1, 99):04d}", "known": True})
                out.append(record.append(kind, "overhead", body, ts=time.time()))
        for call in self.on_row:
            call()
        return out

    def run(self, rate_per_s: float) -> threading.Thread:
        def loop() -> None:
            next_at = time.monotonic()
            while not self.stop.is_set():
                self.write()
                next_at += 1.0 / rate_per_s
                self.stop.wait(max(0.0, next_at - time.monotonic()))

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        return thread

    def last(self) -> dict[str, int]:
        with self.lock:
            return {Path(g.path).stem: g.last_seq for g in self.games}

    def rows(self, game: str) -> list[Row]:
        with self.lock:
            record = next(g for g in self.games if Path(g.path).stem == game)
            return list(record.rows())

    def close(self) -> None:
        self.stop.set()
        with self.lock:
            for g in self.games:
                g.close()
