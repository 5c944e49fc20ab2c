"""The systemd notification client and the progress-gated watchdog (tracker/runtime/{sdnotify,watchdog}.py).

The end-to-end tests bind a real AF_UNIX datagram socket, point `$NOTIFY_SOCKET` at it, and read what the
watchdog sends, exactly as systemd would receive it.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tracker.runtime.sdnotify import sd_notify, watchdog_interval
from tracker.runtime.watchdog import DEFAULT_INTERVAL_S, Watchdog, WatchdogError

LOADED = 30.0  # s: how long a wait polls for what takes well under a second on a quiet machine
LATE_S = 3.0  # s: how late a loaded machine may schedule the watchdog's thread past its period


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def __call__(self, message: str) -> bool:
        self.sent.append(message)
        return True


class NotifyListener:
    """A stand-in for systemd's notification socket: collects (monotonic time, message) in a thread."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.sock.settimeout(0.02)
        self.messages: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            with self._lock:
                self.messages.append((time.monotonic(), data.decode()))

    def snapshot(self) -> list[tuple[float, str]]:
        with self._lock:
            return list(self.messages)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        assert not self._thread.is_alive()
        self.sock.close()


@pytest.fixture
def listener(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[NotifyListener]:
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    got = NotifyListener(sock)
    yield got
    got.close()


def wait_for(predicate: object, timeout: float) -> bool:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return bool(predicate())


# --- sd_notify ---------------------------------------------------------------------------------------------

def test_sd_notify_without_socket_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert sd_notify("READY=1") is False
    assert sd_notify("READY=1", {"NOTIFY_SOCKET": "relative/path"}) is False
    assert sd_notify("READY=1", {"NOTIFY_SOCKET": "@"}) is False


def test_sd_notify_sends_to_a_path_socket(listener: NotifyListener) -> None:
    assert sd_notify("READY=1\nSTATUS=hello") is True
    assert wait_for(lambda: [m for _, m in listener.snapshot()] == ["READY=1\nSTATUS=hello"], 2)


def test_sd_notify_sends_to_an_abstract_socket() -> None:
    name = f"kipukas-test-{os.getpid()}-{time.monotonic_ns()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(2)
        assert sd_notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name}) is True
        assert sock.recv(100) == b"WATCHDOG=1"


def test_sd_notify_reports_a_dead_socket_as_false(tmp_path: Path) -> None:
    assert sd_notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "nobody-listens")}) is False


def test_watchdog_interval_is_half_the_systemd_timeout() -> None:
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"}, pid=42) == 15.0
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "43"}, pid=42) is None
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "soon"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "0"}) is None


def test_watchdog_takes_its_interval_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "8000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert Watchdog(notify=Recorder()).interval_s == 4.0
    monkeypatch.delenv("WATCHDOG_USEC")
    assert Watchdog(notify=Recorder()).interval_s == DEFAULT_INTERVAL_S
    assert Watchdog(notify=Recorder(), interval_s=0.5).interval_s == 0.5


# --- Watchdog logic, on a fake clock -------------------------------------------------------------------------

def test_check_feeds_only_while_every_loop_beats() -> None:
    clock, sent = FakeClock(), Recorder()
    dog = Watchdog(notify=sent, stall_s=10, interval_s=1, clock=clock)
    dog.watch("table")
    dog.watch("overhead camera")
    assert dog.check() is True
    assert sent.sent == ["WATCHDOG=1"]

    clock.now += 8
    dog.beat("table")
    clock.now += 8  # table beat 8 s ago, the camera 16 s ago: the camera stalled
    assert dog.stalled() == ("overhead camera",)
    assert dog.check() is False
    assert dog.check() is False
    assert sent.sent[1:] == ["STATUS=stalled: overhead camera made no progress for 10 s"]

    dog.status("game 3, move 12")  # kept while stalled, so the stall stays visible
    assert sent.sent[-1].startswith("STATUS=stalled")
    dog.beat("overhead camera")
    assert dog.check() is True
    assert sent.sent[-2:] == ["STATUS=game 3, move 12", "WATCHDOG=1"]


