"""A hub process profiling itself, for benches only: with `KIPUKAS_HUB_PROFILE=FOLDER` in a hub process's
environment, SIGUSR1 starts cProfile (counting CPU time, not wall time: greenlets waiting on sockets would
otherwise look busy) and SIGUSR2 stops it and writes `hub-<port>.prof` to FOLDER, so the bench profiles
exactly its measured window. Off unless the variable is set; a production hub never sets it.

cProfile sees every greenlet of the process (it profiles the one OS thread they share); switches between
greenlets make cumulative times unreliable, but each function's own time (`tottime`) is right, which is
what "where does the hub's CPU per row go" needs (`python -m pstats FILE`, `sort tottime`).
"""

from __future__ import annotations

import cProfile
import os
import signal
import time
from pathlib import Path
from typing import Any

ENV = "KIPUKAS_HUB_PROFILE"


def profile_folder(environ: dict[str, str] | None = None) -> Path | None:
    """The folder named by `KIPUKAS_HUB_PROFILE`, or None (no profiling)."""
    value = (os.environ if environ is None else environ).get(ENV, "")
    return Path(value) if value else None


class SignalledProfile:
    """cProfile switched on by SIGUSR1 and off (its stats written) by SIGUSR2."""

    def __init__(self, folder: Path, port: int) -> None:
        self.path = folder / f"hub-{port}.prof"
        self.prof: cProfile.Profile | None = None
        folder.mkdir(parents=True, exist_ok=True)

    def install(self) -> None:
        signal.signal(signal.SIGUSR1, self._start)
        signal.signal(signal.SIGUSR2, self._stop)

    def _start(self, *_: Any) -> None:
        if self.prof is None:
            self.prof = cProfile.Profile(time.process_time)
            self.prof.enable()

    def _stop(self, *_: Any) -> None:
        prof, self.prof = self.prof, None
        if prof is not None:
            prof.disable()
            prof.dump_stats(str(self.path))


def install_profiling(port: int) -> None:
    """Install the signal switches when `KIPUKAS_HUB_PROFILE` names a folder; else do nothing."""
    folder = profile_folder()
    if folder is not None:
        SignalledProfile(folder, port).install()
