"""Every Socket.IO message is answered (issue 16, item 5): messages python-socketio cannot decode get an
`error` to the sender, or a refusal and a closed connection, with one log line and no traceback. A real
engine.io client on a real server sends the raw packets an attacker would."""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

import engineio
import pytest

from tests.test_web_support import new_service, running

BAD: dict[str, Any] = {
    "huge integer": '2/table,["act",{"text":' + "9" * 5000 + "}]",
    "deep nesting": '2/table,["act",' + "[" * 30_000 + "]" * 30_000 + "]",
    "binary placeholder never completed": '51-/table,["act",{"_placeholder":true,"num":0}]',
    "bare binary attachment": b"\x00\x01\x02",
    "broken JSON": '2/table,["act",{"text":',
    "unknown packet type": "9/table,[]",
    "CONNECT_ERROR from a client": '4/table,{"message":"x"}',
}


class Raw:
    """An engine.io connection that speaks Socket.IO packets by hand."""

    def __init__(self, port: int) -> None:
        self.messages: list[Any] = []
        self.closed = threading.Event()
        self.eio = engineio.Client()
        self.eio.on("message", self.messages.append)
        self.eio.on("disconnect", lambda *_: self.closed.set())
        self.eio.connect(f"http://127.0.0.1:{port}", transports=["websocket"], engineio_path="socket.io")

    def wait(self, test: Any, timeout: float = 5.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in list(self.messages):
                if test(m):
                    return m
            time.sleep(0.01)
        return None


def errors_in(message: Any) -> dict[str, Any] | None:
    if isinstance(message, str) and message.startswith('2/table,["error"'):
        data: dict[str, Any] = json.loads(message[len("2/table,"):])[1]
        return data
    return None


@pytest.mark.parametrize("what", sorted(BAD))
def test_undecodable_messages_get_an_error(tmp_path: Path, what: str, caplog: pytest.LogCaptureFixture) -> None:
    service = new_service(tmp_path)
    with running(service) as server:
        raw = Raw(server.port)
        raw.eio.send('0/table,{"pin":"4711"}')
        assert raw.wait(lambda m: isinstance(m, str) and m.startswith("0/table,")), "not connected"
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            raw.eio.send(BAD[what])
            answer = raw.wait(lambda m: errors_in(m) is not None)
            assert answer is not None, f"{what}: no answer"
            error = errors_in(answer)
            assert error is not None and error["kind"] == "invalid" and "undecodable message" in error["error"]
            # the connection still works: a good message after the bad one is answered
            raw.eio.send('2/table,7["resume",{"since":0}]')
            assert raw.wait(lambda m: isinstance(m, str) and m.startswith("3/table,7")), "later message unanswered"
        raw.eio.disconnect()
    records = [r for r in caplog.records if r.levelno >= logging.WARNING and "undecodable" in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is None
    assert not any(r.exc_info for r in caplog.records), "a traceback was logged"
    assert service.table.record.last_seq == 1


def test_undecodable_before_joining_closes_with_a_reason(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    with running(service) as server:
        raw = Raw(server.port)
        raw.eio.send('2/table,["act",{"text":' + "9" * 5000 + "}]")
        refusal = raw.wait(lambda m: isinstance(m, str) and m.startswith("4/table,"))
        assert refusal is not None and "undecodable message" in refusal
        assert raw.closed.wait(5.0)
