"""Card multisets shared by the games' states: hands, decks and discards as `Counter`s."""

from __future__ import annotations

from collections import Counter


def copy_counter(c: Counter[str]) -> Counter[str]:
    """A copy of a Counter without Counter.__init__'s per-call type checks (snapshots are taken often)."""
    out: Counter[str] = Counter.__new__(Counter)
    dict.update(out, c)
    return out
