"""The HTTP side: pages (table/spectator, player, judge), the map picture, join QR codes and keyframes.

Pages carry no secrets: a player page reads its seat token from its own URL, the judge page asks for
the PIN. The QR codes and keyframes are for the judge only and need this run's judge key (`?k=`).
QR codes are drawn on the Pi (segno, SVG), so joining works without internet.
"""

from __future__ import annotations

import io
import socket
from typing import Any
from urllib.parse import urlencode, urlsplit

import segno
from flask import Blueprint, Response, abort, current_app, render_template, request

from tracker.api import TableService

pages = Blueprint("pages", __name__)


def service() -> TableService:
    svc: TableService = current_app.extensions["kipukas_service"]
    return svc


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def lan_address() -> str:
    """The Pi's address on its local network (the one its default route leaves by), or its mDNS name
    when it has no route at all. Many phones and venue networks cannot resolve ``name.local``."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # a documentation address: nothing is sent, only a route is chosen
        address = str(probe.getsockname()[0])
    except OSError:
        address = ""
    finally:
        probe.close()
    return address if address and not address.startswith("127.") else f"{socket.gethostname()}.local"


def public_base() -> str:
    """Where phones reach this table: the configured public URL; else the address the judge reached us
    at, unless that is the Pi's own loopback (a judge at the Pi's screen), then its LAN address."""
    configured: str = service().public_url
    if configured:
        return configured
    here = urlsplit(request.host_url)
    if here.hostname in LOOPBACK:
        return f"{here.scheme}://{lan_address()}" + (f":{here.port}" if here.port else "")
    return request.host_url.rstrip("/")


def join_url(who: str, token: str) -> str:
    """The link a seat's (or the spectators') QR code opens."""
    base = public_base()
    path = "/watch" if who == "spectator" else "/play"
    return f"{base}{path}?{urlencode({'t': token})}"


def table_page(role: str) -> str:
    """Kipukas' own pages, or the generic game page (tap-to-act from the game's legal actions) for any
    other game the service serves."""
    game = service().game
    if game == "kipukas":
        return render_template("table.html", role=role) if role != "judge" else render_template("judge.html")
    return render_template("game.html", role=role, game=game)


@pages.get("/")
@pages.get("/watch")
def watch() -> str:
    return table_page("spectator")


@pages.get("/sw.js")
def service_worker() -> Response:
    """The service worker, from the root so that it may serve every page (see static/sw.js)."""
    from flask import current_app

    return current_app.send_static_file("sw.js")


@pages.get("/overlay")
def overlay() -> str:
    return render_template("overlay.html")


@pages.get("/play")
def play() -> str:
    return table_page("player")


@pages.get("/judge")
def judge() -> str:
    return table_page("judge")


@pages.get("/map.jpg")
def map_image() -> Response:
    data, mime = service().map_image()
    return Response(data, mimetype=mime, headers={"Cache-Control": "max-age=3600"})


@pages.get("/healthz")
def healthz() -> dict[str, Any]:
    return {"ok": True, "version": service().version(), **current_app.extensions.get("kipukas_health", {})}


def _judge_only() -> None:
    if not service().judge_key_ok(request.args.get("k")):
        abort(403, description="judge key missing or wrong: open this from the judge page")


@pages.get("/join/links")
def join_links() -> dict[str, Any]:
    _judge_only()
    return {who: join_url(who, token) for who, token in service().join_tokens().items()}


@pages.get("/join/qr/<who>.<kind>")
def join_qr(who: str, kind: str) -> Response:
    _judge_only()
    tokens = service().join_tokens()
    if kind not in ("svg", "png"):
        abort(404, description="QR codes come as .svg or .png")
    if who not in tokens:
        abort(404, description=f"no seat {who!r} at this table (seats: {', '.join(tokens)})")
    out = io.BytesIO()
    qr = segno.make(join_url(who, tokens[who]), error="m")
    if kind == "svg":
        qr.save(out, kind="svg", scale=6, border=2, title=f"Join as {who}")
    else:
        qr.save(out, kind="png", scale=8, border=4)
    mime = "image/svg+xml" if kind == "svg" else "image/png"
    return Response(out.getvalue(), mimetype=mime, headers={"Cache-Control": "no-store"})


@pages.get("/keyframe/<int:seq>/<camera>.jpg")
def keyframe(seq: int, camera: str) -> Response:
    _judge_only()
    data = service().keyframe(seq, camera)
    if data is None:
        abort(404, description=f"no {camera} keyframe for row {seq}")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "max-age=86400"})

