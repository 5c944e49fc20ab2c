"""The `/table` Socket.IO namespace: authenticated connections, one room per role, checked events.

A connection names itself in the connect handler's `auth` (`token` of a seat or the spectator link,
`pin` of the judge, `since`: the last record row the client saw). Every other event goes through
`trigger_event`, which applies in order: a known connection, the per-connection rate limit, the size
limit and the event's schema (`web.validation`), the role's permission, and only then the table. Any
failure is answered to that client only, as an `error` event and as the event's acknowledgement.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import request
from flask_socketio import ConnectionRefusedError, Namespace, join_room

from tracker.api import AccessDenied, InputError, TableService, Viewer
from web.validation import BadMessage, validate, validate_auth

NAMESPACE = "/table"
log = logging.getLogger(__name__)

# Which roles may send which event (the permission matrix the tests walk).
ALLOWED: dict[str, frozenset[str]] = {
    "act": frozenset({"player", "judge"}),
    "undo": frozenset({"judge"}),
    "correct": frozenset({"judge"}),
    "resume": frozenset({"player", "judge", "spectator"}),
    "call_judge": frozenset({"player"}),
}


@dataclass(frozen=True)
class Limits:
    """Per-connection rate limit (token bucket) and how much abuse ends a connection."""

    rate_per_s: float = 5.0
    burst: int = 20
    strikes_to_disconnect: int = 200
    failed_logins: int = 5          # wrong PINs or tokens from one address...
    lockout_s: float = 60.0         # ...within this many seconds lock that address out for as long


@dataclass
class Client:
    viewer: Viewer
    tokens: float
    stamp: float
    strikes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, limits: Limits, now: float) -> bool:
        with self.lock:
            self.tokens = min(float(limits.burst), self.tokens + (now - self.stamp) * limits.rate_per_s)
            self.stamp = now
            if self.tokens >= 1.0:
                self.tokens -= 1.0
                return True
            self.strikes += 1
            return False


def room_of(viewer: Viewer) -> str:
    return f"seat:{viewer.seat}" if viewer.seat else viewer.role


def is_local(address: str | None) -> bool:
    return address in ("127.0.0.1", "::1") or (address or "").startswith("127.")


class TableNamespace(Namespace):  # type: ignore[misc]
    """Sends each connection its own view on connect; the publisher pushes later changes per room."""

    def __init__(self, service: TableService, limits: Limits | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(NAMESPACE)
        self.service = service
        self.limits = limits or Limits()
        self.clock = clock
        self.clients: dict[str, Client] = {}
        self.failures: dict[str, list[float]] = {}  # address -> times of refused credentials (PIN guessing)
        self._lock = threading.Lock()

    # --- connection -----------------------------------------------------------------------------------------
    def on_connect(self, auth: Any = None) -> None:
        address = str(request.remote_addr)
        now = self.clock()
        with self._lock:
            recent = [t for t in self.failures.get(address, []) if now - t < self.limits.lockout_s]
            self.failures[address] = recent
        if len(recent) >= self.limits.failed_logins:
            raise ConnectionRefusedError(f"too many wrong PINs or tokens from {address}: wait "
                                         f"{self.limits.lockout_s:g} seconds")
        try:
            fields = validate_auth(auth)
            viewer = self.service.authenticate(fields.get("token"), fields.get("pin"), is_local(address))
        except (BadMessage, AccessDenied) as exc:
            with self._lock:
                self.failures.setdefault(address, []).append(now)
            raise ConnectionRefusedError(str(exc)) from exc
        sid: str = request.sid  # type: ignore[attr-defined]
        with self._lock:
            self.clients[sid] = Client(viewer, float(self.limits.burst), self.clock())
        join_room(room_of(viewer))
        hello: dict[str, Any] = {"role": viewer.role, "seat": viewer.seat,
                                 "spectator_delay_min": self.service.spectator_delay_min}
        if viewer.role == "judge":
            hello["judge_key"] = self.service.judge_key()
        self._send("hello", hello, sid)
        self._send("state", self.service.snapshot(viewer), sid)
        self._send_log(viewer, fields.get("since", 0), sid)  # the record the state's recent tail lacks

    def on_disconnect(self, reason: Any = None) -> None:
        with self._lock:
            self.clients.pop(request.sid, None)  # type: ignore[attr-defined]

    def viewers(self) -> set[Viewer]:
        with self._lock:
            return {c.viewer for c in self.clients.values()}

    # --- events ---------------------------------------------------------------------------------------------
    def trigger_event(self, event: str, *args: Any) -> Any:
        if event in ("connect", "disconnect"):
            return super().trigger_event(event, *args)
        sid, data = args[0], tuple(args[1:])
        try:
            return {"ok": True, **self._dispatch(sid, str(event), data)}
        except (BadMessage, AccessDenied, InputError) as exc:
            return self._refuse(sid, str(event), exc)
        except Exception as exc:  # a bug must not take the server down; the client hears of it
            log.exception("event %r failed", event)
            return self._refuse(sid, str(event), exc, internal=True)

    def _dispatch(self, sid: str, event: str, data: tuple[Any, ...]) -> dict[str, Any]:
        with self._lock:
            client = self.clients.get(sid)
        if client is None:
            raise AccessDenied("not connected to the table (connect again)")
        if not client.take(self.limits, self.clock()):
            if client.strikes >= self.limits.strikes_to_disconnect:
                self.socketio.server.disconnect(sid, namespace=NAMESPACE)
            raise BadMessage(f"too many messages: at most {self.limits.rate_per_s:g} a second "
                             f"(bursts of {self.limits.burst})")
        fields = validate(event, data)
        viewer = client.viewer
        if viewer.role not in ALLOWED[event]:
            raise AccessDenied(f"{event}: not allowed for a {viewer.role}")
        if event == "act":
            entry = self.service.act(viewer, fields["text"])
            if not entry["accepted"]:
                self._send("rejected", entry, sid)
            return {"entry": entry}
        if event == "undo":
            return {"entry": self.service.undo(viewer, fields["reason"])}
        if event == "correct":
            return {"entry": self.service.correct(viewer, fields["target"], fields["text"], fields["reason"])}
        if event == "call_judge":
            return self.service.call_judge(viewer)
        return {"entries": self._send_log(viewer, fields["since"], sid)}

    def _send_log(self, viewer: Viewer, since: int, sid: str) -> int:
        entries = self.service.entries_since(viewer, since)
        self._send("log", {"after": since, "entries": entries}, sid)
        return len(entries)

    def _refuse(self, sid: str, event: str, exc: Exception, internal: bool = False) -> dict[str, Any]:
        message = f"{event}: internal error, nothing was done" if internal else str(exc)
        kind = "denied" if isinstance(exc, AccessDenied) else "invalid"
        error = {"event": event[:40], "kind": "internal" if internal else kind, "error": message}
        self._send("error", error, sid)
        return {"ok": False, **error}

    def _send(self, event: str, data: Any, sid: str) -> None:
        self.socketio.emit(event, data, to=sid, namespace=NAMESPACE)
