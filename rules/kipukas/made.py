"""Generated actions built once and shared (`make`): actions are immutable, and building a frozen dataclass
costs ten times a dictionary lookup, which matters when a position has dozens of legal actions."""

from __future__ import annotations

from typing import TypeVar

from rules.kipukas.notation import Action

A = TypeVar("A", bound=Action)

MADE_LIMIT = 1 << 17  # entries before a table is cleared (a long-running table meets many card ids)
_MADE: dict[tuple[object, ...], Action] = {}


def make(cls: type[A], *args: object) -> A:
    """The action ``cls(*args)``, the same object every time it is asked for."""
    key = (cls, *args)
    found = _MADE.get(key)
    if found is None:
        if len(_MADE) >= MADE_LIMIT:
            _MADE.clear()
        found = _MADE[key] = cls(*args)  # type: ignore[arg-type]
    return found  # type: ignore[return-value]
