"""The native libraries' own chatter kept out of the tracker's output and logs, set once at start-up.

OpenCV writes ``[ WARN:0@1.4] global cap_v4l.cpp ... can't open camera by index`` lines and FFmpeg (inside
OpenCV's video reader) ``moov atom not found``; the tracker already reports each of these failures in one
line of its own (exit 2, or a camera warning on the judge page), so theirs only add noise to a terminal
and to the journal. An operator who wants them back sets ``OPENCV_LOG_LEVEL`` / ``OPENCV_FFMPEG_LOGLEVEL``
(OpenCV's own variables): what is set is never overridden.

zxing-cpp's ``nanobind: leaked ... instances`` lines (and a C++ ``terminate called`` abort) came from
exiting while a camera thread was still inside a decode; the commands that run camera threads join them
before they return (`join_all`), which is the fix; nothing here hides them.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable

OPENCV_QUIET = "SILENT"   # OpenCV's own logger: nothing (its failures reach us as return values or cv2.error)
FFMPEG_QUIET = "-8"       # AV_LOG_QUIET: FFmpeg's messages inside OpenCV's video reader


def quiet_native_logs() -> None:
    """Silence OpenCV's and FFmpeg's own log lines for this process (call once, at start-up). Works before
    or after ``cv2`` is imported: OpenCV reads the variables when it first logs or opens a video."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", FFMPEG_QUIET)
    if "OPENCV_LOG_LEVEL" in os.environ and os.environ["OPENCV_LOG_LEVEL"] != OPENCV_QUIET:
        return  # the operator asked for OpenCV's messages
    os.environ["OPENCV_LOG_LEVEL"] = OPENCV_QUIET
    cv2 = sys.modules.get("cv2")
    if cv2 is not None:  # already imported (a test, a command that imported it first): set it directly
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def join_all(threads: Iterable[threading.Thread], timeout_s: float = 10.0) -> list[str]:
    """Wait for worker threads that were told to stop (at most `timeout_s` in all); the names of those
    still running. A process must not exit while one is inside native code (zxing-cpp, OpenCV)."""
    import time

    deadline = time.monotonic() + timeout_s
    late = []
    for thread in threads:
        if thread is threading.current_thread():
            continue
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            late.append(thread.name)
    return late
