"""The in-place model (python-chess's push/pop): `apply` changes the state in place and keeps an undo
record; a rejection, trial application and `undo` leave exactly the state that was there, indices
included; `Game.history` still gives each earlier state, fixed at the moment it is read."""

from __future__ import annotations

import random

import pytest

from rules.kipukas.context import Ctx
from rules.kipukas.game import Game
from rules.kipukas.legal import candidates
from rules.kipukas.selfplay import choose
from rules.kipukas.state import CardTable, GameState
from tests.perft_positions import random_position


def indices(state: GameState) -> tuple[object, ...]:
    """The card table's indices in a comparable form (member order within an index does not matter)."""
    table = state.cards
    assert isinstance(table, CardTable)
    owned = {k: dict(v) for k, v in table.owned.items() if v}
    on = {k: dict(v) for k, v in table.at_stand().items() if v}
    return owned, list(table.play.items()), on, sorted(table.touched), table.settled


def rebuilt(state: GameState) -> tuple[object, ...]:
    """The same indices built from scratch from the cards (what a fresh table computes)."""
    fresh = CardTable(dict(state.cards))
    owned = {k: dict(v) for k, v in fresh.owned.items() if v}
    on = {k: dict(v) for k, v in fresh.at_stand().items() if v}
    return owned, list(fresh.play.items()), on


@pytest.mark.parametrize("seed", [3, 8])
def test_rejections_and_trials_leave_state_and_indices_exactly_as_they_were(seed: int) -> None:
    """Every candidate, legal or not (free actions too), tried at every step: the handlers fail at every
    depth, after some of their writes, and the undo record must take all of them back."""
    game = random_position(seed, 0)
    rng = random.Random(seed)
    tried = rejected = 0
    for _ in range(120):
        if game.result:
            break
        text, kept, before = game.to_text(), game.state.copy(), indices(game.state)
        for action in candidates(Ctx(game.state, game.board, game.catalog, game.style), free=True)[:60]:
            ok = game.is_legal(action)
            if not ok:
                assert not game.apply(action).accepted
                rejected += 1
            tried += 1
            assert game.to_text() == text, action
        assert game.state == kept and indices(game.state) == before
        assert indices(game.state)[:3] == rebuilt(game.state)
        game.push(choose(Ctx(game.state, game.board, game.catalog, game.style), game.legal_actions(), rng))
    assert rejected > 100 and tried > rejected  # the walk met many rejections, not a handful


def test_history_gives_every_earlier_state_and_undo_walks_back_through_them() -> None:
    game = random_position(5, 0)
    rng = random.Random(5)
    states: list[GameState] = []  # the reference: a copy of the state before each action
    for _ in range(150):
        if game.result:
            break
        states.append(game.state.copy())
        game.push(choose(Ctx(game.state, game.board, game.catalog, game.style), game.legal_actions(), rng))
    history = game.history
    assert len(history) == len(states)
    assert [st for _, st in history] == states
    assert [st.to_text() for _, st in history[-5:]] == [st.to_text() for st in states[-5:]]
    for i in range(len(states) - 1, len(states) - 40, -1):
        action = game.undo()
        assert action == history[i][0]
        assert game.state == states[i] and indices(game.state)[:3] == rebuilt(game.state)


def test_a_history_view_is_fixed_when_taken_and_trims_only_the_oldest() -> None:
    game = random_position(2, 60)
    assert len(game.history) == 60
    view = game.history
    last_action, last_state = view[-1]
    now = game.state.copy()
    game.undo()
    game.undo()
    assert len(view) == 60 and view[-1] == (last_action, last_state)  # later undos do not change the view
    ahead = game.history  # taken now; its current state is copied only when the game changes
    game.push(game.legal_actions()[0])
    assert len(ahead) == 58 and ahead[-1][1] == view[-3][1] and ahead._state(58) != game.state
    assert view._state(60) == now
    game.undo()
    assert len(game.history) == 58
    del game.history[:-10]  # the tracker's memory cap
    assert len(game.history) == 10
    with pytest.raises(ValueError, match="oldest"):
        del game.history[3:5]  # undo records chain from the newest: the middle cannot go
    for _ in range(10):
        game.undo()
    with pytest.raises(IndexError, match="nothing to undo"):
        game.undo()
    assert game.state == view[48][1]


def test_a_game_owns_its_state_so_forks_and_kept_states_never_change() -> None:
    game = random_position(4, 80)
    kept = game.state
    text = kept.to_text()
    fork = Game(game.state, game.board, game.catalog, game.style)
    fork.history = list(game.history)
    rng = random.Random(4)
    for _ in range(20):
        fork.push(choose(Ctx(fork.state, fork.board, fork.catalog, fork.style), fork.legal_actions(), rng))
    assert game.to_text() == text and kept.to_text() == text
    for _ in range(20):
        fork.undo()
    fork.undo()  # into the history handed in: whole states
    game.undo()
    assert fork.state == game.state
    handed = game.state.copy()
    game.state = handed  # a state handed in is copied: the game's later actions leave the caller's alone
    before = handed.to_text()
    game.push(game.legal_actions()[0])
    assert handed.to_text() == before != game.to_text()
