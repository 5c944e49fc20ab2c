"""The progress player's fast paths (`rules.kipukas.selfplay`) say exactly what its definition says.

`weights` works the common kinds out inline and `choose` draws without `random.choices`' argument checks;
both are kept cheap because the bench plays every game through them. Here, over every position of two
seeded games, the inline weights equal `weight` action by action, and `choose` picks what
`random.choices(actions, weights)[0]` picks from a generator in the same state: so the speed work cannot
change which games the bench plays.
"""

from __future__ import annotations

import random

from rules.kipukas.catalog import Catalog
from rules.kipukas.context import Ctx
from rules.kipukas.decks import COPY_LIMITS
from rules.kipukas.game import Game
from rules.kipukas.notation import Move, Play
from rules.kipukas.selfplay import choose, weight, weights


def _deck(rng: random.Random, serial: int) -> list[str]:
    pool = [c for c in Catalog.packaged().cards.values() for _ in range(COPY_LIMITS[c.type])]
    rng.shuffle(pool)
    return [f"{c.code}#{serial}{i:03d}" for i, c in enumerate(pool[:30])]


def test_inline_weights_and_draw_equal_the_definition() -> None:
    kinds: set[type] = set()
    positions = 0
    for seed in (3, 5):
        rng = random.Random(seed)
        game = Game.new({"red": _deck(rng, 1), "blue": _deck(rng, 2)}, style="domination", cycles=12)
        steps = 0
        while not game.result and steps < 600:
            ctx = Ctx(game.state, game.board, game.catalog, game.style)
            actions = game.legal_actions()
            fast = weights(ctx, actions)
            assert fast == [weight(ctx, a) for a in actions], game.to_text()
            kinds.update(type(a) for a in actions)
            twin = random.Random()
            twin.setstate(rng.getstate())
            picked = choose(ctx, actions, rng)
            assert picked is twin.choices(actions, fast)[0]
            assert rng.getstate() == twin.getstate()  # one draw each: the generator moved alike
            assert game.apply(picked).accepted
            steps += 1
            positions += 1
    assert {Move, Play} <= kinds  # the inline kinds were met
    assert positions > 200
