"""Direct legal-action generation agrees with trial application of every candidate, action for action and
in order, over uniformly random play and over the progress player's games (more fights, more souls)."""

from __future__ import annotations

import random

import pytest

from rules.kipukas.context import Ctx
from rules.kipukas.selfplay import choose
from tests.perft_positions import random_position


@pytest.mark.parametrize("seed", range(16))
def test_direct_legal_actions_equal_trial_applied_candidates(seed: int) -> None:
    game = random_position(seed + 100, 0)
    rng = random.Random(seed)
    progress = seed % 2 == 1
    for step in range(500):
        if game.result:
            break
        direct = game.legal_actions()
        assert direct == game.legal_actions_by_trial(), f"step {step}:\n{game.to_text()}"
        ctx = Ctx(game.state, game.board, game.catalog)
        game.push(choose(ctx, direct, rng) if progress else rng.choice(direct))


def test_copied_and_pickled_states_rebuild_their_indices() -> None:
    import copy
    import pickle

    game = random_position(3, 160)
    expected = game.legal_actions()
    for state in (copy.deepcopy(game.state), pickle.loads(pickle.dumps(game.state)), game.state.copy()):
        assert state == game.state and state.to_text() == game.to_text()
        assert list(state.play) == list(game.state.play)
        game.state = state
        assert game.legal_actions() == expected
