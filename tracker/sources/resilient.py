"""A camera that may fail: `ResilientSource` yields frames and status changes, and never raises for a fault.

A lost camera must be a warning to judges and players, never a crash. `ResilientSource` wraps an `opener`
(anything that makes a fresh `FrameSource`, e.g. `lambda: open_source(cfg.overhead)`) and yields, in one
stream, `Frame`s and `CameraStatus` changes. A fault is any of: the opener or the source raising, a
garbage frame (not an 8-bit 3-channel image, a size other than the first good frame's, one constant
value everywhere), the source ending, no frame within `timeout_s`, or the same image for `frozen_s`
seconds (a stuck pipeline: real sensors never repeat a frame byte for byte). On a fault it reports
`CameraStatus(ok=False)` with the reason, closes the source and reopens it after a backoff delay
(0.5, 1, 2, 5, 10 s, then every 10 s), and reports `ok=True` when frames flow again.

Timeouts: each source runs in its own reader thread, which hands frames over through a small queue (two
frames: back-pressure, so nothing piles up when the consumer is slow). The consumer waits on the queue,
never on the camera, so a read that blocks forever is noticed after `timeout_s` too. A reader stuck in a
read is given `timeout_s` to notice it was cancelled; then the source's `close()` is called from a helper
thread to unblock it, and the reader (a daemon thread) is abandoned. Sources with their own deadline
(`Picamera2Source`, and OpenCV's V4L2 backend) return on their own, so nothing is abandoned with them.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from tracker.sources.capture import Frame, FrameSource

_log = logging.getLogger(__name__)
BACKOFF_S = (0.5, 1.0, 2.0, 5.0, 10.0)
POLL_S = 0.02  # how often a waiting consumer looks at the clock and at stop()


@dataclass(frozen=True, slots=True)
class CameraStatus:
    """A change of a camera's state: `ok` False when lost (with the reason), True when frames flow again.

    `since` is the time (on the source's clock) the current state began: for a camera still lost whose
    reason changed (e.g. from "no frame" to "cannot open"), it stays the time it was first lost.
    """

    name: str
    ok: bool
    reason: str
    since: float


@dataclass(frozen=True, slots=True)
class _Got:
    frame: object
    stamp: float
    latency: float
    first: bool


@dataclass(frozen=True, slots=True)
class _Fault:
    reason: str
    stamp: float


class _Opened:
    pass


class _Reader:
    """One opening of the source, read in a daemon thread into a two-frame queue."""

    def __init__(self, name: str, opener: Callable[[], FrameSource], clock: Callable[[], float],
                 grace_s: float) -> None:
        self.opener, self.clock, self.grace_s = opener, clock, grace_s
        self.items: queue.Queue[_Got | _Fault | _Opened] = queue.Queue(maxsize=2)
        self.cancelled = threading.Event()
        self._source: FrameSource | None = None
        self._close_lock = threading.Lock()
        self._closed = False
        self.thread = threading.Thread(target=self._run, name=f"camera-{name}", daemon=True)
        self.thread.start()

    def _put(self, item: _Got | _Fault | _Opened) -> bool:
        while not self.cancelled.is_set():
            try:
                self.items.put(item, timeout=POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def _run(self) -> None:
        iterator: Iterator[Frame] | None = None
        try:
            try:
                self._source = self.opener()
                iterator = iter(self._source)
            except Exception as exc:
                self._put(_Fault(f"cannot open: {_describe(exc)}", self.clock()))
                return
            if not self._put(_Opened()):
                return
            first = True
            while not self.cancelled.is_set():
                before = self.clock()
                try:
                    frame = next(iterator)
                except StopIteration:
                    self._put(_Fault("the source ended", self.clock()))
                    return
                except Exception as exc:
                    self._put(_Fault(f"camera error: {_describe(exc)}", self.clock()))
                    return
                after = self.clock()
                if not self._put(_Got(frame, after, after - before, first)):
                    return
                first = False
        finally:
            if iterator is not None and hasattr(iterator, "close"):
                try:
                    iterator.close()  # a generator source releases its device in its `finally`
                except Exception as exc:
                    _log.warning("closing the frame iterator failed: %s", _describe(exc))
            self._close_source()

    def _close_source(self) -> None:
        with self._close_lock:
            if self._closed or self._source is None:
                return
            self._closed = True
            source = self._source
        close = getattr(source, "close", None)
        if callable(close):
            try:
                close()
            except Exception as exc:
                _log.warning("closing the camera failed: %s", _describe(exc))

    def cancel(self) -> None:
        """Stop reading; the reader closes the source, or a helper does it if the reader is stuck."""
        self.cancelled.set()

        def unblock() -> None:
            self.thread.join(self.grace_s)
            if self.thread.is_alive():
                self._close_source()

        threading.Thread(target=unblock, name="camera-close", daemon=True).start()


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def frame_problem(frame: object, expected_shape: tuple[int, ...] | None) -> str | None:
    """Why `frame` is garbage, or None if it is a usable BGR frame (of `expected_shape`, when given)."""
    if not isinstance(frame, Frame):
        return f"not a frame (got {type(frame).__name__})"
    image: object = frame.image
    if not isinstance(image, np.ndarray):
        return f"no image (got {type(image).__name__})"
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        return f"not an 8-bit BGR image (dtype {image.dtype}, shape {image.shape})"
    if expected_shape is not None and image.shape != expected_shape:
        return (f"size changed from {expected_shape[1]}x{expected_shape[0]} "
                f"to {image.shape[1]}x{image.shape[0]}")
    sample = image[::7, ::7]
    if int(sample.min()) == int(sample.max()) and int(image.min()) == int(image.max()):
        return f"blank image (every pixel {int(image.flat[0])})"
    return None


class ResilientSource:
    """Frames and `CameraStatus` changes from a camera that is reopened after every fault.

    Iterate it in the table loop: each item is a `Frame` (re-indexed from 0 across reopenings, stamped
    with `clock()` when it was read) or a `CameraStatus`. The first item is always a status (ok when the
    first frame arrived, lost if the camera could not be opened). `stop()` ends the iteration from any
    thread within about `POLL_S`. `frozen_s=None` turns the frozen check off (for sources that may
    legitimately repeat a frame, like a replay). Not thread-safe to iterate from two threads.
    """

    def __init__(self, name: str, opener: Callable[[], FrameSource], *, timeout_s: float,
                 frozen_s: float | None = 10.0, open_timeout_s: float = 10.0,
                 backoff: Sequence[float] = BACKOFF_S, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], object] | None = None) -> None:
        if timeout_s <= 0 or open_timeout_s <= 0 or (frozen_s is not None and frozen_s <= 0):
            raise ValueError(f"camera {name!r}: timeout_s, open_timeout_s and frozen_s must be positive, "
                             f"got {timeout_s}, {open_timeout_s}, {frozen_s}")
        if not backoff or any(b < 0 for b in backoff):
            raise ValueError(f"camera {name!r}: backoff must be non-negative delays, got {list(backoff)}")
        self.name, self.opener = name, opener
        self.timeout_s, self.frozen_s, self.open_timeout_s = timeout_s, frozen_s, open_timeout_s
        self.backoff = tuple(backoff)
        self.clock = clock
        self._stop = threading.Event()
        self._sleep = sleep if sleep is not None else self._stop.wait
        self.status: CameraStatus | None = None
        self._shape: tuple[int, ...] | None = None
        self._count = 0

    def stop(self) -> None:
        """End the iteration (from any thread); the current source is closed."""
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def _change(self, ok: bool, reason: str, now: float) -> CameraStatus | None:
        old = self.status
        if old is not None and old.ok == ok and (ok or old.reason == reason):
            return None
        since = old.since if old is not None and not old.ok and not ok else now
        self.status = CameraStatus(self.name, ok, reason, since)
        (_log.info if ok else _log.warning)("camera %s: %s", self.name, reason)
        return self.status

    def __iter__(self) -> Iterator[Frame | CameraStatus]:
        attempt = -1
        while not self._stop.is_set():
            reader = _Reader(self.name, self.opener, self.clock, self.timeout_s)
            try:
                fault, now, delivered = yield from self._read(reader)
            finally:
                reader.cancel()
            if fault is None:
                return
            attempt = 0 if delivered else attempt + 1
            change = self._change(False, fault, now)
            if change is not None:
                yield change
            self._sleep(self.backoff[min(attempt, len(self.backoff) - 1)])

    def _read(self, reader: _Reader) -> Generator[Frame | CameraStatus, None, tuple[str | None, float, bool]]:
        """Frames of one opening; returns (why it failed or None when stopped, when, any frame delivered)."""
        delivered = opened = False
        waiting_since = self.clock()
        last_print: bytes | None = None
        same_since = 0.0
        while not self._stop.is_set():
            try:
                item = reader.items.get(timeout=POLL_S)
            except queue.Empty:
                now = self.clock()
                limit = self.timeout_s if opened else self.open_timeout_s
                if now - waiting_since > limit:
                    what = "no frame" if opened else "the camera did not open"
                    return f"{what} within {limit:g} s", now, delivered
                continue
            if isinstance(item, _Fault):
                return item.reason, item.stamp, delivered
            if isinstance(item, _Opened):
                opened, waiting_since = True, self.clock()
                continue
            limit = self.open_timeout_s if item.first else self.timeout_s
            if item.latency > limit:
                return f"no frame within {limit:g} s", item.stamp, delivered
            problem = frame_problem(item.frame, self._shape)
            if problem is not None or not isinstance(item.frame, Frame):
                return f"bad frame: {problem}", item.stamp, delivered
            image = item.frame.image
            if self.frozen_s is not None:
                fingerprint = hashlib.blake2b(np.ascontiguousarray(image[::3, ::3]).data, digest_size=16).digest()
                if fingerprint != last_print:
                    last_print, same_since = fingerprint, item.stamp
                elif item.stamp - same_since >= self.frozen_s:
                    return f"frozen: the same image for {item.stamp - same_since:.1f} s", item.stamp, delivered
            if self._shape is None:
                self._shape = image.shape
            old = self.status
            reason = "delivering frames" if old is None else f"frames again after {item.stamp - old.since:.1f} s"
            change = self._change(True, reason, item.stamp)
            if change is not None:
                yield change
            delivered = True
            frame = Frame(self._count, item.stamp, image, item.frame.lores)  # the lores rides along
            self._count += 1
            yield frame
            waiting_since = self.clock()
        return None, self.clock(), delivered
