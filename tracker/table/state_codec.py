"""A JSON codec for the rules' game state, so snapshots of derived state can sit beside the record.

Only the state's own record types are decoded (a fixed list, never a class named by the data), tuples,
frozensets and dicts with non-string keys are tagged, so `decode(encode(s)) == s` exactly.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rules.kipukas.state import Bout, CardState, GameState, Pending, PlayerState
from tracker.errors import RecordError

TYPES: dict[str, type[Any]] = {t.__name__: t for t in (Bout, CardState, GameState, Pending, PlayerState)}


def encode(value: Any) -> Any:
    """A JSON-ready form of `value` (a game state or any part of it)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if name not in TYPES:
            raise RecordError(f"cannot snapshot a {name}")
        return {"@": name, **{f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, tuple):
        return {"@t": [encode(v) for v in value]}
    if isinstance(value, frozenset):
        return {"@f": sorted((encode(v) for v in value), key=repr)}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"@d": {k: encode(v) for k, v in value.items()}}
        return {"@k": [[encode(k), encode(v)] for k, v in value.items()]}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise RecordError(f"cannot snapshot a value of type {type(value).__name__}")


def decode(data: Any) -> Any:
    """The inverse of `encode`; a `RecordError` names what is malformed."""
    if isinstance(data, list):
        raise RecordError("malformed snapshot: a bare list")
    if not isinstance(data, dict):
        return data
    if "@t" in data:
        return tuple(decode(v) for v in data["@t"])
    if "@f" in data:
        return frozenset(decode(v) for v in data["@f"])
    if "@d" in data:
        return {str(k): decode(v) for k, v in data["@d"].items()}
    if "@k" in data:
        return {decode(k): decode(v) for k, v in data["@k"]}
    cls = TYPES.get(str(data.get("@")))
    if cls is None:
        raise RecordError(f"malformed snapshot: unknown record type {data.get('@')!r}")
    try:
        return cls(**{k: decode(v) for k, v in data.items() if k != "@"})
    except TypeError as exc:
        raise RecordError(f"malformed snapshot of a {cls.__name__}: {exc}") from exc


def decode_state(data: Any) -> GameState:
    state = decode(data)
    if not isinstance(state, GameState):
        raise RecordError("malformed snapshot: not a game state")
    return state
