"""The thin end-to-end slice: synthetic overhead frames -> vision -> reconciliation -> rules ->
Flask-SocketIO -> a real Socket.IO client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import socketio

from tracker.runtime.demo import DemoTable
from tracker.runtime.server import WebServer

pytestmark = pytest.mark.slow


@pytest.fixture()
def demo_server() -> Iterator[tuple[DemoTable, WebServer]]:
    demo = DemoTable(fps=None, repeat=False, hand_frames=1, settled_frames=3)
    server = WebServer(demo.service, "127.0.0.1", 0)
    server.start()
    yield demo, server
    demo.stop.set()
    server.shutdown()


def test_socketio_client_sees_legal_and_illegal_moves(demo_server: tuple[DemoTable, WebServer]) -> None:
    demo, server = demo_server
    states: list[dict[str, Any]] = []
    client = socketio.Client()
    client.on("state", states.append, namespace="/table")
    client.connect(f"http://127.0.0.1:{server.port}", namespaces=["/table"], transports=["websocket"],
                   wait_timeout=10)
    try:
        deadline = time.monotonic() + 30
        while not states and time.monotonic() < deadline:
            time.sleep(0.05)
        assert states, "no table state within 30 s of connecting"
        assert states[0]["log"] == [] and states[0]["map"]["name"] == "starter"
        demo.start().join(180)
        final_version = demo.service.version()
        deadline = time.monotonic() + 60  # polled: the deadline is for a loaded machine
        while states[-1]["version"] != final_version and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        client.disconnect()
    final = states[-1]
    log = {e["action"]: e for e in final["log"]}
    legal = log["red move HMPU#0004 T1-M9"]
    assert legal["accepted"] and legal["source"] == "overhead"
    illegal = log["red move HMPU#0004 T1-M5"]
    assert not illegal["accepted"] and illegal["rule"] == "#movement" and "cannot reach M5" in illegal["message"]
    # No phantom and no missed moves: exactly the script's moves, in order, from the overhead camera.
    moves = [e["action"] for e in final["log"] if " move " in e["action"] and e["accepted"]]
    assert moves == ["blue move F3GW#0001 T3-M4", "red move HMPU#0004 T1-M9", "red move HMPU#0004 M9-M8"]
    claims = [e["action"] for e in final["log"]
              if e["source"] == "overhead" and e["accepted"] and e["action"].split(" ")[1] in ("capital", "camp")]
    assert claims == ["red capital 7", "blue capital 4", "red camp 8", "blue camp 3", "red camp 1", "blue camp 5"]
    # Every card reached the game from the mat: played and revealed by the overhead camera, none by a phone;
    # but the one played hidden under the mat, whose QR is out of sight: the camera asked red, red answered.
    cards = [(e["source"], e["action"]) for e in final["log"]
             if e["accepted"] and e["action"].split(" ")[1] in ("play", "reveal")]
    assert cards[:4] == [("overhead", "blue play F3GW#0001 3 revealed"),
                         ("overhead", "red play HMPU#0004 1 revealed"),
                         ("overhead", "red play SWyA#0001 1 unrevealed"), ("overhead", "red reveal SWyA#0001")]
    assert len(cards) == 5 and cards[4][0] == "phone:red" and cards[4][1].endswith(" 7 hidden")  # unnamed here
    asked = [r.body for r in demo.table.record.rows() if r.kind == "question" and r.source == "overhead"]
    assert any(q["player"] == "red" and "red play WCA9#0001 7 hidden" in q["options"] for q in asked), asked
    assert final["in_sync"] and final["stands"]["M8"] == {"kind": "soul", "owner": "red", "count": 1}
    assert final["phase"] == "night" and final["turn"] == 2
    # Some state in between showed the table out of sync after the illegal move.
    assert any(not s["in_sync"] and any("M5" in d for d in s["differences"]) for s in states)
    # The record behind it verifies, and hands stay secret: no state ever named a card in a hand.
    assert demo.table.record.verify().ok
    assert all("WCA9#0001" not in str(s) for s in states)
    # A card played face down stays unnamed to spectators until it is turned over.
    hidden = [st for st in states if not any(e["action"] == "red reveal SWyA#0001" for e in st["log"])]
    assert hidden and all("SWyA#0001" not in str(st) and "Gray Wolf" not in str(st) for st in hidden)
