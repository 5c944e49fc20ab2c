"""Background work in tests of code that takes a `start` callable (the broadcast merger, the hub's wire):
a daemon thread, so a test that fails mid-delivery cannot hang the run on exit."""

from __future__ import annotations

import threading
from collections.abc import Callable


def start_daemon(target: Callable[[], object]) -> threading.Thread:
    """Start `target` in a daemon thread and return the thread."""
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread
