"""No hidden-card oracle and no unbounded record through rejections; limits per seat, not per connection;
the PIN lockout never locks out other seats or a correct PIN for long, and its table is pruned (issue 16,
item 4). Real tables, real records and real Socket.IO test clients."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask_socketio import SocketIOTestClient

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import DECKS, KEY, set_up
from tests.test_web_support import PIN
from tracker.record.store import GameRecord
from tracker.service.seats import Seats, player
from tracker.service.service import TableService
from tracker.table.table import Table
from web.app import create_app
from web.namespace import NAMESPACE, Limits

RED_IN_HAND = "SWyA#0001"   # dealt to red: blue cannot know it is in the game
NOT_IN_GAME = "ZZZZ#0001"


def dealt(tmp_path: Path) -> TableService:
    table = Table(BoardMap.packaged(), GameRecord(str(tmp_path / "game.sqlite"), KEY), DECKS)
    set_up(table)
    return TableService(table, Seats(("red", "blue"), judge_pin=PIN))


def same_but_id(a: dict[str, Any], b: dict[str, Any], a_id: str, b_id: str) -> None:
    keep = ("kind", "action", "accepted", "rule", "message")
    assert {k: str(a[k]).replace(a_id, "ID") for k in keep} == {k: str(b[k]).replace(b_id, "ID") for k in keep}


@pytest.mark.parametrize("template", ["blue move {} T5-M4", "blue reveal {}", "blue play {} 3 revealed",
                                      "blue attack F3GW#0001 {}", "blue sabotage {}", "blue discard {}"])
def test_a_hidden_card_and_a_missing_card_get_the_same_answer(tmp_path: Path, template: str) -> None:
    service = dealt(tmp_path)
    blue = player("blue")
    hidden = service.act(blue, template.format(RED_IN_HAND))
    missing = service.act(blue, template.format(NOT_IN_GAME))
    assert not hidden["accepted"] and not missing["accepted"]
    same_but_id(hidden, missing, RED_IN_HAND, NOT_IN_GAME)
    log = service.entries_since(blue, hidden["seq"] - 1)   # and the same in blue's log afterwards
    assert len(log) == 2
    same_but_id(log[0], log[1], RED_IN_HAND, NOT_IN_GAME)
    assert "red" not in hidden["message"]


def test_the_hidden_card_rejection_replays_the_same(tmp_path: Path) -> None:
    service = dealt(tmp_path)
    service.act(player("blue"), f"blue attack F3GW#0001 {RED_IN_HAND}")
    table = service.table
    again = Table(BoardMap.packaged(), table.record)
    assert again.game.to_text() == table.game.to_text() and again.warnings == table.warnings


def test_red_still_gets_the_rules_answer_for_its_own_card(tmp_path: Path) -> None:
    service = dealt(tmp_path)
    entry = service.act(player("red"), f"red move {RED_IN_HAND} T5-M4")
    assert not entry["accepted"] and "is not a card red holds" not in entry["message"]


def test_repeated_probes_are_counted_not_stored_one_by_one(tmp_path: Path) -> None:
    service = dealt(tmp_path)
    blue, before = player("blue"), service.table.record.last_seq
    answers = [service.act(blue, f"blue reveal ZZ{n:02d}#0001") for n in range(60)]
    assert all(not a["accepted"] for a in answers)
    grown = service.table.record.last_seq - before
    assert grown <= 4, f"60 probes grew the record by {grown} rows"
    assert service.act(blue, "blue play F3GW#0001 3 revealed")["accepted"]
    rows = list(service.table.record.rows(before))
    probes = [r for r in rows if r.kind == "probes"]
    stored = [r for r in rows if r.kind == "action" and not r.body["accepted"]]
    assert len(probes) == 1 and probes[0].body["count"] + len(stored) == 60
    assert probes[0].body["last"] == "blue reveal ZZ59#0001"
    assert service.table.record.verify().ok
    # the counted row is the judge's to read, not the players'
    assert not [e for e in service.entries_since(player("red"), before) if e["kind"] == "probes"]


def connect(app: Any, sio: Any, auth: dict[str, Any] | None) -> SocketIOTestClient:
    return sio.test_client(app, namespace=NAMESPACE, auth=auth)


def test_rejection_limits_are_per_seat_not_per_connection(tmp_path: Path) -> None:
    service = dealt(tmp_path)
    app, sio = create_app(service, Limits(rate_per_s=1000.0, burst=1000, rejected_per_min=1.0, rejected_burst=3))
    token = {"token": service.join_tokens()["blue"]}
    for n in range(3):
        c = connect(app, sio, token)  # a fresh connection for every probe: reconnecting is free
        ack = c.emit("act", {"text": f"blue reveal ZZ{n:02d}#0001"}, namespace=NAMESPACE, callback=True)
        assert ack["ok"] and not ack["entry"]["accepted"]
        c.disconnect(NAMESPACE)
    seq = service.table.record.last_seq
    late = connect(app, sio, token)
    ack = late.emit("act", {"text": "blue reveal ZZ99#0001"}, namespace=NAMESPACE, callback=True)
    assert not ack["ok"] and "too many rejected actions from blue" in ack["error"]
    assert service.table.record.last_seq == seq
    red = connect(app, sio, {"token": service.join_tokens()["red"]})  # other seats are not held up
    assert red.emit("act", {"text": "red reveal ZZ98#0001"}, namespace=NAMESPACE, callback=True)["ok"]


def test_bad_tokens_and_pins_never_lock_out_the_judge_or_other_seats(tmp_path: Path) -> None:
    service = dealt(tmp_path)
    now = [0.0]
    app, sio = create_app(service, Limits(failed_logins=5, lockout_s=60.0))
    namespace = sio.server.namespace_handlers[NAMESPACE]
    namespace.clock = lambda: now[0]
    for n in range(20):
        assert not connect(app, sio, {"token": f"guess-{n}"}).is_connected(NAMESPACE)
    assert connect(app, sio, {"pin": PIN}).is_connected(NAMESPACE)  # bad tokens lock out nobody
    for n in range(5):
        assert not connect(app, sio, {"pin": f"{n:04d}"}).is_connected(NAMESPACE)
    assert connect(app, sio, {"pin": PIN}).is_connected(NAMESPACE)  # the right PIN, at its next check
    for seat in ("red", "blue", "spectator"):
        assert connect(app, sio, {"token": service.join_tokens()[seat]}).is_connected(NAMESPACE)
    assert connect(app, sio, None).is_connected(NAMESPACE)
    assert namespace.failures
    now[0] = 120.0
    assert connect(app, sio, {"pin": PIN}).is_connected(NAMESPACE)
    assert namespace.failures == {} and namespace.pin_checks == {}  # pruned


def test_attacking_a_face_down_card_is_for_the_rules_but_a_rejection_says_no_more(tmp_path: Path) -> None:
    from tests.table_helpers import say

    service = dealt(tmp_path)
    say(service.table, "blue play F3GW#0001 3 revealed", "red play SWyA#0001 1 unrevealed")
    blue = player("blue")
    face_down = service.act(blue, f"blue attack F3GW#0001 {RED_IN_HAND}")  # not in contention: rejected
    missing = service.act(blue, f"blue attack F3GW#0001 {NOT_IN_GAME}")
    assert not face_down["accepted"] and not missing["accepted"]
    same_but_id(face_down, missing, RED_IN_HAND, NOT_IN_GAME)
    again = Table(BoardMap.packaged(), service.table.record)
    assert again.game.to_text() == service.table.game.to_text()
