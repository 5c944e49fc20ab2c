"""The table service: one table model, guarded by a lock, publishing versioned snapshots."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from importlib import resources
from typing import Any

from rules.board_map import BoardMap
from tracker.board import StandValue
from tracker.reconcile import Reconciler, differences
from tracker.table import LogEntry, TableModel


class Table:
    """Owns the record of one table; every mutation goes through here and bumps the version."""

    def __init__(self, board: BoardMap, players: tuple[str, ...] = ("red", "blue")) -> None:
        self.board = board
        self.players = players
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._version = 0
        self._observed: dict[str, StandValue] = {}
        self._warnings: list[str] = []
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self.model = TableModel(self.board)
            self.reconciler = Reconciler(self.model)
            self._observed = {}
            self._bump()

    def _bump(self) -> None:
        self._version += 1
        self._changed.notify_all()

    def observe(self, stable: Mapping[str, StandValue]) -> list[LogEntry]:
        """A new stable board from the overhead camera."""
        with self._lock:
            self._observed = dict(stable)
            entries = self.reconciler.update(self._observed)
            self._bump()
            return entries

    def declare_soul(self, source: str, owner: str, payload: str, stand: str) -> LogEntry:
        """A soul card played revealed at a base camp (shown to the front camera or declared on a phone)."""
        with self._lock:
            entry = self.model.play_soul(source, owner, payload, stand)
            if self._observed:
                self.reconciler.update(self._observed)
            self._bump()
            return entry

    def warn(self, message: str) -> None:
        with self._lock:
            self._warnings = [*self._warnings[-9:], message]
            self._bump()

    def version(self) -> int:
        with self._lock:
            return self._version

    def wait_for_change(self, after: int, timeout: float) -> int:
        with self._changed:
            self._changed.wait_for(lambda: self._version > after, timeout=timeout)
            return self._version

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            m = self.model
            diffs = differences(m, self._observed) if self._observed else []
            return {
                "version": self._version,
                "players": list(self.players),
                "map": _map_json(self.board),
                "stands": {s: {"kind": v.kind, "owner": v.owner, "count": v.count}
                           for s, v in m.expected_board().items() if not v.empty},
                "observed": {s: {"kind": v.kind, "owner": v.owner, "count": v.count}
                             for s, v in self._observed.items() if not v.empty},
                "souls": [{"id": s.physical_id, "title": s.title, "owner": s.owner, "stand": s.stand,
                           "movement": s.movement} for s in m.souls.values()],
                "log": [{"seq": e.seq, "time": e.time, "source": e.source, "action": e.action,
                         "accepted": e.accepted, "rule": e.rule, "message": e.message} for e in m.log],
                "in_sync": not diffs,
                "differences": diffs,
                "warnings": list(self._warnings),
            }

    def map_image(self) -> tuple[bytes, str]:
        name = str(self.board.texture.get("file", "map_top.jpeg"))
        return (resources.files("vision") / "assets" / name).read_bytes(), "image/jpeg"


def _map_json(board: BoardMap) -> dict[str, Any]:
    (x0, y0), (x1, _), (_, y1) = [tuple(p) for p in board.texture.get("board_px", [[0, 0], [1, 0], [1, 1]])[:3]]
    return {
        "name": board.name,
        "size_mm": list(board.size_mm),
        "board_px": [x0, y0, x1, y1],
        "stands": [{"id": s.id, "kind": s.kind, "territory": s.territory, "x": s.pos_mm[0], "y": s.pos_mm[1]}
                   for s in board.stands.values()],
        "paths": [[p.a, p.b] for p in board.paths],
    }
