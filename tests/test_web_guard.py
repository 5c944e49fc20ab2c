"""Who may do what: the permission matrix (every role x every event, no token, wrong token, PIN), rate
and size limits, origins, and the judge-only HTTP resources (join QR codes, keyframes)."""

from __future__ import annotations

import ipaddress
import math
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import socketio
import zxingcpp
from flask import Flask
from flask_socketio import SocketIO, SocketIOTestClient

from tests.test_dice_roll import Die, rest
from tests.test_web_support import PIN, auth_for, connect, new_service, running
from tests.waiting import wait_until
from tracker.service.seats import AccessDenied, Seats
from tracker.service.service import TableService
from tracker.table.dice_roll import DiceDesk
from web.app import MAX_HTTP_BUFFER, create_app
from web.namespace import ALLOWED, NAMESPACE, Limits
from web.pages import lan_address
from web.validation import MAX_MESSAGE_BYTES

ROLES = ("red", "blue", "judge", "spectator")
CALM_BUDGET_S = 5.0  # a calm client's answer while another floods: well under a second on a quiet machine
VALID: dict[str, dict[str, Any]] = {
    "act": {"text": "{seat} affinity Avian"},
    "undo": {"reason": "misread token"},
    "correct": {"target": 2, "text": "", "reason": "struck by the judge"},
    "resume": {"since": 0},
    "call_judge": {},
    "confirm_roll": {"id": 0},  # the id of the camera's reading, set up below
}


def app_for(service: TableService, limits: Limits | None = None) -> tuple[Flask, SocketIO]:
    return create_app(service, limits or Limits(rate_per_s=1000.0, burst=1000))


def client(app: Flask, sio: SocketIO, auth: dict[str, Any] | None) -> SocketIOTestClient:
    return sio.test_client(app, namespace=NAMESPACE, auth=auth)


def errors(c: SocketIOTestClient) -> list[dict[str, Any]]:
    return [m["args"][0] for m in c.get_received(NAMESPACE) if m["name"] == "error"]


@pytest.mark.parametrize("who", ROLES)
@pytest.mark.parametrize("event", sorted(ALLOWED))
def test_permission_matrix(tmp_path: Path, who: str, event: str) -> None:
    service = new_service(tmp_path)
    service.table.act("phone:red", "red affinity Avian")   # row 2: something to undo and correct
    app, sio = app_for(service)
    c = client(app, sio, auth_for(service, who))
    assert c.is_connected(NAMESPACE)
    c.get_received(NAMESPACE)
    seat = who if who in ("red", "blue") else "blue"
    data = {k: v.format(seat=seat) if isinstance(v, str) else v for k, v in VALID[event].items()}
    if event == "confirm_roll":  # the camera read blue's roll-off die: a reading waits for one tap
        service.table.act("phone:blue", "blue affinity Decrepit")
        service.dice = DiceDesk(service.table)
        rest(service.dice, Die("d6", "4", "blue"))
        data = {"id": service.dice.pending[0].id}
    before = service.table.record.last_seq
    ack = c.emit(event, data, namespace=NAMESPACE, callback=True)
    role = "player" if who in ("red", "blue") else who
    if role in ALLOWED[event]:
        assert ack["ok"], ack
        assert errors(c) == []
        if event not in ("resume", "call_judge"):  # a judge call is a warning, not a record row
            assert service.table.record.last_seq == before + 1
    else:
        assert ack == {"ok": False, "event": event, "kind": "denied", "error": f"{event}: not allowed for a {role}"}
        assert errors(c) == [{k: v for k, v in ack.items() if k != "ok"}]
        assert service.table.record.last_seq == before


