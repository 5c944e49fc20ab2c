"""The hub's Flask-SocketIO application: one single-worker process of several, Redis as their message
queue (Flask-SocketIO's documented multi-process deployment), nginx in front with `ip_hash`."""

from __future__ import annotations

import json
import logging
import resource
import socket
import threading
from contextlib import suppress
from typing import Any

import socketio as socketio_lib
from flask import Flask, Response, abort, render_template, request
from flask_socketio import SocketIO

from broadcast.rooms import FramedRedisManager
from broadcast.timing import StageTimes
from hub.collector import Collector, settle_start_up
from hub.collector import wanted as collector_wanted
from hub.namespaces import Broadcaster, OrganiserNamespace, WatchNamespace, role_of_key
from hub.pairings import PairingError, parse_csv, to_csv
from hub.profiling import install_profiling
from hub.push import PushNamespace
from hub.settings import HubConfig
from hub.stalls import install_stalls
from hub.streams import HubStore

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
MAX_HTTP_BUFFER = 1024 * 1024  # a push of 500 rows fits
# Connections the kernel queues before the process accepts them. gevent's default (128) overflows when a
# crowd of spectators arrives at once (a round starts): the kernel then drops or resets connections, nginx
# marks the process failed and the spectators hang in SYN retries. The kernel caps it at net.core.somaxconn.
LISTEN_BACKLOG = 4096


def origin_check(allowed: tuple[str, ...]) -> Any:
    def check(origin: str | None, environ: dict[str, Any]) -> bool:
        if origin is None:
            return True
        host = environ.get("HTTP_HOST", "")
        return origin in (f"http://{host}", f"https://{host}") or origin in allowed

    return check


def spectator_merge(namespace: str, room: object, event: str) -> str | None:
    """How a room's broadcasts merge while one is being sent: a table's spectators get every row (the rows
    of several pushes in one message) and its latest status; nothing else is merged."""
    if namespace != "/watch" or not isinstance(room, str) or not room.startswith("watch:"):
        return None
    return {"rows": "append", "status": "latest"}.get(event)


def create_hub_app(cfg: HubConfig, store: HubStore | None = None,
                   async_mode: str = "threading") -> tuple[Flask, SocketIO, Broadcaster]:
    """The app, its Socket.IO server on the Redis message queue, and the delayed broadcaster to start."""
    store = store or HubStore(cfg.redis_url)
    app = Flask(__name__)
    # Redis is the message queue (Flask-SocketIO's multi-process deployment); each process delivers a
    # spectators' broadcast encoded and framed once, merged with those that arrive while it sends.
    manager = (FramedRedisManager(cfg.redis_url, channel="kipukas-hub", coalesce=spectator_merge)
               if cfg.broadcast == "framed" else socketio_lib.RedisManager(cfg.redis_url, channel="kipukas-hub"))
    socketio = SocketIO(app, async_mode=async_mode, client_manager=manager,
                        cors_allowed_origins=origin_check(cfg.allowed_origins), manage_session=False,
                        max_http_buffer_size=MAX_HTTP_BUFFER)
    broadcaster = Broadcaster(cfg, store, socketio)
    timing = getattr(manager, "timing", None) or StageTimes()
    push = PushNamespace(cfg, store, broadcaster, socketio, timing)
    socketio.server.register_namespace(push)  # python-socketio's own: no Flask request context per push
    socketio.on_namespace(WatchNamespace(cfg, store))
    socketio.on_namespace(OrganiserNamespace(cfg, store))
    tables = sorted(set(cfg.tables.values()))

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers["Content-Security-Policy"] = CSP
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "no-referrer"
        return resp

    @app.get("/")
    def index() -> str:
        return render_template("index.html", tables=tables)

    @app.get("/watch/<table>")
    def watch(table: str) -> str:
        if table not in tables:
            abort(404, description=f"no table {table!r} at this hub")
        return render_template("watch.html", table=table, delay=cfg.spectator_delay_min)

    @app.get("/organiser")
    def organiser() -> str:
        return render_template("organiser.html")

    def role() -> str:
        who = role_of_key(cfg, request.args.get("k"))
        if who is None:
            abort(403, description="organiser or judge key missing or wrong: open this from the organiser page")
        return who

    @app.get("/organiser/pairings.csv")
    def pairings_export() -> Response:
        role()
        return Response(to_csv(store.pairings()), mimetype="text/csv",
                        headers={"Content-Disposition": "attachment; filename=pairings.csv"})

    @app.post("/organiser/pairings.csv")
    def pairings_import() -> Response:
        if role() != "organiser":
            abort(403, description="only the organiser imports pairings")
        if (request.content_length or 0) > 512 * 1024:
            abort(413, description="pairings: at most 512 KB of CSV")
        try:
            rows = parse_csv(request.get_data(as_text=True))
        except PairingError as exc:
            return Response(json.dumps({"error": str(exc)}), status=400, mimetype="application/json")
        for row in rows:
            store.set_pairing(row)
        return Response(json.dumps({"imported": len(rows)}), mimetype="application/json")

    @app.get("/organiser/tables/<table>/games/<game>.jsonl")
    def game_rows(table: str, game: str) -> Response:
        role()
        if table not in tables or game not in store.games(table):
            abort(404, description=f"no game {game!r} at table {table!r}")
        lines = [json.dumps({k: v for k, v in r.items() if k != "at"}, sort_keys=True) for r in store.rows(table, game)]
        return Response("\n".join(lines) + "\n", mimetype="application/x-ndjson",
                        headers={"Content-Disposition": f"attachment; filename=table-{table}-{game}.jsonl"})

    @app.get("/organiser/tables/<table>/games/<game>/replay")
    def game_replay(table: str, game: str) -> str:
        """Step or scrub through a game's rows as the hub holds them (the page reads them with its key)."""
        role()
        if table not in tables or game not in store.games(table):
            abort(404, description=f"no game {game!r} at table {table!r}")
        return render_template("replay.html", table=table, game=game)

    @app.get("/organiser/tables/<table>/games/<game>/heads.json")
    def game_heads(table: str, game: str) -> Response:
        role()
        return Response(json.dumps(store.heads(table, game)), mimetype="application/json")

    @app.get("/favicon.ico")
    def favicon() -> Response:
        return Response(status=204)

    @app.get("/healthz")
    def healthz() -> dict[str, Any]:
        """Liveness, deliveries so far, and with `?since=EPOCH&k=KEY` (an organiser's or judge's page key)
        how late rows were at each of this process's stages after that moment (`broadcast.timing`: where a
        broadcast's latency goes)."""
        out: dict[str, Any] = {"ok": store.ping(), "tables_connected": len(push.tables),
                               "deliveries": dict(getattr(manager, "deliveries", {}))}
        collector = app.extensions.get("kipukas_collector")
        if isinstance(collector, Collector):
            out["collector"] = collector.figures()
        since = request.args.get("since")
        if since is not None:
            role()  # the timing samples are the organiser's and judges' (and the bench's), not the public's
            try:
                out["timing"] = timing.since(float(since))
            except ValueError:
                abort(400, description="since: expected a time in seconds since the epoch")
        return out

    return app, socketio, broadcaster


