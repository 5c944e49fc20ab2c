"""Perft-like counts: the exact number of legal-action sequences 1-3 deep from fixed positions.

The counts were recorded on the engine that trial-applied every candidate action; any change to what is
legal (a speed change that drops or adds an action) changes a count here. A rule change that changes a
count on purpose must update the table in tests/perft_positions.py in the same commit, saying why.
"""

from __future__ import annotations

import pytest

from tests.perft_positions import GOLDEN_PERFT, RANDOM_PERFT, perft, position, random_position


@pytest.mark.parametrize(("name", "n"), sorted(GOLDEN_PERFT))
def test_golden_positions_have_exact_perft_counts(name: str, n: int) -> None:
    game = position(name, n)
    before = game.to_text()
    assert tuple(perft(game, d) for d in (1, 2, 3)) == GOLDEN_PERFT[(name, n)]
    assert game.to_text() == before, "perft must leave the position as it found it"


@pytest.mark.parametrize(("seed", "n"), sorted(RANDOM_PERFT))
def test_random_positions_have_exact_perft_counts(seed: int, n: int) -> None:
    game = random_position(seed, n)
    assert tuple(perft(game, d) for d in (1, 2, 3)) == RANDOM_PERFT[(seed, n)]
