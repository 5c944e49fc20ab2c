"""The calibration page (judges only): the overhead camera's current frame with the mat, slots and stands
drawn where the tracker believes they are, and four handles on the mat's corners to nudge when they are
off. Saving re-solves the camera pose from the corners and the reader uses it at once."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, render_template, request

from tracker.api import InputError
from web.pages import service

calibration = Blueprint("calibration", __name__)


def _judge_only() -> None:
    if not service().judge_key_ok(request.args.get("k")):
        abort(403, description="judge key missing or wrong: open this page from the judge page")


@calibration.get("/calibration")
def page() -> str:
    return render_template("calibration.html")


@calibration.get("/calibration/state")
def state() -> dict[str, Any]:
    _judge_only()
    found = service().calibration_state()
    if found is None:
        abort(404, description="this table has no overhead camera to calibrate")
    return found


@calibration.get("/calibration/overlay.jpg")
def overlay() -> Response:
    _judge_only()
    data = service().calibration_overlay()
    if data is None:
        abort(404, description="no overhead frame yet")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@calibration.post("/calibration/corners")
def corners() -> tuple[dict[str, Any], int]:
    _judge_only()
    body = request.get_json(silent=True)
    points = body.get("corners") if isinstance(body, dict) else None
    if not isinstance(points, list) or len(points) != 4 or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, int | float) and not isinstance(v, bool)
                                                        for v in p) for p in points):
        return {"ok": False, "error": "corners: expected {\"corners\": [[x, y] x 4]} in pixels"}, 400
    try:
        return {"ok": True, **service().set_calibration_corners([[float(v) for v in p] for p in points])}, 200
    except InputError as exc:
        return {"ok": False, "error": str(exc)}, 400


@calibration.post("/calibration/colours")
def colours() -> tuple[dict[str, Any], int]:
    _judge_only()
    body = request.get_json(silent=True)
    samples = body.get("samples") if isinstance(body, dict) else None
    if not isinstance(samples, dict) or not samples or len(samples) > 12 or not all(
            isinstance(k, str) and isinstance(v, str) and 0 < len(k) <= 8 and 0 < len(v) <= 16
            for k, v in samples.items()):
        return {"ok": False, "error": "samples: expected {\"samples\": {STAND: SEAT, ...}}"}, 400
    try:
        return {"ok": True, **service().learn_colours(dict(samples))}, 200
    except InputError as exc:
        return {"ok": False, "error": str(exc)}, 400