def open_files_limit(wanted: int = 65536) -> int:
    """Raise this process's limit of open files towards `wanted` (never past the hard limit) and return it:
    every websocket holds two descriptors (the server's and the websocket library's duplicate), so a shell's
    usual soft limit of 1,024 would refuse spectators past about 500 a process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def serve(cfg: HubConfig, port: int | None = None) -> None:
    """Run one hub process until stopped (the systemd unit runs one per port). The process is gevent's:
    thousands of spectator sockets are greenlets, not OS threads (`monkey_patch` must have run first, as
    `kipukas-tracker hub` does before anything else)."""
    from gevent.pywsgi import WSGIServer

    open_files_limit()
    app, socketio, broadcaster = create_hub_app(cfg, async_mode="gevent")
    class NoDelayServer(WSGIServer):  # type: ignore[misc]
        """Every connection with TCP_NODELAY: a spectator's frame or a table's answer is small, and Nagle's
        algorithm would hold it while an earlier one waits for nginx's delayed ACK (up to 40 ms)."""

        def handle(self, sock: Any, address: Any) -> Any:
            with suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return super().handle(sock, address)

    server = NoDelayServer((cfg.host, port or cfg.port), app, log=None, error_log=logging.getLogger("kipukas-hub"),
                           backlog=LISTEN_BACKLOG)
    install_profiling(port or cfg.port)  # benches only: off unless KIPUKAS_HUB_PROFILE is set
    install_stalls(str(port or cfg.port), socketio.start_background_task)  # benches only: KIPUKAS_HUB_STALLS
    stop = threading.Event()
    socketio.start_background_task(broadcaster.run, stop)
    if collector_wanted():  # always, but in a bench measuring CPython's own collector against it
        settle_start_up()  # start-up's objects out of the collector's sight; then survivors every few seconds
        collector = app.extensions["kipukas_collector"] = Collector()
        socketio.start_background_task(collector.run, stop)
    print(f"kipukas-tracker hub: listening on http://{cfg.host}:{port or cfg.port}/", flush=True)
    try:
        server.serve_forever()
    finally:
        stop.set()
        server.stop()
