"""A random player that makes progress: for benches, property tests and demos, never for refereeing.

Uniform random play wanders (it swims, shuffles souls between its own stands and stops attacks), so a
game almost never ends. `choose` still picks among legal actions only, but weights them toward what ends
a game under the rule book: playing souls revealed, moving toward stands the player does not hold,
attacking, and pressing on rather than stopping. Seeded: the same `random.Random` gives the same game.
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Sequence
from itertools import accumulate

from rules.kipukas.context import Ctx
from rules.kipukas.notation import (
    Action,
    Attack,
    Bottom,
    Challenge,
    Craft,
    Draw,
    Initiative,
    Move,
    Play,
    Retreat,
    Reveal,
    Stop,
    Swim,
    Tame,
)

WEIGHTS: dict[type[Action], float] = {
    Attack: 12.0, Reveal: 3.0, Swim: 0.1, Stop: 0.3, Retreat: 0.3, Draw: 6.0, Bottom: 0.1, Craft: 0.5,
    Initiative: 0.5,
}


def weight(c: Ctx, action: Action) -> float:
    """How strongly the progress player prefers `action` (any positive number; legal actions only)."""
    kind = type(action)
    if kind is Move:
        assert isinstance(action, Move)
        goal = action.path[-1]
        territory = c.territory_of(goal)
        mine = c.controls(action.player, territory)
        home = c.board.stands[goal].kind == "territory"
        if not mine and home:
            return 10.0
        return 1.0 if mine else 4.0
    if kind is Play:
        assert isinstance(action, Play)
        return 3.0 if action.face == "revealed" else 0.5
    if kind is Tame:
        assert isinstance(action, Tame)
        return 4.0 if action.outcome == "tamed" else 1.0
    if kind is Challenge:
        assert isinstance(action, Challenge)
        return 3.0 if action.answer == "challenge" else 1.0
    return WEIGHTS.get(kind, 1.0)


def choose(c: Ctx, actions: Sequence[Action], rng: random.Random) -> Action:
    """One of `actions` (non-empty), drawn with the progress weights."""
    if not actions:
        raise ValueError("choose needs at least one legal action")
    # `rng.choices(actions, weights)[0]` without its argument checks: the same single draw of the same
    # generator, so the same game (the weights are positive and finite).
    cum = list(accumulate(weights(c, actions)))
    return actions[bisect(cum, rng.random() * cum[-1], 0, len(cum) - 1)]


def weights(c: Ctx, actions: Sequence[Action]) -> list[float]:
    """`weight` of each action, the common kinds worked out inline (moves and plays are most of a day's
    actions): the player is part of every bench game, so it is kept cheap. Equal to `weight` action by action
    (`tests/test_selfplay.py`)."""
    fixed = _FIXED
    board = c.board
    where, movement, claims = board.stand_territory, board.movement_stands, c.s.claims
    out: list[float] = []
    for a in actions:
        kind = type(a)
        w = fixed.get(kind)
        if w is None:
            if kind is Move:  # `weight` for a move, with the map's tables and the claims looked up once
                goal = a.path[-1]  # type: ignore[attr-defined]
                claim = claims.get(where[goal])
                mine = claim is not None and claim[0] == a.player
                w = 1.0 if mine else 4.0 if goal in movement else 10.0  # #maps: a movement or a territory stand
            elif kind is Play:
                w = 3.0 if a.face == "revealed" else 0.5  # type: ignore[attr-defined]
            else:
                w = _weigh(c, a)
        out.append(w)
    return out


_STATEFUL = (Move, Play, Tame, Challenge)  # kinds whose weight depends on the action or the position
_FIXED: dict[type[Action], float] = {}  # the other kinds' weights, learnt as they are met


def _weigh(c: Ctx, action: Action) -> float:
    kind = type(action)
    if kind not in _STATEFUL:
        _FIXED[kind] = WEIGHTS.get(kind, 1.0)
    return weight(c, action)