def test_a_player_acts_only_for_their_own_seat(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    app, sio = app_for(service)
    red = client(app, sio, auth_for(service, "red"))
    ack = red.emit("act", {"text": "blue affinity Avian"}, namespace=NAMESPACE, callback=True)
    assert not ack["ok"] and "you sit at red" in ack["error"]
    assert service.table.record.last_seq == 1
    rejected = red.emit("act", {"text": "red capital 9"}, namespace=NAMESPACE, callback=True)
    assert rejected["ok"] and not rejected["entry"]["accepted"] and rejected["entry"]["rule"] == "#game_setup"
    got = [m for m in red.get_received(NAMESPACE) if m["name"] == "rejected"]
    assert [m["args"][0]["seq"] for m in got] == [2]


@pytest.mark.parametrize("auth", [{"token": "not-a-seat-token"}, {"pin": "0000"}, {"token": 5}, {"spy": "x"},
                                  "token", {"token": "x" * 65}])
def test_bad_credentials_are_refused_at_connect(tmp_path: Path, auth: Any) -> None:
    service = new_service(tmp_path)
    app, sio = app_for(service)
    assert not client(app, sio, auth).is_connected(NAMESPACE)


def test_spectators_need_the_link_when_the_table_is_closed(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    service.seats.open_spectators = False
    app, sio = app_for(service)
    assert not client(app, sio, None).is_connected(NAMESPACE)
    assert client(app, sio, {"token": service.join_tokens()["spectator"]}).is_connected(NAMESPACE)


def test_without_a_pin_only_the_pi_itself_may_judge() -> None:
    seats = Seats(("red", "blue"))
    assert seats.authenticate(None, "", local=True).role == "judge"
    with pytest.raises(AccessDenied, match="only on the Pi itself"):
        seats.authenticate(None, "", local=False)
    with pytest.raises(AccessDenied, match="wrong judge PIN"):
        Seats(("red", "blue"), judge_pin=PIN).authenticate(None, "1234", local=True)


def test_tokens_survive_a_restart_in_the_state_folder(tmp_path: Path) -> None:
    first = Seats(("red", "blue"), path=tmp_path / "seats.json")
    again = Seats(("red", "blue"), path=tmp_path / "seats.json")
    assert first.tokens == again.tokens and len(set(first.tokens.values())) == 3
    assert (tmp_path / "seats.json").stat().st_mode & 0o077 == 0
    again.reissue()
    assert Seats(("red", "blue"), path=tmp_path / "seats.json").tokens == again.tokens != first.tokens


def test_rate_limit_answers_the_flooder_only(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    app, sio = create_app(service, Limits(rate_per_s=0.001, burst=5, strikes_to_disconnect=1000))
    flooder, calm = client(app, sio, auth_for(service, "red")), client(app, sio, auth_for(service, "blue"))
    acks = [flooder.emit("resume", {"since": 0}, namespace=NAMESPACE, callback=True) for _ in range(8)]
    assert [a["ok"] for a in acks] == [True] * 5 + [False] * 3
    assert "too many messages" in acks[-1]["error"]
    assert calm.emit("act", {"text": "blue affinity Decrepit"}, namespace=NAMESPACE, callback=True)["ok"]


def test_oversized_messages_are_refused(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    app, sio = app_for(service)
    c = client(app, sio, auth_for(service, "red"))
    ack = c.emit("act", {"text": "red affinity " + "A" * MAX_MESSAGE_BYTES}, namespace=NAMESPACE, callback=True)
    assert ack["ok"] is False and f"larger than {MAX_MESSAGE_BYTES} bytes" in ack["error"]
    assert service.table.record.last_seq == 1


@pytest.mark.slow
def test_other_origins_are_refused_unless_configured(tmp_path: Path) -> None:
    service = new_service(tmp_path, allowed_origins=("http://hub.local",))
    with running(service) as server:
        # Polling: the headers given are the headers sent (the websocket client adds its own Origin).
        same = connect(server, "red", auth_for(service, "red"), {"Origin": f"http://127.0.0.1:{server.port}"},
                       "polling")
        hub = connect(server, "hub", None, {"Origin": "http://hub.local"}, "polling")
        with pytest.raises(socketio.exceptions.ConnectionError):
            connect(server, "evil", None, {"Origin": "http://evil.example"}, "polling")
        same.close()
        hub.close()


class FolderKeyframes:
    """Keyframes as files named <seq>-<camera>.jpg in a folder (the shape of tracker.record.keyframes)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, seq: int, camera: str) -> Path | None:
        p = self.folder / f"{seq}-{camera}.jpg"
        return p if p.exists() else None


def test_join_codes_and_keyframes_are_for_the_judge(tmp_path: Path) -> None:
    (tmp_path / "2-overhead.jpg").write_bytes(b"\xff\xd8jpeg")
    service = new_service(tmp_path, keyframes=FolderKeyframes(tmp_path))
    app, _ = app_for(service)
    http = app.test_client()
    key = service.judge_key()
    assert http.get("/join/qr/red.svg").status_code == 403
    assert http.get("/join/qr/red.svg?k=wrong").status_code == 403
    assert http.get(f"/join/qr/green.svg?k={key}").status_code == 404
    svg = http.get(f"/join/qr/red.svg?k={key}")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    png = http.get(f"/join/qr/red.png?k={key}")
    decoded = zxingcpp.read_barcodes(cv2.imdecode(np.frombuffer(png.data, np.uint8), cv2.IMREAD_GRAYSCALE))
    # Opened on the Pi itself (loopback): the code points at the Pi's LAN address, which phones can reach
    # on any network (many cannot resolve name.local).
    assert [d.text for d in decoded] == [f"http://{lan_address()}/play?t={service.join_tokens()['red']}"]
    assert lan_address().endswith(".local") or ipaddress.ip_address(lan_address()).is_private
    lan = http.get(f"/join/links?k={key}", base_url="http://192.168.1.20:5000").get_json()
    assert lan["red"] == f"http://192.168.1.20:5000/play?t={service.join_tokens()['red']}"
    service.public_url = "http://table-1.club.lan:8080"
    assert http.get(f"/join/links?k={key}").get_json()["blue"].startswith("http://table-1.club.lan:8080/play?t=")
    service.public_url = ""
    assert http.get(f"/join/links?k={key}").get_json()["spectator"].endswith(service.join_tokens()["spectator"])
    assert http.get(f"/keyframe/2/overhead.jpg?k={key}").data == b"\xff\xd8jpeg"
    assert http.get(f"/keyframe/3/overhead.jpg?k={key}").status_code == 404
    assert http.get("/keyframe/2/overhead.jpg").status_code == 403
    assert service.keyframe(2, "../../etc/passwd") is None


@pytest.mark.slow
def test_a_flooding_client_does_not_hold_up_the_others(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    with running(service, Limits()) as server:
        flooder = connect(server, "red", auth_for(service, "red"))
        calm = connect(server, "blue", auth_for(service, "blue"))
        flood_began = time.monotonic()
        for _ in range(150):
            flooder.client.emit("act", {"text": "red capital 9"}, namespace=NAMESPACE)  # rejected: out of turn
        started = time.monotonic()
        ack = calm.call("act", {"text": "blue affinity Decrepit"})
        assert ack["ok"] and ack["entry"]["accepted"]
        calm.wait_version(service.version(), timeout=30)
        # Not held up behind the flood: well under a second here. The budget is for a loaded CI machine
        # (3x slower and worse), and says the figure when it fails.
        waited = time.monotonic() - started
        assert waited < CALM_BUDGET_S, f"the calm client waited {waited:.2f} s behind the flood"
        wait_until(lambda: len(flooder.of("error")) >= 140,
                   lambda: f"only {len(flooder.of('error'))} of the flood's 140 refusals came", poll_s=0.01)
        flood_took = time.monotonic() - flood_began
        refusals = [e["error"] for e in flooder.of("error")]
        # The connection's bucket lets through its burst of 20 plus what refills (5 a second) while the server
        # works through the flood: exactly 130 refused on a quiet machine, fewer when the flood is handled
        # slowly. The server took at most `flood_took` (from before the first message was sent to the last
        # refusal seen here), so at most 20 + 5 x flood_took got through: the bound follows the measured
        # pace instead of assuming one. Of what it lets through, the rules reject the first 10 and the seat's
        # own limit refuses the rest: 140 refusals either way.
        flooded = sum("too many messages" in r for r in refusals)
        assert len(refusals) == 140, refusals
        assert 130 - math.ceil(5 * flood_took) <= flooded <= 130, f"{flooded} refused in a flood of {flood_took:.2f} s"
        # The seat's limits: its rejected actions (10 at once), and on a slowly handled flood also its
        # actions' own rate (30 at once, then 3 a second), which more let-through actions then reach.
        seat = [r for r in refusals if "too many messages" not in r]
        assert seat and all(r.startswith(("too many rejected actions from red", "too many actions from red"))
                            for r in seat), seat
        # Of the 10 rejections the rules gave, 3 are rows and 7 are counted (issue 16); and blue's line.
        assert service.table.record.last_seq == 5
        # A packet over engine.io's limit ends that connection, and only that one.
        flooder.client.emit("act", {"text": "x" * (MAX_HTTP_BUFFER + 10)}, namespace=NAMESPACE)
        wait_until(lambda: not flooder.client.connected, "the oversized packet did not end the connection")
        assert calm.call("resume", {"since": 0})["ok"]
        # A client that keeps flooding after 200 refusals is shown the door. A fixed flood of 240 was not
        # enough on a loaded machine: handled over more than 4 s, the bucket's refill let more than 40
        # through, so 200 refusals never came. The client now floods (20 per 0.1 s, far over 5 a second)
        # until it is shown the door, and it must be at the 200th refusal, not before or long after.
        stubborn = connect(server, "red", auth_for(service, "red"))
        sent, end = 0, time.monotonic() + 60
        while stubborn.client.connected and sent < 5000 and time.monotonic() < end:
            with suppress(socketio.exceptions.SocketIOError):  # the door closed mid-burst
                for _ in range(20):
                    stubborn.client.emit("resume", {"since": 0}, namespace=NAMESPACE)
                    sent += 1
            time.sleep(0.1)
        wait_until(lambda: not stubborn.client.connected,
                   lambda: f"a client flooding past 200 refusals kept its connection ({sent} sent)")
        strikes = sum("too many messages" in e["error"] for e in stubborn.of("error"))
        assert 199 <= strikes <= 200, f"shown the door after {strikes} refusals, not 200 ({sent} sent)"
        assert calm.client.connected
        calm.close()


def test_guessing_the_pin_is_slowed_down(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    now = [0.0]
    app, sio = create_app(service, Limits(failed_logins=5, lockout_s=60.0))
    sio.server.namespace_handlers[NAMESPACE].clock = lambda: now[0]
    for guess in range(5):
        assert not client(app, sio, {"pin": f"{guess:04d}"}).is_connected(NAMESPACE)
    now[0] = 1.0
    assert not client(app, sio, {"pin": "0005"}).is_connected(NAMESPACE)  # checked: wrong
    now[0] = 2.0
    assert not client(app, sio, {"pin": PIN}).is_connected(NAMESPACE)     # not checked: 12 s between checks
    now[0] = 13.5
    assert client(app, sio, {"pin": PIN}).is_connected(NAMESPACE)         # the next check lets the judge in
