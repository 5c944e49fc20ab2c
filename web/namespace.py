"""The `/table` Socket.IO namespace: authenticated connections, one room per role, checked events.

A connection names itself in the connect handler's `auth` (`token` of a seat or the spectator link,
`pin` of the judge, `since`: the last record row the client saw). Every other event goes through
`trigger_event`, which applies in order: a known connection, the per-connection rate limit, the size
limit and the event's schema (`web.validation`), the role's permission, the seat's (or role's) own
limits, and only then the table. Any failure is answered to that client only, as an `error` event and as
the event's acknowledgement.

Limits that matter against a prober are kept per seat and role, not per connection, since reconnecting
is free: actions per second, and rejected actions per minute. Wrong judge PINs slow PIN checks from that
address (one check per `lockout_s / failed_logins` seconds once `failed_logins` were wrong); a correct PIN
is admitted whenever it is checked, unknown seat tokens never lock anything (they are unguessable), and
the failure table is pruned on every connection.
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
    "confirm_roll": frozenset({"player", "judge"}),
}


@dataclass(frozen=True)
class Limits:
    """Per-connection rate limit (token bucket) and how much abuse ends a connection."""

    rate_per_s: float = 5.0
    burst: int = 20
    strikes_to_disconnect: int = 200
    failed_logins: int = 5          # wrong PINs from one address within...
    lockout_s: float = 60.0         # ...this many seconds slow its PIN checks to failed_logins per lockout_s
    seat_rate_per_s: float = 3.0    # act/undo/correct per seat (or role), over all its connections
    seat_burst: int = 30
    rejected_per_min: float = 6.0   # rejected actions per seat before its actions wait
    rejected_burst: int = 10


@dataclass
class Bucket:
    """A token bucket: `rate` per second, at most `burst`."""

    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = 0.0

    def _fill(self, now: float) -> None:
        if self.tokens < 0:
            self.tokens, self.stamp = self.burst, now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, now: float) -> bool:
        self._fill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def give_back(self) -> None:
        self.tokens = min(self.burst, self.tokens + 1.0)


@dataclass
class Client:
    viewer: Viewer
    tokens: float
    stamp: float
    strikes: int = 0
    deltas: bool = False
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


def room_of(viewer: Viewer, deltas: bool = False) -> str:
    """The room a viewer's states go to; `deltas`: the room that gets them as deltas (`broadcast.deltas`)."""
    room = f"seat:{viewer.seat}" if viewer.seat else viewer.role
    return f"{room}+delta" if deltas else room


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
        self.failures: dict[str, list[float]] = {}  # address -> times of wrong PINs (pruned)
        self.pin_checks: dict[str, float] = {}      # address -> last PIN check while slowed (pruned)
        self.seat_buckets: dict[str, Bucket] = {}   # room (seat or role) -> its actions
        self.rejections: dict[str, Bucket] = {}     # room -> its rejected actions
        self._lock = threading.Lock()

    # --- connection -----------------------------------------------------------------------------------------
    def _prune(self, now: float) -> None:
        keep = self.limits.lockout_s
        self.failures = {a: r for a, ts in self.failures.items() if (r := [t for t in ts if now - t < keep])}
        self.pin_checks = {a: t for a, t in self.pin_checks.items() if now - t < keep}

    def _pin_wait(self, address: str, now: float) -> float:
        """Seconds until this address may have its PIN checked (0: now). Counts this check."""
        with self._lock:
            self._prune(now)
            if len(self.failures.get(address, ())) < self.limits.failed_logins:
                return 0.0
            interval = self.limits.lockout_s / max(1, self.limits.failed_logins)
            last = self.pin_checks.get(address)
            if last is not None and now - last < interval:
                return interval - (now - last)
            self.pin_checks[address] = now
            return 0.0

    def on_connect(self, auth: Any = None) -> None:
        address = str(request.remote_addr)
        now = self.clock()
        try:
            fields = validate_auth(auth)
        except BadMessage as exc:
            raise ConnectionRefusedError(str(exc)) from exc
        pin = fields.get("pin")
        if pin is not None:
            wait = self._pin_wait(address, now)
            if wait > 0:
                raise ConnectionRefusedError(f"too many wrong PINs from {address}: PINs are checked once every "
                                             f"{self.limits.lockout_s / max(1, self.limits.failed_logins):g} "
                                             f"seconds now; try again in {wait:.0f} s")
        try:
            viewer = self.service.authenticate(fields.get("token"), pin, is_local(address))
        except AccessDenied as exc:
            if pin is not None:
                with self._lock:
                    self.failures.setdefault(address, []).append(now)
            raise ConnectionRefusedError(str(exc)) from exc
        sid: str = request.sid  # type: ignore[attr-defined]
        with self._lock:
            self.clients[sid] = Client(viewer, float(self.limits.burst), self.clock(),
                                       deltas=bool(fields.get("deltas")))
        join_room(room_of(viewer, bool(fields.get("deltas"))))
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

    def rooms(self) -> set[tuple[Viewer, bool]]:
        """Each viewer someone is connected as, and whether they take deltas."""
        with self._lock:
            return {(c.viewer, c.deltas) for c in self.clients.values()}

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
        if event != "resume":
            self._seat_limits(viewer, reserve=event == "act" and viewer.role == "player")
        if event == "act":
            try:
                entry = self.service.act(viewer, fields["text"])
            except Exception:
                self._give_back(viewer)
                raise
            if entry["accepted"]:
                self._give_back(viewer)
            else:
                self._send("rejected", entry, sid)
            return {"entry": entry}
        if event == "undo":
            return {"entry": self.service.undo(viewer, fields["reason"])}
        if event == "correct":
            return {"entry": self.service.correct(viewer, fields["target"], fields["text"], fields["reason"])}
        if event == "call_judge":
            return self.service.call_judge(viewer)
        if event == "confirm_roll":
            return {"entry": self.service.confirm_roll(viewer, fields["id"])}
        return {"entries": self._send_log(viewer, fields["since"], sid)}

    def _give_back(self, viewer: Viewer) -> None:
        with self._lock:
            self.rejections[room_of(viewer)].give_back()

    def _seat_limits(self, viewer: Viewer, reserve: bool) -> None:
        """The seat's (or role's) own limits, whatever connection it uses. `reserve`: an action that may be
        rejected holds one of the seat's rejections (events run concurrently) until it is accepted."""
        room, now, lim = room_of(viewer), self.clock(), self.limits
        with self._lock:
            actions = self.seat_buckets.setdefault(room, Bucket(lim.seat_rate_per_s, lim.seat_burst))
            rejected = self.rejections.setdefault(room, Bucket(lim.rejected_per_min / 60.0, lim.rejected_burst))
            if not actions.take(now):
                raise BadMessage(f"too many actions from {viewer.name}: at most {lim.seat_rate_per_s:g} a second")
            if reserve and not rejected.take(now):
                raise BadMessage(f"too many rejected actions from {viewer.name}: at most "
                                 f"{lim.rejected_per_min:g} a minute; wait and check the action first")

    def _send_log(self, viewer: Viewer, since: int, sid: str) -> int:
        """The record after row `since` in pages (a page with nothing yet gets the newest page only)."""
        sent = 0
        for page in self.service.log_pages(viewer, since):
            self._send("log", {"after": since, "entries": page}, sid)
            sent += len(page)
        return sent

    def _refuse(self, sid: str, event: str, exc: Exception, internal: bool = False) -> dict[str, Any]:
        message = f"{event}: internal error, nothing was done" if internal else str(exc)
        kind = "denied" if isinstance(exc, AccessDenied) else "invalid"
        error = {"event": event[:40], "kind": "internal" if internal else kind, "error": message}
        self._send("error", error, sid)
        return {"ok": False, **error}

    def _send(self, event: str, data: Any, sid: str) -> None:
        self.socketio.emit(event, data, to=sid, namespace=NAMESPACE)
