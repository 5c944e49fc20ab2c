"""Camera fault injection: ResilientSource against scripted sources that freeze, block, send garbage,
raise, end or disappear, then come back.

A fault-free camera cannot be made to fail on demand, so the sources here are scripted fakes; time is a
fake clock that only the scripts (frame intervals) and the backoff sleeps move, so statuses and stamps are
exact. The blocking cases need real time (a thread stuck in a read is only noticed by the clock moving):
they use the real clock with 0.2 s deadlines.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from tracker.sources.capture import Frame, SourceError
from tracker.sources.resilient import CameraStatus, ResilientSource

FOREVER = threading.Event()  # set at module teardown so stuck readers end
STOP_BUDGET_S = 10.0  # stopping is prompt (well under a second); far below the 30-60 s it must not wait out


@pytest.fixture(scope="module", autouse=True)
def _release_stuck_readers() -> Iterator[None]:
    yield
    FOREVER.set()


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self, dt: float) -> None:
        with self._lock:
            self.now += dt

    def sleep(self, dt: float) -> None:
        self.sleeps.append(dt)
        self.advance(dt)


def image(ident: int, shape: tuple[int, int] = (24, 32)) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """A noisy BGR image carrying `ident` in its first two bytes."""
    pixels = np.random.default_rng(ident).integers(0, 256, (*shape, 3), dtype=np.uint8)
    pixels[0, 0, 0], pixels[0, 0, 1] = ident // 256, ident % 256
    return pixels


def ident(frame: Frame) -> int:
    return int(frame.image[0, 0, 0]) * 256 + int(frame.image[0, 0, 1])


Step = tuple[Any, ...]


@dataclass
class ScriptedSource:
    """Plays steps: ("frame", id[, dt]), ("repeat", id, n, dt), ("raw", object, dt), ("raise", exc),
    ("block-until-closed",), ("block-forever",). The script running out ends the source."""

    steps: list[Step]
    clock: Callable[[float], None]
    closed: threading.Event = field(default_factory=threading.Event)

    def __iter__(self) -> Iterator[Any]:
        for index, step in enumerate(self.steps):
            kind = step[0]
            if kind == "frame":
                self.clock(step[2] if len(step) > 2 else 0.1)
                yield Frame(index, 0.0, image(step[1]))
            elif kind == "repeat":
                same = image(step[1])
                for _ in range(step[2]):
                    self.clock(step[3])
                    yield Frame(index, 0.0, same)
            elif kind == "raw":
                self.clock(step[2])
                yield step[1]
            elif kind == "raise":
                raise step[1]
            elif kind == "block-until-closed":
                self.closed.wait()
                raise OSError("read interrupted by close")
            elif kind == "block-forever":
                FOREVER.wait()
                return

    def close(self) -> None:
        self.closed.set()


class Opener:
    """Each call takes the next plan: a list of steps (a source) or an exception to raise."""

    def __init__(self, plans: list[list[Step] | Exception], clock: Callable[[float], None]) -> None:
        self.plans, self.clock = list(plans), clock
        self.sources: list[ScriptedSource] = []

    def __call__(self) -> ScriptedSource:
        plan = self.plans.pop(0) if self.plans else SourceError("no more plans")
        if isinstance(plan, Exception):
            raise plan
        self.sources.append(ScriptedSource(plan, self.clock))
        return self.sources[-1]


def run(source: ResilientSource, frames_wanted: int, limit_s: float = 4.0) -> list[Frame | CameraStatus]:
    """Everything the source yields until `frames_wanted` frames arrived (a safety timer stops it)."""
    safety = threading.Timer(limit_s, source.stop)
    safety.start()
    items: list[Frame | CameraStatus] = []
    try:
        for item in source:
            items.append(item)
            if sum(isinstance(i, Frame) for i in items) >= frames_wanted:
                break
    finally:
        safety.cancel()
    assert not source.stopped, f"timed out; got {summary(items)}"
    return items


def summary(items: list[Frame | CameraStatus]) -> list[object]:
    """Frames as their ids, statuses as (ok, reason)."""
    return [ident(i) if isinstance(i, Frame) else (i.ok, i.reason) for i in items]


def fake(plans: list[list[Step] | Exception], **kwargs: Any) -> tuple[ResilientSource, Opener, FakeClock]:
    clock = FakeClock()
    opener = Opener(plans, clock.advance)
    options: dict[str, Any] = {"timeout_s": 2.0, "frozen_s": 1.0, **kwargs}
    return ResilientSource("overhead", opener, clock=clock, sleep=clock.sleep, **options), opener, clock


GOOD_AGAIN: list[Step] = [("frame", 10), ("frame", 11), ("frame", 12)]


def test_an_error_is_reported_the_source_closed_and_frames_resume_without_loss() -> None:
    source, opener, clock = fake([[("frame", 1), ("frame", 2), ("frame", 3), ("raise", OSError("cable"))],
                                  GOOD_AGAIN])
    items = run(source, 6)
    assert summary(items) == [(True, "delivering frames"), 1, 2, 3, (False, "camera error: OSError: cable"),
                              (True, "frames again after 0.6 s"), 10, 11, 12]
    statuses = [i for i in items if isinstance(i, CameraStatus)]
    assert [s.since for s in statuses] == pytest.approx([0.1, 0.3, 0.9])
    assert all(s.name == "overhead" for s in statuses)
    frames = [i for i in items if isinstance(i, Frame)]
    assert [f.index for f in frames] == [0, 1, 2, 3, 4, 5], "indices run on across reopenings"
    assert [f.timestamp for f in frames] == pytest.approx([0.1, 0.2, 0.3, 0.9, 1.0, 1.1])
    assert clock.sleeps == [0.5]
    assert opener.sources[0].closed.is_set(), "the failed source must be closed"


@pytest.mark.parametrize(("garbage", "reason"), [
    (None, "not a frame (got NoneType)"),
    (Frame(0, 0.0, None), "no image (got NoneType)"),  # type: ignore[arg-type]
    (Frame(0, 0.0, image(5).astype(np.float32)), "not an 8-bit BGR image (dtype float32"),  # type: ignore[arg-type]
    (Frame(0, 0.0, image(5)[..., 0]), "not an 8-bit BGR image (dtype uint8, shape (24, 32))"),
    (Frame(0, 0.0, image(5, (48, 64))), "size changed from 32x24 to 64x48"),
    (Frame(0, 0.0, np.full((24, 32, 3), 17, np.uint8)), "blank image (every pixel 17)"),
])
def test_garbage_is_reported_and_the_camera_reopened(garbage: object, reason: str) -> None:
    source, _, clock = fake([[("frame", 1), ("frame", 2), ("raw", garbage, 0.1)], GOOD_AGAIN])
    items = run(source, 5)
    got = summary(items)
    assert got[:3] == [(True, "delivering frames"), 1, 2]
    lost = items[3]
    assert isinstance(lost, CameraStatus) and not lost.ok and lost.reason.startswith("bad frame: " + reason)
    assert got[4:] == [(True, "frames again after 0.6 s"), 10, 11, 12]
    assert clock.sleeps == [0.5]


def test_a_frozen_camera_is_lost_after_frozen_s_and_recovers() -> None:
    source, _, _ = fake([[("frame", 1), ("repeat", 2, 5, 0.25)], GOOD_AGAIN])
    got = summary(run(source, 8))
    assert got == [(True, "delivering frames"), 1, 2, 2, 2, 2, (False, "frozen: the same image for 1.0 s"),
                   (True, "frames again after 0.6 s"), 10, 11, 12]


def test_frozen_check_can_be_turned_off_for_replays() -> None:
    source, _, _ = fake([[("repeat", 2, 12, 0.25), ("frame", 3)]], frozen_s=None)
    assert summary(run(source, 13))[1:] == [2] * 12 + [3]


def test_a_late_frame_is_a_timeout() -> None:
    source, _, clock = fake([[("frame", 1), ("frame", 2, 5.0)], GOOD_AGAIN])
    got = summary(run(source, 4))
    assert got == [(True, "delivering frames"), 1, (False, "no frame within 2 s"),
                   (True, "frames again after 0.6 s"), 10, 11, 12]
    assert clock.sleeps == [0.5]


def test_a_source_that_ends_is_lost() -> None:
    source, _, _ = fake([[("frame", 1)], GOOD_AGAIN])
    assert summary(run(source, 2))[:4] == [(True, "delivering frames"), 1, (False, "the source ended"),
                                           (True, "frames again after 0.6 s")]


def test_a_vanished_camera_is_retried_with_growing_backoff_and_reported_once_per_reason() -> None:
    gone = SourceError("camera 0 not found")
    source, opener, clock = fake([[("frame", 1), ("frame", 2), ("raise", OSError("unplugged"))],
                                  gone, gone, gone, GOOD_AGAIN])
    items = run(source, 5)
    assert summary(items) == [
        (True, "delivering frames"), 1, 2, (False, "camera error: OSError: unplugged"),
        (False, "cannot open: SourceError: camera 0 not found"),
        (True, "frames again after 8.6 s"), 10, 11, 12]
    lost = [i for i in items if isinstance(i, CameraStatus) and not i.ok]
    assert [s.since for s in lost] == pytest.approx([0.2, 0.2]), "still lost since the first fault"
    assert clock.sleeps == [0.5, 1.0, 2.0, 5.0]
    assert not opener.plans


def test_a_camera_missing_from_the_start_is_reported_first() -> None:
    source, _, clock = fake([SourceError("no camera"), GOOD_AGAIN])
    assert summary(run(source, 1))[:3] == [(False, "cannot open: SourceError: no camera"),
                                           (True, "frames again after 0.6 s"), 10]
    assert clock.sleeps == [0.5]


def test_backoff_stays_at_its_last_step() -> None:
    gone = SourceError("gone")
    source, _, clock = fake([gone] * 7 + [GOOD_AGAIN], backoff=(0.5, 1.0, 2.0))
    run(source, 1)
    assert clock.sleeps == [0.5, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0]


@pytest.mark.parametrize("stuck", ["block-until-closed", "block-forever"])
def test_a_read_that_blocks_is_a_timeout_and_is_unblocked_by_close(stuck: str) -> None:
    opener = Opener([[("frame", 1), ("frame", 2), (stuck,)], GOOD_AGAIN], lambda dt: None)
    source = ResilientSource("front", opener, timeout_s=0.2, frozen_s=None, backoff=(0.01,))
    got = summary(run(source, 5))
    assert got[:4] == [(True, "delivering frames"), 1, 2, (False, "no frame within 0.2 s")]
    back = got[4]
    assert isinstance(back, tuple) and back[0] is True and back[1].startswith("frames again after")
    assert got[5:] == [10, 11, 12]
    if stuck == "block-until-closed":
        deadline = time.monotonic() + 2.0
        while not opener.sources[0].closed.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert opener.sources[0].closed.is_set(), "a stuck read must be unblocked by close()"


def test_stop_from_another_thread_ends_iteration_during_backoff() -> None:
    source = ResilientSource("front", Opener([SourceError("none")] * 3, lambda dt: None), timeout_s=0.2,
                             backoff=(60.0,))
    threading.Timer(0.1, source.stop).start()
    started = time.monotonic()
    items = list(source)
    took = time.monotonic() - started
    assert took < STOP_BUDGET_S, f"stop took {took:.2f} s (the backoff is 60 s)"
    assert summary(items) == [(False, "cannot open: SourceError: none")]


def test_stop_ends_iteration_while_a_read_blocks() -> None:
    source = ResilientSource("front", Opener([[("frame", 1), ("block-forever",)]], lambda dt: None),
                             timeout_s=30.0)
    items: list[Frame | CameraStatus] = []
    started = time.monotonic()
    for item in source:
        items.append(item)
        if isinstance(item, Frame):
            threading.Timer(0.05, source.stop).start()
    took = time.monotonic() - started
    assert took < STOP_BUDGET_S, f"stop took {took:.2f} s (the read timeout is 30 s)"
    assert summary(items) == [(True, "delivering frames"), 1]


@pytest.mark.parametrize("kwargs", [{"timeout_s": 0}, {"timeout_s": 1, "frozen_s": -1},
                                    {"timeout_s": 1, "backoff": ()}])
def test_bad_settings_name_the_camera(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="camera 'overhead'"):
        ResilientSource("overhead", lambda: iter(()), **kwargs)  # type: ignore[arg-type,return-value]
