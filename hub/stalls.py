"""A process noting its own stalls, for benches only: every Python garbage collection (generation, how
long the process stood still) and the lateness of a 5 ms sleep (how long the event loop, or with threads
the GIL and the scheduler, kept a ready task waiting). With `KIPUKAS_HUB_STALLS=FOLDER` in a hub
process's environment the hub notes them to `FOLDER/stalls-<port>.jsonl`, one line a second; the bench
notes its own (tables and pushers) the same way, and reads them all for its measured window (issue 20:
which of the bench's and the hub's processes stand still, and for how long, when the tail is long).
Off unless the variable is set; a production hub never sets it.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENV = "KIPUKAS_HUB_STALLS"
PROBE_S = 0.005  # the probe's sleep: lateness past it is the wait for the loop (or the GIL and a core)


class StallLog:
    """GC pauses and a sleeping probe's lateness, appended to `path` as JSON lines, once a second:
    {"gc": [[epoch, generation, seconds], ...], "lag": [[epoch, seconds], ...]}."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._gc: list[list[float]] = []
        self._lag: list[list[float]] = []
        self._started = 0.0
        self._lock = threading.Lock()
        self.closed = False
        path.parent.mkdir(parents=True, exist_ok=True)

    def install(self, spawn: Callable[[Callable[[], None]], Any]) -> None:
        """Note every collection from now on; `spawn` starts the probe (a greenlet in a hub process,
        a thread elsewhere)."""
        gc.callbacks.append(self._collection)
        spawn(self._probe)

    def _collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = time.perf_counter() - self._started
        with self._lock:
            self._gc.append([time.time(), float(info.get("generation", -1)), took])

    def _probe(self) -> None:
        flushed = time.monotonic()
        while not self.closed:
            t = time.perf_counter()
            time.sleep(PROBE_S)
            late = time.perf_counter() - t - PROBE_S
            with self._lock:
                self._lag.append([time.time(), late])
            if time.monotonic() - flushed >= 1.0:
                flushed = time.monotonic()
                self.flush()

    def close(self) -> None:
        """Stop noting (the probe ends at its next wake-up) and write what was noted."""
        self.closed = True
        if self._collection in gc.callbacks:
            gc.callbacks.remove(self._collection)
        self.flush()

    def flush(self) -> None:
        with self._lock:
            got, self._gc, self._lag = {"gc": self._gc, "lag": self._lag}, [], []
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(got) + "\n")


def stalls_folder(environ: dict[str, str] | None = None) -> Path | None:
    """The folder named by `KIPUKAS_HUB_STALLS`, or None (nothing noted)."""
    value = (os.environ if environ is None else environ).get(ENV, "")
    return Path(value) if value else None


def install_stalls(name: str, spawn: Callable[[Callable[[], None]], Any]) -> StallLog | None:
    """Start noting this process's stalls to `FOLDER/stalls-<name>.jsonl` when `KIPUKAS_HUB_STALLS` names
    a folder; else do nothing and return None."""
    folder = stalls_folder()
    if folder is None:
        return None
    log = StallLog(folder / f"stalls-{name}.jsonl")
    log.install(spawn)
    return log


def read_stalls(path: Path, start: float, end: float) -> dict[str, list[list[float]]]:
    """The collections and probe samples noted in `path` between `start` and `end` (epoch seconds)."""
    out: dict[str, list[list[float]]] = {"gc": [], "lag": []}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        got = json.loads(line)
        for k in out:
            out[k] += [s for s in got.get(k, []) if start <= s[0] <= end]
    return out
