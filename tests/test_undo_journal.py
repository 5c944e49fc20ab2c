"""The undo journal of the state's small dicts (`rules.kipukas.journal`): an action's writes into `players`,
`bottom`, `claims`, `fixed_means` and `overrides` are taken back by `undo`, a rejection and a trial, also when
the dicts were replaced or copied from outside between actions, and a rebuilt earlier state
(`Game.history`) never shares a dict with the live one."""

from __future__ import annotations

import copy
import pickle
import random
from itertools import pairwise

import pytest

from rules.kipukas import turns
from rules.kipukas.context import Ctx
from rules.kipukas.game import Game
from rules.kipukas.journal import MISSING, Journaled
from rules.kipukas.selfplay import choose
from rules.kipukas.state import GameState
from tests.perft_positions import random_position

DICTS = ("players", "bottom", "claims", "fixed_means", "overrides")


def _dicts(state: GameState) -> tuple[dict[object, object], ...]:
    return tuple(dict(getattr(state, name)) for name in DICTS)


def _walk(game: Game, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if game.result:
            return
        game.push(choose(Ctx(game.state, game.board, game.catalog, game.style), game.legal_actions(), rng))


@pytest.mark.parametrize("seed", [4, 9])
def test_undo_walks_back_every_dict_write_of_a_seeded_game(seed: int) -> None:
    """Hundreds of actions (diel rolls clear `fixed_means`, fights fill it, claims change, players' records
    are rebuilt), then every one undone: at each step back the dicts are what they were before the action."""
    game = random_position(seed, 0)
    rng = random.Random(seed)
    before: list[tuple[tuple[dict[object, object], ...], str]] = []
    for _ in range(300):
        if game.result:
            break
        before.append((_dicts(game.state), game.to_text()))
        game.push(choose(Ctx(game.state, game.board, game.catalog, game.style), game.legal_actions(), rng))
    assert len(before) > 100
    for dicts, text in reversed(before):
        game.undo()
        assert _dicts(game.state) == dicts
        assert game.to_text() == text


def test_a_dict_replaced_or_deep_copied_from_outside_is_journaled_from_the_next_action() -> None:
    """A judge tool may set `state.claims` to a new dict, or hand in a deep copy (plain dicts): the next action
    binds them to the journal, so its undo still restores them exactly."""
    game = random_position(5, 40)
    state = game.state
    state.claims = dict(state.claims)  # a plain dict, not journaled yet
    state.players = copy.deepcopy(state.players)
    assert type(state.claims) is dict
    dicts, text = _dicts(state), game.to_text()
    card = next(iter(state.cards))
    game.push(f"judge effect {card} through_enemies on")  # writes into `overrides`
    assert isinstance(state.claims, Journaled) and isinstance(state.overrides, Journaled)
    assert state.overrides[card] == (("through_enemies", True),)
    game.undo()
    assert _dicts(state) == dicts and game.to_text() == text
    assert card not in state.overrides


def test_copies_pickles_and_history_never_share_a_journaled_dict() -> None:
    game = random_position(6, 60)
    rng = random.Random(6)
    _walk(game, rng, 30)
    live = game.state
    for other in (live.copy(), copy.deepcopy(live), pickle.loads(pickle.dumps(live))):
        assert other == live and other.to_text() == live.to_text()
        for name in DICTS:
            assert getattr(other, name) is not getattr(live, name)
    history = game.history
    earlier = [state for _, state in history]
    texts = [state.to_text() for state in earlier]
    _walk(game, rng, 20)  # the live state's dicts keep changing in place
    assert [state.to_text() for state in earlier] == texts
    for state in earlier[-5:]:
        for name in DICTS:
            assert getattr(state, name) is not getattr(game.state, name)


def test_writes_between_actions_are_not_recorded_in_the_last_actions_journal() -> None:
    """As for card writes, the journal records only while an action is applied: an edit made from outside
    after it is not taken back by its undo (the action's own writes are)."""
    game = random_position(7, 30)
    state = game.state
    card = next(iter(state.cards))
    game.push(f"judge effect {card} through_enemies on")
    state.claims["judge-note"] = ("red", "camp")  # an outside edit, not a rule's write
    game.undo()
    assert card not in state.overrides
    assert state.claims.pop("judge-note") == ("red", "camp")


def test_journaled_dict_refuses_writes_it_cannot_record() -> None:
    owner = type("Owner", (), {"journal": None})()
    d = Journaled("claims", owner, {"T1": ("red", "camp")})
    owner.journal = []
    d["T2"] = ("blue", "camp")
    d.setdefault("T3", ("red", "capital"))
    del d["T1"]
    d.update({"T2": ("red", "camp")})
    assert owner.journal == [("claims", "T2", MISSING), ("claims", "T3", MISSING),
                             ("claims", "T1", ("red", "camp")), ("claims", "T2", ("blue", "camp"))]
    with pytest.raises(TypeError, match=r"GameState\.claims is changed one key at a time"):
        d.popitem()


def test_undo_after_a_dict_was_replaced_from_outside_does_not_fail() -> None:
    """A judge tool replaces `claims` after an action that wrote into it: `undo` rewinds the action's writes onto
    the dict that is there (nothing to drop is no error), and the game plays on."""
    game = random_position(8, 0)
    rng = random.Random(8)
    while not game.state.claims:  # play until a set-up action writes a claim
        game.push(choose(Ctx(game.state, game.board, game.catalog, game.style), game.legal_actions(), rng))
    game.state.claims = {}
    game.undo()
    assert game.state.claims == {}
    _walk(game, rng, 40)
    assert game.state.claims


@pytest.mark.parametrize("seed", [4, 9])
def test_undo_records_keep_no_new_object_an_action_did_not_need(seed: int) -> None:
    """Every undo record is kept for the whole game, and each object in it is walked again and again by the
    garbage collector (docs/rules-engine.md, branch rules12): a card write is journaled as two items (id, old
    record) without a pair object, a day's `acted` set is rebuilt only when a new player acts, and a new day
    starts from one shared empty set rather than a new one each time. Speed only: the same seeded game is
    undone exactly (`test_undo_walks_back_every_dict_write_of_a_seeded_game`)."""
    game = random_position(seed, 0)
    rng = random.Random(seed)
    acted: list[frozenset[str]] = []
    card_writes = 0
    for _ in range(300):
        if game.result:
            break
        if game.state.turn >= 1:  # from the first diel cycle on (set-up keeps the state's initial set)
            acted.append(game.state.acted)
        game.push(choose(Ctx(game.state, game.board, game.catalog, game.style), game.legal_actions(), rng))
        journal = game._log[-1][1].journal  # type: ignore[union-attr]  # an in-place action's undo record
        card_writes += sum(1 for entry in journal if type(entry) is not tuple and entry is not None)
        assert not any(type(entry) is tuple and len(entry) == 2 for entry in journal)
    assert card_writes > 50
    equal_pairs = [(a, b) for a, b in pairwise(acted) if a == b]
    assert len(equal_pairs) > 50
    assert all(a is b for a, b in equal_pairs if a)  # an equal non-empty set is the same object
    assert {id(a) for a in acted if not a} == {id(turns._NO_SEATS)}  # every new day's empty set is the shared one
