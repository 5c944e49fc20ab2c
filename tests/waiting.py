"""Waiting in tests for what a feature guarantees, never for how fast this machine is.

A fixed sleep or a fixed count of polls is a bet on the machine's speed, and CI machines run loaded (3x
slower and worse). `wait_until` polls a condition up to a deadline generous enough for a loaded machine:
on a quiet one it returns as soon as the condition holds, so the generous deadline costs nothing, and when
it does run out the failure names what never happened and how long was waited.
"""

from __future__ import annotations

import time
from collections.abc import Callable

LOADED = 60.0  # seconds: the default deadline, for steps that take well under a second on a quiet machine


def wait_until(check: Callable[[], object], what: str | Callable[[], str], timeout: float = LOADED,
               poll_s: float = 0.05) -> float:
    """Poll `check` until it is true and return the seconds it took; after `timeout` s raise an
    AssertionError naming `what` (a callable is asked at the time, to say what was seen instead)."""
    started = time.monotonic()
    end = started + timeout
    while not check():
        if time.monotonic() > end:
            said = what() if callable(what) else what
            raise AssertionError(f"after {timeout:g} s: {said}")
        time.sleep(poll_s)
    return time.monotonic() - started
