"""The judge's tools over HTTP (each needs the judge key the judge page holds): the replay page and its
state at any row, the record's downloads (signed SQLite, JSON) and a printable score sheet."""

from __future__ import annotations

import json
import time

from flask import Blueprint, Response, abort, render_template, request

from tracker.api import JUDGE, InputError
from web.pages import _judge_only, service

tools = Blueprint("judge_tools", __name__)


@tools.get("/replay")
def replay_page() -> str:
    game = service().game
    return render_template("replay.html") if game == "kipukas" else \
        render_template("game.html", role="replay", game=game)


@tools.get("/replay/state/<int:seq>.json")
def state_at(seq: int) -> Response:
    _judge_only()
    try:
        view = service().state_at(JUDGE, seq)
    except InputError as exc:
        abort(404, description=str(exc))
    return Response(json.dumps(view), mimetype="application/json", headers={"Cache-Control": "no-store"})


def _download(data: bytes, name: str, mime: str) -> Response:
    return Response(data, mimetype=mime, headers={"Content-Disposition": f'attachment; filename="{name}"',
                                                  "Cache-Control": "no-store"})


@tools.get("/export/record.sqlite")
def export_sqlite() -> Response:
    _judge_only()
    return _download(service().export_sqlite(), time.strftime("kipukas-record-%Y%m%d-%H%M.sqlite"),
                     "application/vnd.sqlite3")


@tools.get("/export/record.json")
def export_json() -> Response:
    _judge_only()
    lines = "".join(json.dumps(row, sort_keys=True) + "\n" for row in service().export_rows())
    return _download(lines.encode("utf-8"), time.strftime("kipukas-record-%Y%m%d-%H%M.jsonl"),
                     "application/jsonl")


@tools.get("/export/sheet")
def score_sheet() -> str:
    """A printable score sheet: players, result, claims, and every accepted action with its row."""
    _judge_only()
    view = service().snapshot(JUDGE)
    rows = [r for r in service().export_rows() if r["kind"] in ("action", "undo", "correct")]
    return render_template("sheet.html", view=view, rows=rows, key=request.args.get("k", ""),
                           printed=time.strftime("%Y-%m-%d %H:%M"))


@tools.get("/organise")
def organise_page() -> str:
    return render_template("organise.html", options=service().organise_options())


@tools.post("/organise/new")
def organise_new() -> Response:
    """Start a new game: one deck per seat, pasted or uploaded as text (docs/deck-format.md) or registered
    with the front camera, a play style and the seats' token colours; on a table of another game, which
    game (``game``) and, optionally, each seat's JSON deck."""
    if not service().judge_key_ok(request.form.get("k")):
        abort(403, description="judge key missing or wrong: open this from the judge page")
    decks: dict[str, list[str]] = {}
    colours: dict[str, str] = {}
    for seat in service().organise_options()["players"]:
        upload = request.files.get(f"{seat}_file")
        text = upload.read().decode("utf-8", "replace") if upload and upload.filename else ""
        text = text or request.form.get(f"{seat}_deck", "")
        decks[seat] = [line for line in text.splitlines() if line.strip()][:200]
        if request.form.get(f"{seat}_colour"):
            colours[seat] = str(request.form.get(f"{seat}_colour"))[:40]
    try:
        started = service().start_game(JUDGE, decks, style=str(request.form.get("style", ""))[:60],
                                       colours=colours or None, game=str(request.form.get("game", ""))[:40])
    except InputError as exc:
        return Response(json.dumps({"ok": False, "error": str(exc)}), status=400, mimetype="application/json")
    return Response(json.dumps({"ok": True, **started}), mimetype="application/json")


@tools.post("/organise/register")
def organise_register() -> Response:
    """Deck registration with the front camera: ``action`` start (with ``seat``), stop or status."""
    if not service().judge_key_ok(request.form.get("k")):
        abort(403, description="judge key missing or wrong: open this from the judge page")
    try:
        status = service().registration(JUDGE, str(request.form.get("action", "status"))[:10],
                                        str(request.form.get("seat", ""))[:20])
    except InputError as exc:
        return Response(json.dumps({"ok": False, "error": str(exc)}), status=400, mimetype="application/json")
    return Response(json.dumps({"ok": True, **status}), mimetype="application/json",
                    headers={"Cache-Control": "no-store"})
