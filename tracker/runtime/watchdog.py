"""Feed systemd's watchdog only while the service's loops make progress.

systemd (`WatchdogSec=` in the unit) restarts the service when `WATCHDOG=1` stops arriving. A thread that
pings on a timer would keep a hung tracker alive forever, so the pings are conditional: each loop that
must keep running (the camera loops, the table loop) is registered with `watch(name)` and calls
`beat(name)` once per iteration; the watchdog thread sends `WATCHDOG=1` only while every registered loop
has beaten within `stall_s`. When one stalls, it stops feeding and says which in `STATUS=`, so
`systemctl status kipukas-tracker` and the journal name the culprit before systemd restarts the service.

Usage (in `kipukas-tracker run`)::

    dog = Watchdog(stall_s=20.0)
    dog.watch("overhead camera")
    dog.watch("table")
    thread = dog.start(stop_event)
    ...                       # each loop: dog.beat("overhead camera") per iteration, even when idle
    dog.ready()               # once the cameras deliver frames and the web server listens
    ...
    dog.stopping(); stop_event.set(); thread.join()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from tracker.errors import TrackerError
from tracker.runtime.sdnotify import sd_notify, watchdog_interval

__all__ = ["DEFAULT_INTERVAL_S", "Watchdog", "WatchdogError", "sd_notify", "watchdog_interval"]

DEFAULT_INTERVAL_S = 5.0
"""How often the thread checks the loops when systemd set no watchdog and none was configured."""


class WatchdogError(TrackerError):
    """A loop beat or was unwatched without having been registered: a programming error in the service."""


class Watchdog:
    """Sends `WATCHDOG=1` while every watched loop beats within `stall_s` seconds, and nothing otherwise.

    `notify` sends one notification (default: `sd_notify`); `interval_s` is the ping period (default: half
    of `$WATCHDOG_USEC`, else `DEFAULT_INTERVAL_S`); `clock` is monotonic seconds (replaceable in tests).
    """

    def __init__(
        self,
        notify: Callable[[str], bool] = sd_notify,
        stall_s: float = 20.0,
        interval_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if stall_s <= 0:
            raise ValueError(f"stall_s must be positive, got {stall_s}")
        if interval_s is not None and interval_s <= 0:
            raise ValueError(f"interval_s must be positive, got {interval_s}")
        self.notify = notify
        self.stall_s = stall_s
        self.interval_s = interval_s if interval_s is not None else (watchdog_interval() or DEFAULT_INTERVAL_S)
        self._clock = clock
        self._lock = threading.Lock()  # guards _last_beat (beats come from every loop)
        self._report_lock = threading.Lock()  # orders STATUS= between the watchdog thread and status()
        self._last_beat: dict[str, float] = {}
        self._status = "running"
        self._stalled: tuple[str, ...] = ()

    def watch(self, name: str) -> None:
        """Register a loop that must keep making progress; it counts as having just beaten."""
        with self._lock:
            self._last_beat[name] = self._clock()

    def unwatch(self, name: str) -> None:
        """Stop requiring progress from a loop (it ended on purpose, e.g. a camera switched off)."""
        with self._lock:
            if self._last_beat.pop(name, None) is None:
                raise WatchdogError(f"unwatch of a loop that is not watched: {name!r}")

    def beat(self, name: str) -> None:
        """Called by a watched loop once per iteration: it is making progress."""
        now = self._clock()
        with self._lock:
            if name not in self._last_beat:
                raise WatchdogError(f"beat from a loop that is not watched: {name!r} (call watch() first)")
            self._last_beat[name] = now

    def stalled(self) -> tuple[str, ...]:
        """The watched loops that have not beaten within `stall_s`, in name order."""
        now = self._clock()
        with self._lock:
            return tuple(sorted(n for n, t in self._last_beat.items() if now - t > self.stall_s))

    def check(self) -> bool:
        """One watchdog step: send `WATCHDOG=1` if no loop stalled (True), else report the stall (False).

        The stall is reported in `STATUS=` when the set of stalled loops changes, and the last status
        given to `status()` is restored when they all recover.
        """
        stalled = self.stalled()
        with self._report_lock:
            if stalled != self._stalled:
                self._stalled = stalled
                if stalled:
                    self.notify(f"STATUS=stalled: {', '.join(stalled)} made no progress for {self.stall_s:g} s")
                else:
                    self.notify(f"STATUS={self._status}")
        if stalled:
            return False
        self.notify("WATCHDOG=1")
        return True

    def start(self, stop_event: threading.Event) -> threading.Thread:
        """Start the thread that calls `check()` every `interval_s` until `stop_event` is set; join it after."""
        thread = threading.Thread(target=self._run, args=(stop_event,), name="watchdog", daemon=True)
        thread.start()
        return thread

    def _run(self, stop_event: threading.Event) -> None:
        self.check()
        while not stop_event.wait(self.interval_s):
            self.check()

    def ready(self, status: str | None = None) -> bool:
        """Tell systemd the service is up (`Type=notify` units count as started only now)."""
        if status is None:
            return self.notify("READY=1")
        with self._report_lock:
            self._status = status
            return self.notify(f"READY=1\nSTATUS={status}")

    def status(self, text: str) -> bool:
        """A one-line status for `systemctl status`; while a loop is stalled it is kept, not sent, so the
        stall stays visible, and it is sent when the stall clears."""
        with self._report_lock:
            self._status = text
            if self._stalled:
                return False
            return self.notify(f"STATUS={text}")

    def stopping(self) -> bool:
        """Tell systemd the service is shutting down on purpose."""
        return self.notify("STOPPING=1")
