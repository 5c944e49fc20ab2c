"""Run the web service for a table: the one place that wires `web` to the tracker (the composition root);
`web` itself only knows `tracker.api`."""

from __future__ import annotations

import errno
import logging
import socket
import threading

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from rules.kipukas.compiled import running_engine
from tracker.api import TableService
from web.app import create_app
from web.namespace import Limits


class _Handler(WSGIRequestHandler):
    """Closes the TCP connection once a websocket ends: werkzeug would otherwise read the client's
    closing frame as the next HTTP request (a 400 in the log, and a client waiting for its goodbye)."""

    def run_wsgi(self) -> None:
        super().run_wsgi()
        if self.headers.get("Upgrade", "").lower() == "websocket":
            self.close_connection = True


class WebServer:
    """The Flask-SocketIO app on a threaded WSGI server that can be stopped (tests, service shutdown)."""

    def __init__(self, service: TableService, host: str = "127.0.0.1", port: int = 5000,
                 limits: Limits | None = None, framed: bool = True) -> None:
        self.service = service
        # which rules engine runs, so an operator can tell from /healthz (docs/rules-engine.md, branch pi16)
        self.app, self.socketio = create_app(service, limits, framed, {"rules_engine": running_engine()})
        self.stop_event = threading.Event()
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        if port:
            _check_free(host, port)  # werkzeug would print three lines of advice and exit 1
        try:
            self._server: BaseWSGIServer = make_server(host, port, self.app, threaded=True,
                                                       request_handler=_Handler)
        except SystemExit as exc:  # werkzeug prints its own advice and exits 1 when the port is taken
            raise OSError(errno.EADDRINUSE, f"port {port} is in use by another program") from exc
        self.port = self._server.server_port

    def serve_forever(self) -> None:
        from web.app import start_publisher

        start_publisher(self.socketio, self.service, self.stop_event)
        self._server.serve_forever()

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, name="web", daemon=True)
        thread.start()
        return thread

    def shutdown(self) -> None:
        self.stop_event.set()
        self._server.shutdown()
        self._server.server_close()


def _check_free(host: str, port: int) -> None:
    """Raise `OSError` naming the port when nothing can listen on (host, port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    probe = socket.socket(family, socket.SOCK_STREAM)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
    except OSError as exc:
        raise OSError(exc.errno, f"port {port} is in use by another program" if exc.errno == errno.EADDRINUSE
                      else (exc.strerror or str(exc))) from exc
    finally:
        probe.close()