def test_notifications_and_misuse() -> None:
    sent = Recorder()
    dog = Watchdog(notify=sent, stall_s=5, interval_s=1, clock=FakeClock())
    dog.ready("watching table-1")
    dog.status("game 1")
    dog.stopping()
    assert sent.sent == ["READY=1\nSTATUS=watching table-1", "STATUS=game 1", "STOPPING=1"]
    with pytest.raises(WatchdogError, match="not watched"):
        dog.beat("front camera")
    dog.watch("front camera")
    dog.unwatch("front camera")
    with pytest.raises(WatchdogError):
        dog.unwatch("front camera")
    with pytest.raises(ValueError):
        Watchdog(notify=sent, stall_s=0)


def test_no_watched_loop_means_alive() -> None:
    sent = Recorder()
    assert Watchdog(notify=sent, interval_s=1, clock=FakeClock()).check() is True
    assert sent.sent == ["WATCHDOG=1"]


# --- end to end, with a real notification socket --------------------------------------------------------------

def test_watchdog_stops_feeding_when_the_table_loop_stalls(
        listener: NotifyListener, monkeypatch: pytest.MonkeyPatch) -> None:
    stall_s, interval_s = 0.4, 0.05
    # Only this watchdog may reach the listener: another test's watchdog thread still alive in this process
    # (they read `$NOTIFY_SOCKET` on every send) once sent a ping the full suite counted as this one's.
    private = {"NOTIFY_SOCKET": os.environ["NOTIFY_SOCKET"]}
    monkeypatch.delenv("NOTIFY_SOCKET")
    dog = Watchdog(notify=lambda message: sd_notify(message, private), stall_s=stall_s, interval_s=interval_s)
    dog.watch("table")
    dog.watch("overhead camera")
    stop, table_running, camera_running = threading.Event(), threading.Event(), threading.Event()
    table_running.set()
    camera_running.set()
    beaten: dict[str, float] = {}  # each loop's last beat, on the watchdog's clock
    # set by a loop once it has seen it must pause: its last beat is then done (a loop that checked `running`
    # just before it was cleared could otherwise beat after the stall was declared, and recover it)
    paused = {"table": threading.Event(), "overhead camera": threading.Event()}

    def loop(name: str, running: threading.Event) -> None:
        while not stop.is_set():
            if running.is_set():
                beaten[name] = time.monotonic()
                dog.beat(name)
            else:
                paused[name].set()
            time.sleep(0.01)

    loops = [
        threading.Thread(target=loop, args=("table", table_running)),
        threading.Thread(target=loop, args=("overhead camera", camera_running)),
    ]
    for t in loops:
        t.start()
    dog_thread = dog.start(stop)
    try:
        dog.ready()
        assert wait_for(lambda: sum(m == "WATCHDOG=1" for _, m in listener.snapshot()) >= 5, LOADED)
        assert listener.snapshot()[0][1] in ("READY=1", "WATCHDOG=1")
        assert any(m == "READY=1" for _, m in listener.snapshot())
        assert not any(m.startswith("STATUS=stalled") for _, m in listener.snapshot())

        table_running.clear()
        assert paused["table"].wait(LOADED), "the table loop never saw it must pause"
        assert wait_for(lambda: any(m.startswith("STATUS=stalled") for _, m in listener.snapshot()), LOADED)
        messages = listener.snapshot()
        status_at, status = next((t, m) for t, m in messages if m.startswith("STATUS=stalled"))
        assert status == "STATUS=stalled: table made no progress for 0.4 s"
        # Measured from the table's own last beat (the test thread's clock said when it asked the loop to
        # stop, which on a loaded machine is not when the loop last ran): never declared early, and late
        # only by scheduling, which the generous bound leaves to a loaded machine.
        since_beat = status_at - beaten["table"]
        assert stall_s - 0.01 <= since_beat <= stall_s + 3 * interval_s + LATE_S, f"stalled after {since_beat:.3f} s"
        last_ping = max(t for t, m in messages if m == "WATCHDOG=1")
        assert last_ping < status_at

        time.sleep(4 * interval_s)  # several watchdog periods: still no ping while the table is stalled
        assert max(t for t, m in listener.snapshot() if m == "WATCHDOG=1") == last_ping

        table_running.set()  # the loop recovers: feeding resumes and the status is restored
        assert wait_for(lambda: any(t > last_ping and m == "WATCHDOG=1" for t, m in listener.snapshot()), LOADED)
        assert any(m == "STATUS=running" for _, m in listener.snapshot())
    finally:
        stop.set()
        dog_thread.join(timeout=2)
        for t in loops:
            t.join(timeout=2)
    assert not dog_thread.is_alive()
    assert not any(t.is_alive() for t in loops)
