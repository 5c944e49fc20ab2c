"""Direct legality checks agree with trial application, action for action and in order, on random play."""

from __future__ import annotations

import random

import pytest

from tests.perft_positions import random_position


@pytest.mark.parametrize("seed", range(12))
def test_direct_legal_actions_equal_trial_applied_candidates(seed: int) -> None:
    game = random_position(seed + 100, 0)
    rng = random.Random(seed)
    for step in range(400):
        if game.result:
            break
        direct = game.legal_actions()
        assert direct == game.legal_actions_by_trial(), f"step {step}:\n{game.to_text()}"
        game.push(rng.choice(direct))
