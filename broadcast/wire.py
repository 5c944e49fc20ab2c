"""A websocket's outgoing bytes, written in order by whoever sends, without a queue or a writer per socket.

python-engineio gives every socket a queue and a writer task: a room broadcast costs, per socket, a
queue put, a task switch, a queue get with a timer and a send with another timer. On a cooperative
server (gevent, eventlet) none of that is needed for ordering: code that never yields cannot be
interleaved, so the process's one broadcast task can write a room's ready frame straight to each socket
(`Wire.write`, a non-blocking send). What the kernel does not take at once waits in the wire's own
buffer and is sent, in order, by a task that waits for the socket (`Wire._flush`); while it waits, every
later write joins that buffer, whoever makes it (the broadcast task, engine.io's writer, the websocket
library's own replies: `WiredSocket`), so a socket's bytes always leave in the order they were written.
A spectator who reads nothing while `MAX_PENDING` bytes pile up is cut off (its page reconnects and gets
the recent rows again) rather than growing the hub's memory without bound.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)
MAX_PENDING = 1 << 20  # bytes waiting for one socket before it is cut off
COOPERATIVE = ("gevent", "gevent_uwsgi", "eventlet")  # where a task runs until it yields


class Wire:
    """One websocket's outgoing bytes: `write` never waits; bytes the kernel did not take are sent in
    order by one flushing task."""

    __slots__ = ("busy", "closed", "deferred", "direct", "lock", "pending", "raw", "sock", "start_task", "threaded")

    def __init__(self, sock: Any, start_task: Callable[..., Any], threaded: bool = True) -> None:
        """`threaded`: writes may come from OS threads (a lock orders them). On a cooperative server
        (`threaded=False`, as the hub's websockets are made) no write can be interleaved with another,
        since none yields, so the lock is left out: gevent's lock is Python code, and taking it was a
        measurable share of every delivery (issue 20, profile in docs/hub.md)."""
        self.threaded = threaded
        self.lock: Any = threading.Lock() if threaded else contextlib.nullcontext()  # no-op: nothing interleaves
        self.sock = sock  # the server library's socket (cooperative: waiting yields to other tasks)
        self.raw = getattr(sock, "_sock", sock)  # the OS socket under it, non-blocking: send never waits
        self.pending = bytearray()
        self.busy = False  # a flushing task owns `pending`: every write joins it
        self.closed = False
        self.start_task = start_task
        self.direct = 0  # writes the kernel took at once
        self.deferred = 0  # writes that waited in `pending`

    def write(self, data: bytes) -> bool:
        """Send `data` after everything written before it; False once the socket is gone or cut off."""
        if self.threaded:
            with self.lock:
                started = self._write(data)
        else:  # the hub's every delivery: not even a no-op context manager
            started = self._write(data)
        if started is None:
            return False
        if started:
            self.start_task(self._flush)
        return True

    def _write(self, data: bytes) -> bool | None:
        """`write` under its lock: None when the socket is gone, True when a flushing task must start."""
        if self.closed:
            return None
        if self.busy:
            if len(self.pending) + len(data) > MAX_PENDING:
                self._abort(f"{MAX_PENDING} bytes waiting: the reader is too slow")
                return None
            self.pending += data
            self.deferred += 1
            return False
        try:
            sent = self.raw.send(data)
        except BlockingIOError:
            sent = 0
        except OSError as exc:
            self._abort(f"send failed: {exc}")
            return None
        if sent >= len(data):
            self.direct += 1
            return False
        self.pending += memoryview(data)[sent:]
        self.busy = True
        self.deferred += 1
        return True

    def _flush(self) -> None:
        """Send what waits, in order, waiting for the reader (yielding, on a cooperative server)."""
        while True:
            with self.lock:
                if self.closed or not self.pending:
                    self.busy = False
                    return
                chunk = bytes(self.pending)
                self.pending.clear()
            try:
                self.sock.sendall(chunk)
            except OSError as exc:
                self.abort(f"send failed: {exc}")

    def abort(self, why: str) -> None:
        """Stop writing and shut the socket: its reader sees the end and engine.io closes the session."""
        with self.lock:
            self._abort(why)

    def _abort(self, why: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.pending.clear()
        log.info("websocket cut off: %s", why)
        with contextlib.suppress(OSError):
            self.raw.shutdown(socket.SHUT_RDWR)


class WiredSocket:
    """The socket the websocket library writes to, its writes going through the socket's `Wire` (so the
    library's own frames, pongs and closes keep their place among the broadcasts); the rest is the
    socket's own."""

    def __init__(self, sock: Any, wire: Wire) -> None:
        self._wired_sock, self._wire = sock, wire

    def send(self, data: bytes, *_: Any) -> int:
        if not self._wire.write(bytes(data)):
            raise BrokenPipeError("websocket closed")
        return len(data)

    def sendall(self, data: bytes, *_: Any) -> None:
        self.send(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._wired_sock, name)
