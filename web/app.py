"""Flask-SocketIO application factory for the table's pages and its `/table` namespace, and the one
background publisher that pushes each change to every room in that room's own projection: encoded and
framed once per room (`broadcast.rooms.FramedManager`), as a whole state or, to the connections that
asked for them, as a delta from the previous one (`broadcast.deltas`)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from flask import Flask
from flask_socketio import SocketIO

from broadcast.deltas import diff
from broadcast.rooms import FramedManager
from tracker.api import JUDGE, SPECTATOR, TableService, Viewer, player
from web.calibration import calibration
from web.decoding import guard_decoding
from web.judge_tools import tools
from web.namespace import NAMESPACE, Limits, TableNamespace, room_of
from web.pages import pages

MAX_HTTP_BUFFER = 64 * 1024  # engine.io drops bigger packets; our own per-event limit is smaller
# Every asset is served by the Pi: scripts only from our own files (no inline script, no eval), nothing
# framed, no plugins. Inline styles stay allowed (the pages colour seats with style attributes); a style
# cannot run script.
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                           "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
                           "frame-ancestors 'none'; form-action 'self'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
log = logging.getLogger(__name__)


def origin_check(allowed: tuple[str, ...]) -> Any:
    """Same-origin only, plus the configured origins: engine.io's `cors_allowed_origins` callable."""

    def check(origin: str | None, environ: dict[str, Any]) -> bool:
        if origin is None:
            return True
        host = environ.get("HTTP_HOST", "")
        return origin in (f"http://{host}", f"https://{host}") or origin in allowed

    return check


class SecureHeaders:
    """WSGI middleware around the whole app (Flask and the engine.io transport): every response gets the
    security headers, pages, assets, QR codes, keyframes, errors and Socket.IO polling alike."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            present = {name.lower() for name, _ in headers}
            headers = [*headers, *((k, v) for k, v in SECURITY_HEADERS.items() if k.lower() not in present)]
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        return self.app(environ, start)


def create_app(service: TableService, limits: Limits | None = None, framed: bool = True,
               health: Mapping[str, str] | None = None) -> tuple[Flask, SocketIO]:
    """Build the app and its Socket.IO server; call `start_publisher` once the server runs. `framed`
    False: the library's own per-socket framing (kept to measure against: bench/bench_web.py). `health`:
    facts about the process that /healthz shows beside the table's (the composition root knows them)."""
    app = Flask(__name__)
    manager = FramedManager() if framed else None
    socketio = SocketIO(app, async_mode="threading", **({"client_manager": manager} if manager else {}),
                        cors_allowed_origins=origin_check(service.allowed_origins),
                        max_http_buffer_size=MAX_HTTP_BUFFER, manage_session=False)
    app.wsgi_app = SecureHeaders(app.wsgi_app)  # type: ignore[method-assign]  # after SocketIO wrapped it
    app.register_blueprint(pages)
    app.register_blueprint(calibration)
    app.register_blueprint(tools)
    namespace = TableNamespace(service, limits)
    socketio.on_namespace(namespace)
    guard_decoding(socketio.server, NAMESPACE)
    app.extensions["kipukas_service"] = service
    app.extensions["kipukas_namespace"] = namespace
    app.extensions["kipukas_health"] = dict(health or {})
    return app, socketio


def publish_once(socketio: SocketIO, service: TableService, rooms: set[tuple[Viewer, bool]] | set[Viewer],
                 sent: dict[str, Any]) -> None:
    """Send each room's view if it is not the one that room last got (views are cached objects): the
    whole view to the room of whole states, and the change from the view it last got to its room of
    deltas. Each is encoded once for all the room's connections; a viewer's room only ever gets that
    viewer's own projection, so a delta carries nothing the whole state would not."""
    wanted: dict[Viewer, set[bool]] = {}
    for item in rooms:
        viewer, deltas = item if isinstance(item, tuple) else (item, False)
        wanted.setdefault(viewer, set()).add(deltas)
    for viewer in sorted(wanted, key=lambda v: (v.role, v.seat or "")):
        view = service.snapshot(viewer)
        room = room_of(viewer)
        before = sent.get(room)
        if before is view:
            continue
        sent[room] = view
        if False in wanted[viewer]:
            socketio.emit("state", view, to=room, namespace=NAMESPACE)
        if True in wanted[viewer]:
            if before is None:
                socketio.emit("state", view, to=room_of(viewer, True), namespace=NAMESPACE)
            else:
                socketio.emit("delta", diff(before, view), to=room_of(viewer, True), namespace=NAMESPACE)


def start_publisher(socketio: SocketIO, service: TableService, stop: threading.Event | None = None) -> None:
    """The one background task: on every change (and each second, for delayed spectators) push the
    fresh view of every role that has someone connected."""
    namespace: TableNamespace = socketio.server.namespace_handlers[NAMESPACE]

    def publish() -> None:
        seen = service.version()
        sent: dict[str, Any] = {}
        while stop is None or not stop.is_set():
            now = service.wait_for_change(seen, timeout=1.0)
            if now == seen and not service.spectator_delay_min:
                continue
            seen = now
            try:
                publish_once(socketio, service, namespace.rooms(), sent)
            except Exception:  # one bad view must not stop every later broadcast
                log.exception("publishing version %d failed", now)

    socketio.start_background_task(publish)


__all__ = ["JUDGE", "SPECTATOR", "create_app", "player", "publish_once", "start_publisher"]
