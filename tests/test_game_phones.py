"""Phones, judges and the record for the games of `rules.core.registry` other than Kipukas: the generic
`GameService` behind the real Flask-SocketIO app, with real `socketio.test_client` connections per seat.

What must hold: a player only ever receives their own hand and their own draws' card names; spectators
get the public view; a player acts only for their seat, by the lines `legal_actions` listed as buttons;
judges see everything, undo and correct; the signed record replays to the same state and verifies."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_socketio import SocketIO, SocketIOTestClient

from rules.core.selfplay import choose
from tracker.cli import main
from tracker.record.keys import load_or_create_key, table_public_key
from tracker.record.store import GameRecord
from tracker.runtime.game_runtime import DemoGame, demo_config
from tracker.service.game_service import GameService
from tracker.service.seats import JUDGE, SPECTATOR, AccessDenied, Seats, player
from tracker.table.games import GameTable, replay
from web.app import create_app, publish_once
from web.namespace import NAMESPACE, Limits

FAST = Limits(rate_per_s=1000.0, burst=1000, seat_rate_per_s=1000.0, seat_burst=1000, rejected_per_min=1000.0,
              rejected_burst=1000)


def started(tmp_path: Path, name: str) -> tuple[GameService, Path]:
    state = tmp_path / "state"
    record = GameRecord(str(tmp_path / f"{name}.sqlite"), load_or_create_key(state))
    table = GameTable.start(record, name, demo_config(name))
    return GameService(table, Seats(table.game.seats, judge_pin="2468")), state


def connect(app: Flask, sio: SocketIO, service: GameService, who: str) -> SocketIOTestClient:
    auth: dict[str, Any] = {"pin": "2468"} if who == "judge" else \
        {} if who == "spectator" else {"token": service.seats.tokens[who]}
    c = sio.test_client(app, namespace=NAMESPACE, auth=auth)
    assert c.is_connected(NAMESPACE)
    return c


def received(c: SocketIOTestClient) -> list[dict[str, Any]]:
    return [{"name": m["name"], "args": m["args"]} for m in c.get_received(NAMESPACE)]


def states(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m["args"][0] for m in messages if m["name"] == "state"]


@pytest.mark.parametrize("name", ["kaiju", "tilemap"])
def test_a_player_never_receives_another_players_hand(tmp_path: Path, name: str) -> None:
    service, _ = started(tmp_path, name)
    app, sio = create_app(service, FAST)
    namespace = app.extensions["kipukas_namespace"]
    clients = {who: connect(app, sio, service, who) for who in ("red", "blue", "spectator", "judge")}
    got: dict[str, list[dict[str, Any]]] = {who: received(c) for who, c in clients.items()}
    sent: dict[str, Any] = {}
    rng = random.Random(7)
    for _ in range(40):
        state = service.snapshot(JUDGE)
        if state["result"]:
            break
        seat = next(g["seat"] for g in state["actions"])  # a seat that may act now
        mine = service.snapshot(player(seat))["actions"]
        assert {g["seat"] for g in mine} == {seat}
        line = choose([o["text"] for g in mine for o in g["options"]], rng, {"keep": 3.0, "end": 0.5})
        ack = clients[seat].emit("act", {"text": line}, namespace=NAMESPACE, callback=True)
        assert ack["ok"] and ack["entry"]["accepted"] and ack["entry"]["action"] == line, ack
        publish_once(sio, service, namespace.rooms(), sent)
        for who, c in clients.items():
            got[who] += received(c)
    judge = service.snapshot(JUDGE)
    drawn = {seat: {e["action"] for e in judge["log"] if e["action"].startswith(f"{seat} draw")}
             for seat in ("red", "blue")}
    assert drawn["red"] and drawn["blue"], "the game drew no cards: nothing was tested"
    for who, messages in got.items():
        text = json.dumps(messages)
        for seat, lines in drawn.items():
            for line in lines:
                # A draw's card name reaches only the seat that drew it and judges.
                assert (line in text) == (who in (seat, "judge")), (who, line)
        for state in states(messages):
            for seat, info in state["view"]["players"].items():
                hand = info["combat_hand" if name == "kaiju" else "hand"]
                assert isinstance(hand, list) == (who in (seat, "judge")), (who, seat, hand)
    assert states(got["spectator"])[-1]["actions"] == []


def test_players_act_only_for_their_seat_and_rejections_stay_private(tmp_path: Path) -> None:
    service, _ = started(tmp_path, "tilemap")
    app, sio = create_app(service, FAST)
    red, blue, watcher = (connect(app, sio, service, who) for who in ("red", "blue", "spectator"))
    for c in (red, blue, watcher):
        c.get_received(NAMESPACE)
    ack = blue.emit("act", {"text": "red end"}, namespace=NAMESPACE, callback=True)
    assert not ack["ok"] and "you sit at blue" in ack["error"]
    ack = watcher.emit("act", {"text": "red end"}, namespace=NAMESPACE, callback=True)
    assert not ack["ok"] and ack["kind"] == "denied"
    ack = blue.emit("act", {"text": "blue end"}, namespace=NAMESPACE, callback=True)
    assert ack["ok"] and not ack["entry"]["accepted"] and ack["entry"]["rule"].startswith("#")
    seq = ack["entry"]["seq"]
    assert [e["seq"] for e in service.entries_since(player("blue"), 0)] == [seq]
    assert service.entries_since(player("red"), 0) == [] and service.entries_since(SPECTATOR, 0) == []
    with pytest.raises(AccessDenied):
        service.undo(player("red"), "not a judge")


def test_judge_undoes_and_corrects_and_the_record_replays(tmp_path: Path) -> None:
    service, state_dir = started(tmp_path, "kaiju")
    app, sio = create_app(service, FAST)
    judge = connect(app, sio, service, "judge")
    hello = received(judge)[0]["args"][0]
    assert hello["role"] == "judge"
    rng = random.Random(3)
    for _ in range(25):
        line = choose(service.table.game.legal_actions(), rng, {"keep": 3.0})
        ack = judge.emit("act", {"text": line}, namespace=NAMESPACE, callback=True)
        assert ack["ok"] and ack["entry"]["accepted"]
    before = service.table.game.history
    ack = judge.emit("undo", {"reason": "a card was misread"}, namespace=NAMESPACE, callback=True)
    assert ack["ok"] and ack["entry"]["kind"] == "undo" and service.table.game.history == before[:-1]
    undone_text = service.table.game.to_text()
    # Strike the first draw: every later row is re-decided on the corrected state, as for Kipukas.
    first = next(r for r in service.table.record.rows(kinds=("action",)) if " draw " in r.body["text"])
    ack = judge.emit("correct", {"target": first.seq, "text": "", "reason": "drawn twice"}, namespace=NAMESPACE,
                     callback=True)
    assert ack["ok"] and ack["entry"]["kind"] == "correct"
    after = service.table.game.to_text()
    assert after != undone_text and service.snapshot(JUDGE)["state_text"] == after
    path = service.table.record.path
    service.table.record.close()
    reopened = GameRecord(path, readonly=True)
    assert reopened.verify(table_public_key(state_dir)).ok
    assert GameTable.open(reopened).game.to_text() == after
    reopened.close()
    assert main(["log", "verify", path, "--state", str(state_dir)]) == 0


def test_replay_page_exports_and_delayed_spectators(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    service, _ = started(tmp_path, "tilemap")
    rng = random.Random(5)
    for _ in range(12):
        assert service.act(JUDGE, choose(service.table.game.legal_actions(), rng, {"end": 0.5}))["accepted"]
    app, _ = create_app(service, FAST)
    http = app.test_client()
    assert http.get("/replay/state/3.json").status_code == 403
    key = service.judge_key()
    view = http.get(f"/replay/state/3.json?k={key}").get_json()
    assert view["seq"] == 3 and view["row"]["seq"] == 3 and view["last_seq"] == 13
    assert view["view"]["game"] == "tilemap" and view["state_text"] == replay(service.table.record, 3).to_text()
    for page in ("/play", "/watch", "/judge", "/replay"):
        html = http.get(page).get_data(as_text=True)
        assert "game.js" in html and "table.js" not in html, page
    rows = [json.loads(line) for line in http.get(f"/export/record.json?k={key}").get_data(as_text=True).splitlines()]
    assert [r["seq"] for r in rows] == list(range(1, 14)) and rows[0]["body"]["game"] == "tilemap"
    assert "tilemap" in http.get(f"/export/sheet?k={key}").get_data(as_text=True)
    # A spectator one minute behind sees the game replayed to the last row a minute older than now.
    sixth = next(service.table.record.rows(after=5, upto=6))
    service.spectator_delay_min = 1.0
    service.clock = lambda: sixth.ts + 60.0
    upto = service.table.record.last_row_before(sixth.ts)
    late = service.snapshot(SPECTATOR)
    assert 6 <= upto < 13 and late["seq"] == upto and late["delayed_min"] == 1.0
    assert late["view"] == replay(service.table.record, upto).view("spectator")
    assert max(e["seq"] for e in late["log"]) <= upto
    assert service.snapshot(JUDGE)["seq"] == 13  # judges are never delayed
    assert main(["log", "export", service.table.record.path]) == 0
    exported = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["kind"] for r in exported] == ["start"] + ["action"] * 12


def test_demo_game_plays_itself_to_a_signed_record(tmp_path: Path) -> None:
    demo = DemoGame("kaiju", seed=2, folder=tmp_path)
    for _ in range(30):
        assert demo.step()
    assert demo.table.record.last_seq == 31
    assert GameRecord(demo.table.record.path, readonly=True).verify(table_public_key(tmp_path)).ok
