"""Reading and validating map files (format ``kipukas-map/1``, documented in docs/map-format.md).

Every problem names the file and the key path, e.g. ``starter.json: stands[3].pos_mm: expected 3 numbers``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar

from rules.core.errors import MapFileError

T = TypeVar("T")

GEOGRAPHIES = ("mountain", "forest", "plains", "volcanic", "water", "heavens", "underground", "digital")
STAND_KINDS = ("territory", "movement")
FORMAT = "kipukas-map/1"


class Reader:
    """Typed getters over one JSON object; each error names source and key path."""

    def __init__(self, source: str, data: Any, path: str = "") -> None:
        self.source = source
        self.path = path
        if not isinstance(data, dict):
            self.fail("", f"expected an object, got {type(data).__name__}")
        self.data: dict[str, Any] = data

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def fail(self, name: str, problem: str) -> None:
        raise MapFileError(self.source, self.key(name) if name else (self.path or "<top>"), problem)

    def only(self, *allowed: str) -> None:
        unknown = sorted(set(self.data) - set(allowed))
        if unknown:
            self.fail(unknown[0], f"unknown key (allowed: {', '.join(allowed)})")

    def get(self, name: str, check: Callable[[Any], T | None], what: str, default: Any = ...) -> T:
        if name not in self.data:
            if default is ...:
                self.fail(name, "missing")
            return default  # type: ignore[no-any-return]
        value = check(self.data[name])
        if value is None:
            self.fail(name, f"expected {what}, got {self.data[name]!r}")
        return value  # type: ignore[return-value]

    def text(self, name: str, default: Any = ..., choices: tuple[str, ...] | None = None) -> str:
        value = self.get(name, lambda v: v if isinstance(v, str) and v else None, "a non-empty string", default)
        if choices is not None and value not in choices:
            self.fail(name, f"{value!r} is not one of {', '.join(choices)}")
        return value

    def flag(self, name: str, default: Any = ...) -> bool:
        return self.get(name, lambda v: v if isinstance(v, bool) else None, "true or false", default)

    def number(self, name: str, default: Any = ...) -> float:
        return self.get(name, _as_number, "a number", default)

    def vector(self, name: str, n: int) -> tuple[float, ...]:
        def check(v: Any) -> tuple[float, ...] | None:
            if not isinstance(v, list) or len(v) != n:
                return None
            nums = [_as_number(x) for x in v]
            return None if any(x is None for x in nums) else tuple(x for x in nums if x is not None)

        return self.get(name, check, f"{n} numbers")

    def objects(self, name: str, default: Any = ...) -> list[Reader]:
        items = self.get(name, lambda v: v if isinstance(v, list) else None, "a list", default)
        return [Reader(self.source, item, f"{self.key(name)}[{i}]") for i, item in enumerate(items)]


def _as_number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v)


def load_json(path: str) -> tuple[str, Any]:
    """Read a JSON file, turning I/O and syntax errors into `MapFileError` naming the file."""
    try:
        with open(path, encoding="utf-8") as fh:
            return path, json.load(fh)
    except OSError as exc:
        raise MapFileError(path, "<file>", f"cannot read: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise MapFileError(path, "<file>", f"not JSON: {exc.msg} at line {exc.lineno}") from exc


def load_packaged(name: str) -> tuple[str, Any]:
    """Read a map shipped with the package, e.g. ``starter``."""
    res = resources.files("rules.kipukas") / "data" / "maps" / f"{name}.json"
    try:
        text = res.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise MapFileError(f"{name}.json", "<file>", "no packaged map of that name") from exc
    return f"{name}.json", json.loads(text)
