"""How late each row is at each stage of the hub's path, for finding where a broadcast's latency goes.

A row carries `ts`, the moment its table recorded it. Each stage a hub process passes it through notes
`now - ts` once per row (never per socket, so the cost does not grow with the spectators): "stored" when
the push that carried it has been appended in Redis, "picked" when this process's message-queue listener
receives it, "writing" when the broadcast task starts writing it to the room's sockets and "written" when
it has written it to every socket of the room. The spectator's own `now - ts` minus "written" is the time
on the way to it (nginx, the kernel, the client reading). "arrived" is noted when the hub begins handling
the push (its transport and the hub's queue of events before it), "checked" when its rows and head are
verified and it goes to Redis (so "stored" - "checked" is the Redis round trip, fsync included, and the
wait to run again after it). Samples are kept with the moment they were
taken (a bounded number per stage), so a caller asks for the ones after a moment without resetting them.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

STAGES = ("arrived", "checked", "stored", "picked", "writing", "written")
KEEP = 200_000  # samples per stage: about 10 minutes of 32 tables at 10 rows/s


class StageTimes:
    """Per-stage samples of (when, how late) for the rows that passed."""

    def __init__(self, keep: int = KEEP) -> None:
        self._lock = threading.Lock()
        self._samples: dict[str, deque[tuple[float, float]]] = {s: deque(maxlen=keep) for s in STAGES}

    def note(self, stage: str, rows: Iterable[Any], now: float | None = None) -> None:
        """Note how late each row (a dict with a numeric `ts`) is at `stage`; others are ignored."""
        if stage not in self._samples:
            raise ValueError(f"stage {stage!r}: expected one of {', '.join(STAGES)}")
        at = time.time() if now is None else now
        late = [(at, at - float(r["ts"])) for r in rows
                if isinstance(r, dict) and isinstance(r.get("ts"), int | float)]
        with self._lock:
            self._samples[stage].extend(late)

    def note_stamps(self, stage: str, stamps: Iterable[float], now: float | None = None) -> None:
        """`note` for rows given by their `ts` alone (rows passed through as text, `broadcast.passthrough`)."""
        if stage not in self._samples:
            raise ValueError(f"stage {stage!r}: expected one of {', '.join(STAGES)}")
        at = time.time() if now is None else now
        late = [(at, at - ts) for ts in stamps]
        with self._lock:
            self._samples[stage].extend(late)

    def since(self, moment: float) -> dict[str, list[float]]:
        """Every stage's lateness samples (seconds, rounded to 0.1 ms) taken after `moment`."""
        with self._lock:
            return {s: [round(late, 4) for at, late in q if at >= moment] for s, q in self._samples.items()}
