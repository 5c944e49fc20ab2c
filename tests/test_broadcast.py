"""The broadcast package on its own: websocket frames as a real websocket parser reads them, deltas that
rebuild any JSON state exactly, and room broadcasts merged while a delivery is under way."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wsproto.frame_protocol import FrameProtocol, Opcode

from broadcast.coalesce import Coalescer
from broadcast.deltas import apply, diff
from broadcast.frames import FramedPacket, FramedText, ws_text_frame
from tests.threads import start_daemon


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70000])
def test_a_prebuilt_frame_is_what_a_websocket_client_reads(size: int) -> None:
    text = ("é" * size)[:size] if size % 2 else "x" * size
    client = FrameProtocol(client=True, extensions=[])
    client.receive_bytes(ws_text_frame(text))
    frames = list(client.received_frames())
    assert [(f.opcode, f.payload, f.frame_finished, f.message_finished) for f in frames] == [
        (Opcode.TEXT, text, True, True)]


def test_a_framed_packet_encodes_once_as_engineio_would() -> None:
    packet = FramedPacket('2/watch,["rows",[{"seq":1}]]')
    first = packet.encode()
    assert isinstance(first, FramedText) and first == '42/watch,["rows",[{"seq":1}]]'
    assert packet.encode(b64=True) is first  # the same object for every socket, polling or websocket
    assert first.frame == ws_text_frame(first)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
                    max_leaves=12)
STATE = st.dictionaries(st.sampled_from(["version", "seq", "log", "a", "b", "c"]), JSON, max_size=6)


@settings(max_examples=150, deadline=None)
@given(STATE, STATE)
def test_a_delta_rebuilds_the_new_state_exactly(old: dict[str, Any], new: dict[str, Any]) -> None:
    delta = json.loads(json.dumps(diff(old, new)))  # what goes over the wire
    assert apply(old, delta) == new


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 12), st.integers(0, 12), st.integers(0, 5))
def test_a_window_that_moved_on_sends_only_its_new_end(size: int, drop: int, more: int) -> None:
    log = [{"seq": n, "text": f"row {n}"} for n in range(size)]
    added = [{"seq": n, "text": f"row {n}"} for n in range(size, size + more)]
    old, new = {"version": 1, "seq": size, "log": log}, {"version": 2, "seq": size + more, "log": log[drop:] + added}
    delta = diff(old, new)
    assert apply(old, delta) == new
    if log[drop:] and (drop or added):
        assert delta["lists"]["log"] == {"drop": drop, "append": added} and "log" not in delta["set"]


def test_a_delta_refuses_a_state_that_is_not_its_base() -> None:
    a, b = {"version": 1, "seq": 1, "x": 1}, {"version": 2, "seq": 2, "x": 2}
    delta = diff(a, b)
    with pytest.raises(ValueError, match=r"delta from \[1, 1\] cannot apply to state \[2, 2\]"):
        apply(b, delta)


def test_broadcasts_that_arrive_during_a_delivery_are_merged_in_order() -> None:
    sent: list[tuple[str, str, Any]] = []
    busy, release = threading.Event(), threading.Event()

    def deliver(namespace: str, room: str, event: str, data: Any) -> None:
        sent.append((room, event, data))
        busy.set()
        release.wait(5)

    merger = Coalescer(deliver, start_daemon)
    merger.add("/watch", "watch:1", "rows", [1], "append")
    assert busy.wait(5)  # the first goes at once, alone
    for n in (2, 3, 4):
        merger.add("/watch", "watch:1", "rows", [n], "append")
    merger.add("/watch", "watch:2", "rows", [10], "append")
    merger.add("/watch", "watch:1", "status", {"turn": 1}, "latest")
    merger.add("/watch", "watch:1", "status", {"turn": 2}, "latest")
    release.set()
    end = time.monotonic() + 5
    while len(sent) < 4 and time.monotonic() < end:
        time.sleep(0.01)
    assert sent == [("watch:1", "rows", [1]), ("watch:1", "rows", [2, 3, 4]), ("watch:2", "rows", [10]),
                    ("watch:1", "status", {"turn": 2})]
    assert merger.merged == 3
    with pytest.raises(TypeError, match="only a list can be appended"):
        merger.add("/watch", "watch:1", "rows", {"not": "a list"}, "append")
    with pytest.raises(ValueError, match="coalesce mode 'sometimes'"):
        merger.add("/watch", "watch:1", "rows", [1], "sometimes")
