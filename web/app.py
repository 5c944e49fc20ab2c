"""Flask-SocketIO application factory for the table's pages and its `/table` Socket.IO namespace."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, render_template
from flask_socketio import Namespace, SocketIO, emit

from tracker.api import TableService

NAMESPACE = "/table"


class TableNamespace(Namespace):  # type: ignore[misc]
    """Sends every new connection the current state; state changes are pushed by the publisher task."""

    def __init__(self, service: TableService) -> None:
        super().__init__(NAMESPACE)
        self.service = service

    def on_connect(self, auth: Any = None) -> None:
        emit("state", self.service.snapshot())


def create_app(service: TableService) -> tuple[Flask, SocketIO]:
    """Build the app and its Socket.IO server; call `start_publisher` once the server runs."""
    app = Flask(__name__)
    socketio = SocketIO(app, async_mode="threading", cors_allowed_origins=[])

    @app.get("/")
    def index() -> str:
        return render_template("table.html")

    @app.get("/map.jpg")
    def map_image() -> Response:
        data, mime = service.map_image()
        return Response(data, mimetype=mime, headers={"Cache-Control": "max-age=3600"})

    @app.get("/healthz")
    def healthz() -> dict[str, Any]:
        return {"ok": True, "version": service.version()}

    socketio.on_namespace(TableNamespace(service))
    app.extensions["kipukas_service"] = service
    return app, socketio


def start_publisher(socketio: SocketIO, service: TableService, stop: Any = None) -> None:
    """The one background task: push a fresh snapshot to everyone whenever the table changes."""

    def publish() -> None:
        seen = service.version()
        while stop is None or not stop.is_set():
            now = service.wait_for_change(seen, timeout=1.0)
            if now != seen:
                seen = now
                socketio.emit("state", service.snapshot(), namespace=NAMESPACE)

    socketio.start_background_task(publish)
