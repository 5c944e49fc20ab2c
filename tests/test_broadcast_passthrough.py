"""The store's rows announcements passed through as bytes (`broadcast.passthrough`), and the coalescer's
ready queue taking a room's broadcasts at its turn (issue 20, item 1)."""

from __future__ import annotations

import json
import threading
import time
from types import SimpleNamespace
from typing import Any

import socketio
from hypothesis import given, settings
from hypothesis import strategies as st
from socketio import packet as sio_packet

from broadcast.coalesce import Coalescer
from broadcast.passthrough import socketio_text, split
from broadcast.rooms import participants
from hub.namespaces import Broadcaster, public_row
from tests.threads import start_daemon


def announced(table: str, rows: list[dict[str, Any]]) -> bytes:
    """The message the store publishes for these rows, built as its Lua script builds it."""
    cfg = SimpleNamespace(spectator_delay_min=0)
    sio = SimpleNamespace(server=SimpleNamespace(manager=SimpleNamespace(channel="kipukas-hub")))
    ann = Broadcaster(cfg, None, sio).announce(table, rows)  # type: ignore[arg-type]
    assert ann is not None
    return (ann.prefix + ",".join(ann.rows) + ann.suffix).encode()


def row(seq: int, text: str) -> dict[str, Any]:
    raw = {"seq": seq, "ts": 1_700_000_000.25 + seq, "kind": "action", "body": {"text": text, "accepted": True}}
    return public_row("7", "g-1", raw)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=6))
def test_a_passed_through_packet_holds_what_python_socketio_would_send(texts: list[str]) -> None:
    texts = [*texts, ']],"binary":false,"namespace":"/watch","room":"watch:9"']  # the marker, inside a row
    rows = [row(n + 1, t) for n, t in enumerate(texts)]
    message = announced("7", rows)
    raw = split(message)
    assert raw is not None and raw.room == "watch:7"
    assert raw.stamps == tuple(r["ts"] for r in rows)
    decoded = json.loads(message)  # python-socketio's own way: decode, then encode the packet again
    ours = socketio_text([raw])
    theirs = sio_packet.Packet(sio_packet.EVENT, namespace="/watch", data=["rows", decoded["data"][0]]).encode()
    assert ours.startswith('2/watch,["rows",') and theirs.startswith('2/watch,["rows",')
    assert json.loads(ours[len("2/watch,"):]) == json.loads(theirs[len("2/watch,"):]) == ["rows", rows]


def test_two_announcements_go_as_one_packet_in_order() -> None:
    first, second = split(announced("3", [row(1, "a"), row(2, "b")])), split(announced("3", [row(3, "c")]))
    assert first is not None and second is not None
    out = json.loads(socketio_text([first, second])[len("2/watch,"):])
    assert [r["seq"] for r in out[1]] == [1, 2, 3]


def test_any_other_message_is_left_to_python_socketio() -> None:
    good = announced("3", [row(1, "a")])
    assert split(good) is not None
    others = [
        good.decode(),  # not bytes
        good.replace(b'"event":"rows"', b'"event":"status"'),
        good.replace(b'"binary":false', b'"binary":true'),
        good.replace(b'"host_id":"hub-store"', b'"host_id":"abc"'),
        good.replace(b'"room":"watch:3"', b'"room":null'),
        good.replace(b'"room":"watch:3"', b'"room":"watch:3\\"'),
        good[:-1],
        json.dumps({"method": "emit", "event": "rows", "data": [[]], "room": "watch:3"}).encode(),
    ]
    assert [split(m) for m in others] == [None] * len(others)


def test_a_room_waiting_its_turn_takes_what_arrived_meanwhile() -> None:
    """Ready queue, not a sweep: watch:2's rows that come while watch:1 is being sent go with the ones
    already waiting for it, in one message (a sweep had taken them at its start and sent two)."""
    sent: list[tuple[str, Any]] = []
    started = [threading.Event(), threading.Event()]
    release = [threading.Event(), threading.Event()]

    def deliver(namespace: str, room: str, event: str, data: Any) -> None:
        n = len(sent)
        sent.append((room, data))
        if n < 2:  # watch:1's two deliveries each hold the task until released
            started[n].set()
            release[n].wait(5)

    merger = Coalescer(deliver, start_daemon)
    merger.add("/watch", "watch:1", "rows", [1], "append")
    assert started[0].wait(5)
    merger.add("/watch", "watch:1", "rows", [2], "append")
    merger.add("/watch", "watch:2", "rows", [10], "append")
    release[0].set()
    assert started[1].wait(5)  # watch:1's second delivery is under way; watch:2 waits its turn
    merger.add("/watch", "watch:2", "rows", [11], "append")
    release[1].set()
    end = time.monotonic() + 5
    while len(sent) < 3 and time.monotonic() < end:
        time.sleep(0.005)
    time.sleep(0.05)
    assert sent == [("watch:1", [1]), ("watch:1", [2]), ("watch:2", [10, 11])]


def test_a_rooms_participants_are_what_python_socketio_lists() -> None:
    manager = socketio.Manager()
    manager.set_server(socketio.Server())
    manager.initialize()
    sids = [manager.connect(f"e{n}", "/watch") for n in range(5)]
    for n, sid in enumerate(sids):
        manager.enter_room(sid, "/watch", f"watch:{n % 2}", eio_sid=f"e{n}")
    for room in ("watch:0", "watch:1", "watch:9", None, ["watch:0", "watch:1"]):
        assert sorted(participants(manager, "/watch", room)) == sorted(manager.get_participants("/watch", room))
    assert len(participants(manager, "/watch", "watch:0")) == 3
