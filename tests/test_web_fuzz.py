"""Fuzz every Socket.IO handler with malformed messages (>= 10,000 in all): none crashes the server,
none changes the table, and each is answered with an error to its sender."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask_socketio import SocketIOTestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.errors import RulesError
from rules.kipukas.notation import parse
from tests.test_web_support import auth_for, new_service
from tracker.service.service import TableService
from web.app import create_app
from web.namespace import NAMESPACE, Limits
from web.validation import SCHEMAS

BATCH = 20
EXAMPLES = 520
sent = {"messages": 0}

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
                      st.text(max_size=40))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(st.text(max_size=10), inner, max_size=4)),
                          max_leaves=12)


def not_notation(text: str) -> bool:
    try:
        parse(text)
    except (RulesError, ValueError):
        return True
    return False


def valid_fields(event: str) -> dict[str, Any]:
    return {"act": {"text": "red affinity Avian"}, "undo": {"reason": "a good reason"},
            "correct": {"target": 2, "text": "", "reason": "a good reason"}, "resume": {"since": 0},
            "call_judge": {}, "confirm_roll": {"id": 2}}[event]


@st.composite
def malformed(draw: st.DrawFn) -> tuple[str, tuple[Any, ...]]:
    """An event and arguments that are wrong by construction (never a valid request)."""
    event = draw(st.sampled_from([*SCHEMAS, "connect_", "state", "", "act ", "__init__"]))
    if event not in SCHEMAS:
        return event, (draw(json_value),)
    good = valid_fields(event)
    how = draw(st.sampled_from(["not-object", "missing", "extra", "wrong-type", "too-long", "control", "args",
                                "bad-notation", "out-of-range"] if good else ["not-object", "extra", "args"]))
    data: Any = dict(good)
    if how == "not-object":
        data = draw(json_value.filter(lambda v: not isinstance(v, dict)))
    elif how == "missing":
        data.pop(draw(st.sampled_from(sorted(good))))
    elif how == "extra":
        data[draw(st.text(min_size=1, max_size=12).filter(lambda k: k not in good))] = draw(json_value)
    elif how == "wrong-type":
        key = draw(st.sampled_from(sorted(good)))
        wrong = st.one_of(st.none(), st.booleans(), st.floats(), st.lists(json_leaf, max_size=2),
                          st.integers() if isinstance(good[key], str) else st.text(max_size=5))
        data[key] = draw(wrong)
    elif how == "too-long":
        key = draw(st.sampled_from([k for k, v in good.items() if isinstance(v, str)] or ["x"]))
        data[key] = "a" * draw(st.integers(301, 6000))
    elif how == "control":
        key = draw(st.sampled_from([k for k, v in good.items() if isinstance(v, str)] or ["x"]))
        data[key] = draw(st.text(max_size=10)) + draw(st.sampled_from(["\n", "\x00", "\x1b", "\x7f"]))
    elif how == "args":
        return event, tuple(draw(st.lists(json_value, max_size=3).filter(lambda a: len(a) != 1)))
    elif how == "bad-notation" and event == "act":
        data["text"] = draw(st.text(min_size=1, max_size=60, alphabet=st.characters(min_codepoint=32,
                                                                                   max_codepoint=0x2FF))
                            .filter(lambda t: t.strip() != "" and not_notation(t)))
    else:  # out of range numbers, or too-short reasons
        data = {**good, **({"since": -1} if event == "resume" else {"target": 0} if event == "correct"
                           else {"reason": "x"} if event == "undo" else {"text": ""})}
    return event, (data,)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TableService, list[SocketIOTestClient]]]:
    service = new_service(tmp_path_factory.mktemp("fuzz"))
    service.table.act("phone:red", "red affinity Avian")
    app, sio = create_app(service, Limits(rate_per_s=1e9, burst=10**9, strikes_to_disconnect=10**9))
    clients = [sio.test_client(app, namespace=NAMESPACE, auth=auth_for(service, who))
               for who in ("red", "judge", "spectator")]
    assert all(c.is_connected(NAMESPACE) for c in clients)
    yield service, clients
    assert sent["messages"] >= 10_000, f"only {sent['messages']} malformed messages were sent"


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
@given(batch=st.lists(st.tuples(st.integers(0, 2), malformed()), min_size=BATCH, max_size=BATCH))
def test_malformed_messages_change_nothing_and_get_an_error(
        table: tuple[TableService, list[SocketIOTestClient]], batch: list[tuple[int, tuple[str, tuple[Any, ...]]]]
) -> None:
    service, clients = table
    before = (service.version(), service.table.record.last_seq, service.table.game.to_text())
    for who, (event, args) in batch:
        c = clients[who]
        c.get_received(NAMESPACE)
        ack = c.emit(event, *args, namespace=NAMESPACE, callback=True)
        sent["messages"] += 1
        assert c.is_connected(NAMESPACE)
        assert isinstance(ack, dict) and ack["ok"] is False and ack["kind"] in ("invalid", "denied"), (event, args, ack)
        assert [m["args"][0]["error"] for m in c.get_received(NAMESPACE) if m["name"] == "error"] == [ack["error"]]
    assert (service.version(), service.table.record.last_seq, service.table.game.to_text()) == before
