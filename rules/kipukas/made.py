"""Generated actions built once and shared (`make`): actions are immutable, and building a frozen dataclass
costs ten times a dictionary lookup, which matters when a position has dozens of legal actions."""

from __future__ import annotations

from typing import TypeVar

from rules.kipukas.notation import Action

A = TypeVar("A", bound=Action)

MADE_LIMIT = 1 << 17  # entries before a table is cleared (a long-running table meets many card ids)
_MADE: dict[type[Action], dict[tuple[object, ...], Action]] = {}  # per kind: arguments -> the action


def table(cls: type[A]) -> dict[tuple[object, ...], A]:
    """`make`'s table for one kind, for loops that look actions up inline (``t.get(args) or make(cls, *args)``:
    the call is paid only the first time). The table may be cleared at any time; never write into it."""
    found = _MADE.get(cls)
    if found is None:
        found = _MADE[cls] = {}
    return found  # type: ignore[return-value]


def make(cls: type[A], *args: object) -> A:
    """The action ``cls(*args)``, the same object every time it is asked for. One table per kind, keyed by
    the argument tuple the call already built (no second tuple with the kind in it)."""
    table = _MADE.get(cls)
    if table is None:
        table = _MADE[cls] = {}
    found = table.get(args)
    if found is None:
        if len(table) >= MADE_LIMIT:
            table.clear()
        found = table[args] = cls(*args)  # type: ignore[arg-type]
    return found  # type: ignore[return-value]
