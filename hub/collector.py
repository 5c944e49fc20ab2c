"""The hub process's garbage collector, kept from standing the event loop still for long (issue 20).

CPython's cyclic collector stops the whole process while it runs, and a full (generation 2) collection
walks every object the process holds. A hub process with 1,000 spectator sockets holds hundreds of
thousands of them (each socket's engine.io and Socket.IO state, greenlet, queue, wire), so a full
collection took 400 ms under the bench (`hub.stalls`, `bench/bench_hub.py`): every table's push and every
spectator of that process waited for it. Those objects live as long as their sockets; walking them again
and again finds nothing to free.

So objects that have survived a while are moved out of the collector's sight (`gc.freeze`: the permanent
generation), and automatic collections only walk what was made since. Reference counting still frees
everything that is not in a cycle at once, frozen or not; what freezing postpones is freeing *cyclic*
garbage among frozen objects (a spectator's socket state after it leaves), which a real full collection
every `FULL_EVERY_S` frees, so memory stays bounded: one long pause every ten minutes instead of one
whenever the generations say so (the bench saw one per process in every 30 s window after a crowd
connected).
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable

# Benches only: "python" leaves a hub process's collector as CPython sets it, to measure against
# (`bench/bench_hub.py --compare-gc`); a production hub never sets it.
ENV = "KIPUKAS_HUB_GC"
FREEZE_EVERY_S = 5.0  # objects older than this leave the collector's sight
FULL_EVERY_S = 600.0  # a real full collection then: cyclic garbage among frozen objects freed


def wanted(environ: dict[str, str] | None = None) -> bool:
    """Whether this process keeps its collector (False only when `KIPUKAS_HUB_GC=python`, benches only)."""
    return (os.environ if environ is None else environ).get(ENV, "") != "python"


def settle_start_up() -> int:
    """Free start-up garbage and freeze what start-up made (modules, the app, its server): none of it is
    ever garbage. Returns how many objects were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class Collector:
    """Freezes survivors every `freeze_every_s` and runs a real full collection every `full_every_s`."""

    def __init__(self, freeze_every_s: float = FREEZE_EVERY_S, full_every_s: float = FULL_EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if freeze_every_s <= 0 or full_every_s < freeze_every_s:
            raise ValueError(f"hub collector: expected 0 < freeze_every_s ({freeze_every_s}) <= full_every_s "
                             f"({full_every_s})")
        self.freeze_every_s, self.full_every_s, self.clock = freeze_every_s, full_every_s, clock
        self.last_full = clock()
        self.fulls = 0
        self.freezes = 0

    def step(self) -> None:
        """One turn: young garbage freed (a cheap collection of generations 0 and 1), or everything
        unfrozen and collected when a full collection is due; then the survivors frozen."""
        now = self.clock()
        if now - self.last_full >= self.full_every_s:
            gc.unfreeze()
            gc.collect()
            self.last_full, self.fulls = now, self.fulls + 1
        else:
            gc.collect(1)
        gc.freeze()
        self.freezes += 1

    def figures(self) -> dict[str, int]:
        """What `/healthz` shows: steps taken, real full collections run, objects out of sight now."""
        return {"freezes": self.freezes, "full_collections": self.fulls, "frozen": gc.get_freeze_count()}

    def run(self, stop: threading.Event, sleep: Callable[[float], object] = time.sleep) -> None:
        """Step every `freeze_every_s` until `stop` is set (a background task of the hub process)."""
        while not stop.is_set():
            sleep(self.freeze_every_s)
            self.step()
