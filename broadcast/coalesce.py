"""Merge a room's broadcasts that arrive while the previous delivery is still being sent.

The deliverer runs as one background task. Broadcasts added meanwhile wait in `pending`, merged per
(namespace, room, event): "append" concatenates lists (every row still goes, in order), "latest" keeps
the newest (a status that replaces the previous one). An idle process therefore sends each broadcast at
once, and a busy one sends one message per room instead of a queue of them: the number of messages
falls as the load rises, and so does the work per row.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)
MODES = ("append", "latest")


class Coalescer:
    """Pending broadcasts per (namespace, room, event), sent by one background task in arrival order."""

    def __init__(self, deliver: Callable[[str, str, str, Any], None],
                 start_task: Callable[..., Any], pause: Callable[[], Any] | None = None) -> None:
        """`pause`: called between two rooms' deliveries to let the process's other tasks run (on gevent,
        `sleep(0)`): a sweep over every table's room never yields otherwise, and a table's push and its
        acknowledgement waited behind all of it (issue 20: the hub's part of a push's round trip)."""
        self._deliver, self._start_task, self._pause = deliver, start_task, pause
        self._pending: dict[tuple[str, str, str], Any] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._task: Any = None
        self.batches = 0  # deliveries made (each one message per room and event)
        self.merged = 0  # broadcasts that joined another instead of being sent on their own

    def add(self, namespace: str, room: str, event: str, data: Any, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"coalesce mode {mode!r}: expected one of {', '.join(MODES)}")
        if mode == "append" and not isinstance(data, list):
            raise TypeError(f"{event!r} to {room!r}: only a list can be appended to the pending one")
        key = (namespace, room, event)
        with self._lock:
            if key in self._pending:
                self.merged += 1
                if mode == "append":
                    self._pending[key] = [*self._pending[key], *data]
                else:
                    self._pending[key] = data
            else:
                self._pending[key] = list(data) if mode == "append" else data
            if self._task is None:
                self._task = self._start_task(self._run)
        self._wake.set()

    def _take(self) -> tuple[tuple[str, str, str], Any] | None:
        """The room that has waited longest, with everything merged for it up to now (None: nothing
        waits). A ready queue, not a sweep: a room's broadcasts are taken when its turn comes, so what
        arrives for it while the rooms ahead are sent still goes in the same message."""
        with self._lock:
            if not self._pending:
                self._wake.clear()
                return None
            key = next(iter(self._pending))
            return key, self._pending.pop(key)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            while (item := self._take()) is not None:
                (namespace, room, event), data = item
                try:
                    self._deliver(namespace, room, event, data)
                    self.batches += 1
                except Exception:  # one room's failure must not stop every later broadcast
                    log.exception("broadcast of %r to %r failed", event, room)
                if self._pause is not None:
                    self._pause()
