"""Schemas of the Socket.IO events the pages send, and their checking.

Every event carries exactly one JSON object with known keys of known types; anything else is answered
with a `BadMessage` that names what was wrong (the event, the key, the expected type or bound), so a
client developer can fix it from the error alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_MESSAGE_BYTES = 4096   # our own check, after engine.io's transport-level `max_http_buffer_size`
MAX_TEXT = 300             # a notation line or a reason
MAX_SEQ = 10**12
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class BadMessage(ValueError):
    """A message that does not match its event's schema (or is too big); nothing was done."""


@dataclass(frozen=True, slots=True)
class Text:
    max_len: int = MAX_TEXT
    min_len: int = 0

    def check(self, event: str, key: str, value: Any) -> str:
        if not isinstance(value, str):
            raise BadMessage(f"{event}: '{key}' must be a string, got {_kind(value)}")
        if not self.min_len <= len(value) <= self.max_len:
            raise BadMessage(f"{event}: '{key}' must be {self.min_len} to {self.max_len} characters, "
                             f"got {len(value)}")
        if CONTROL.search(value):
            raise BadMessage(f"{event}: '{key}' must be one line without control characters")
        return value


@dataclass(frozen=True, slots=True)
class Whole:
    low: int = 0
    high: int = MAX_SEQ

    def check(self, event: str, key: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadMessage(f"{event}: '{key}' must be a whole number, got {_kind(value)}")
        if not self.low <= value <= self.high:
            raise BadMessage(f"{event}: '{key}' must be within {self.low}..{self.high}, got {value}")
        return value


@dataclass(frozen=True, slots=True)
class Flag:
    def check(self, event: str, key: str, value: Any) -> bool:
        if not isinstance(value, bool):
            raise BadMessage(f"{event}: '{key}' must be true or false, got {_kind(value)}")
        return value


Field = Text | Whole | Flag

# event -> (required fields, optional fields)
SCHEMAS: dict[str, tuple[dict[str, Field], dict[str, Field]]] = {
    "act": ({"text": Text(min_len=1)}, {}),
    "undo": ({"reason": Text(min_len=3)}, {}),
    "correct": ({"target": Whole(1), "text": Text(), "reason": Text(min_len=3)}, {}),
    "resume": ({"since": Whole(0)}, {}),
    "call_judge": ({}, {}),
    "confirm_roll": ({"id": Whole(1)}, {}),
}
AUTH_FIELDS: dict[str, Field] = {"token": Text(max_len=64, min_len=1), "pin": Text(max_len=64),
                                 "since": Whole(0), "deltas": Flag()}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def size_of(args: tuple[Any, ...]) -> int:
    """Bytes of the message's JSON (what the client sent, as near as we can tell after decoding)."""
    try:
        return len(json.dumps(args, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError):
        return MAX_MESSAGE_BYTES + 1  # binary or unencodable payloads are not part of any schema


def check_fields(event: str, data: Any, required: dict[str, Field], optional: dict[str, Field]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise BadMessage(f"{event}: expected an object like {_example(required)}, got {_kind(data)}")
    unknown = sorted(str(k) for k in data if k not in required and k not in optional)
    if unknown:
        raise BadMessage(f"{event}: unknown key '{unknown[0][:40]}' (known: {', '.join([*required, *optional])})")
    out: dict[str, Any] = {}
    for key, field in required.items():
        if key not in data:
            raise BadMessage(f"{event}: missing '{key}' (expected {_example(required)})")
        out[key] = field.check(event, key, data[key])
    for key, field in optional.items():
        if key in data and data[key] is not None:
            out[key] = field.check(event, key, data[key])
    return out


def validate(event: str, args: tuple[Any, ...]) -> dict[str, Any]:
    """The checked fields of one event, or `BadMessage` saying what is wrong."""
    if event not in SCHEMAS:
        raise BadMessage(f"unknown event {event[:40]!r} (known: {', '.join(SCHEMAS)})")
    if size_of(args) > MAX_MESSAGE_BYTES:
        raise BadMessage(f"{event}: message larger than {MAX_MESSAGE_BYTES} bytes")
    if len(args) != 1:
        raise BadMessage(f"{event}: expected one object argument, got {len(args)} arguments")
    required, optional = SCHEMAS[event]
    return check_fields(event, args[0], required, optional)


def validate_auth(auth: Any) -> dict[str, Any]:
    """The connect handler's `auth` dict: optional token, pin, since and deltas (later states as deltas)."""
    if auth is None:
        return {}
    if size_of((auth,)) > MAX_MESSAGE_BYTES:
        raise BadMessage(f"auth: larger than {MAX_MESSAGE_BYTES} bytes")
    return check_fields("auth", auth, {}, AUTH_FIELDS)


def _example(fields: dict[str, Field]) -> str:
    parts = [f'"{k}": {"<number>" if isinstance(f, Whole) else "<text>"}' for k, f in fields.items()]
    return "{" + ", ".join(parts) + "}"
