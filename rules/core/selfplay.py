"""Random legal play through the game interface: for benches and property tests, never for refereeing.

`play` picks among `legal_actions()` only, weighted by verb so that a game makes progress (fighting
rather than passing); seeded, so the same `random.Random` gives the same game."""

from __future__ import annotations

import random
from collections.abc import Mapping

from rules.core.interface import TableGame


def choose(lines: list[str], rng: random.Random, weights: Mapping[str, float]) -> str:
    """One of `lines` (non-empty), weighted by the verb (the second word)."""
    if not lines:
        raise ValueError("choose needs at least one legal action")
    return rng.choices(lines, [weights.get(line.split()[1], 1.0) for line in lines])[0]


def play(game: TableGame, rng: random.Random, max_steps: int, weights: Mapping[str, float]) -> int:
    """Play random legal actions until the game ends, nothing is legal, or `max_steps`; the steps taken."""
    for n in range(max_steps):
        if game.result is not None:
            return n
        lines = game.legal_actions()
        if not lines:
            return n
        verdict = game.apply(choose(lines, rng, weights))
        if not verdict.accepted:
            raise AssertionError(f"a legal action was refused: {verdict.message} ({verdict.rule})")
    return max_steps
