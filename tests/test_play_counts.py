"""The counts of the cards in play a card table keeps on every write (`rules.kipukas.play_counts`) say
exactly what one pass over the cards says (the pass `legal_items.scan` made before them).

Day generation reads p's souls (in table order: the order of the generated actions), souls per territory,
stands with an enemy, blocked movement stands, items, rogues, diggers and healers from those counts instead
of visiting every card in play. Here, at every position of seeded random games (two and three seats), after
trial applications (every candidate, legal or not, applied and taken back) and after runs of undos, each
seat's reading is compared with the pass, and the counts with counts built afresh from the table: a write
path that forgets to update them fails here.
"""

from __future__ import annotations

import random

import pytest

from rules.kipukas.catalog import KIND_HEALER, KIND_ITEM, KIND_SOUL, KIND_SPACED, KIND_UNDERGROUND, Catalog
from rules.kipukas.context import Ctx
from rules.kipukas.decks import COPY_LIMITS
from rules.kipukas.game import Game
from rules.kipukas.legal_items import scan
from rules.kipukas.play_counts import PlayCounts
from rules.kipukas.selfplay import choose
from rules.kipukas.state import CardState, CardTable


def _deck(rng: random.Random, serial: int) -> list[str]:
    pool = [c for c in Catalog.packaged().cards.values() for _ in range(COPY_LIMITS[c.type])]
    rng.shuffle(pool)
    return [f"{c.code}#{serial}{i:03d}" for i, c in enumerate(pool[:30])]


def _by_pass(c: Ctx, p: str) -> tuple[object, ...]:
    """The definition: one pass over the cards in play, in table order (the pass `scan` made before)."""
    kinds, where, movement = c.catalog.kinds, c.board.stand_territory, c.board.movement_stands
    foes = c.foes(p)
    own: list[CardState] = []
    rogues: list[CardState] = []
    items: list[CardState] = []
    occupied: dict[str, int] = {}
    enemy_at: set[str] = set()
    blocking: set[str] = set()
    seen = 0
    for x in c.s.play.values():
        kind = kinds[x.code]
        seen |= kind
        if kind & KIND_SOUL:
            if x.owner == p:
                own.append(x)
                if x.at and kind & KIND_SPACED:
                    occupied[where[x.at]] = occupied.get(where[x.at], 0) + 1
            elif x.at and x.owner in foes:
                enemy_at.add(x.at)
                if x.revealed and x.at in movement:
                    blocking.add(x.at)
            if x.rogue and x.at is not None:
                rogues.append(x)
        elif kind & KIND_ITEM:
            items.append(x)
    mine = [x for x in own if x.controller is None or x.controller == p]
    diggers = any(kinds[x.code] & KIND_UNDERGROUND for x in own)
    healers = bool(seen & KIND_HEALER) or bool(c.s.overrides)
    return own, mine, occupied, enemy_at, blocking, rogues, items, diggers, healers


def _read(c: Ctx, p: str) -> tuple[object, ...]:
    f = scan(c, p)
    return (f.own, f.mine, dict(f.occupied), set(f.enemy_at), set(f.blocking), f.rogues, f.items, f.diggers,
            f.healers)


def _check(game: Game) -> None:
    s = game.state
    c = Ctx(s, game.board, game.catalog, game.style)
    for p in s.players:
        assert _read(c, p) == _by_pass(c, p), p
    table = s.cards
    assert isinstance(table, CardTable) and table.counts is not None
    fresh = PlayCounts(table.play, game.catalog.kinds, game.board.stand_territory, game.board.movement_stands)
    kept = table.counts
    assert {o: list(g.items()) for o, g in kept.own.items() if g} == {o: list(g.items()) for o, g in fresh.own.items()}
    assert list(kept.items.items()) == list(fresh.items.items())
    for name in ("occupied", "stands", "visible"):
        assert {o: row for o, row in getattr(kept, name).items() if row} == getattr(fresh, name), name
    assert {o: n for o, n in kept.underground.items() if n} == {o: n for o, n in fresh.underground.items() if n}
    assert {o: n for o, n in kept.taken.items() if n} == {o: n for o, n in fresh.taken.items() if n}
    assert (kept.healers, kept.rogues) == (fresh.healers, fresh.rogues)
    assert list(kept.roaming.items()) == list(fresh.roaming.items())  # rogue souls on the map, table order


@pytest.mark.parametrize("seats", [2, 3])
def test_counts_equal_a_fresh_pass_after_play_trials_and_undos(seats: int) -> None:
    positions = undone = 0
    moved_in_play: set[str] = set()
    for seed in (5, 13):
        rng = random.Random(seed * 10 + seats)
        decks = {"red": _deck(rng, 1), "blue": _deck(rng, 2)}
        if seats == 3:
            decks["green"] = _deck(rng, 3)
        game = Game.new(decks, style="domination" if seats == 2 else "mass-conflict", cycles=12)
        player = random.Random(seed)
        while not game.result and positions < 700 * seats:
            game.legal_actions()  # builds the counts on the first day position, then keeps them
            if game.state.cards.counts is not None:  # type: ignore[attr-defined]
                _check(game)
                if positions % 23 == 0:
                    game.legal_actions_by_trial()  # every candidate applied and taken back
                    _check(game)
            before = {k: x.at for k, x in game.state.play.items()}
            game.apply(choose(Ctx(game.state, game.board, game.catalog, game.style), game.legal_actions(), player))
            moved_in_play |= {k for k, x in game.state.play.items() if k in before and before[k] != x.at}
            positions += 1
            if player.random() < 0.05 and len(game.history) > 8:
                for _ in range(player.randint(1, 6)):
                    game.undo()
                    undone += 1
                _check(game) if game.state.cards.counts is not None else None  # type: ignore[attr-defined]
    assert positions > 300 and undone > 20 and len(moved_in_play) > 10  # play got well past set-up


def test_counts_follow_every_kind_of_card_write_and_its_undo() -> None:
    """Writes the games above make rarely or never (a card added to play and taken off the table, a soul
    changing owners, items and rogues appearing), made directly on a mid-game table, seeded."""
    rng = random.Random(3)
    game = Game.new({"red": _deck(rng, 1), "blue": _deck(rng, 2)}, style="domination", cycles=12)
    player = random.Random(3)
    while len(game.state.play) < 12 and not game.result:
        game.apply(choose(Ctx(game.state, game.board, game.catalog, game.style), game.legal_actions(), player))
    game.legal_actions()
    s = game.state
    table = s.cards
    assert isinstance(table, CardTable)
    c = Ctx(s, game.board, game.catalog, game.style)
    scan(c, "red")  # builds the counts (s is the live state: the writes below go through its table)
    stands = sorted(game.board.stands)
    codes = sorted(game.catalog.cards)
    added = 0
    for step in range(1500):
        ids = list(table)
        key = rng.choice(ids)
        x = table[key]
        roll = rng.random()
        if roll < 0.06:  # a new card straight into play, later taken off the table
            added += 1
            table[f"{rng.choice(codes)}#9{added:03d}"] = x.set(zone="play", at=rng.choice(stands),
                                                               owner=rng.choice(("red", "blue")))
        elif roll < 0.1 and any("#9" in k for k in ids):
            del table[rng.choice([k for k in ids if "#9" in k])]
        else:
            change = rng.choice(("zone", "at", "revealed", "rogue", "owner", "controller"))
            value = {"zone": rng.choice(("play", "hand", "discard")), "at": rng.choice([None, *stands]),
                     "revealed": not x.revealed, "rogue": not x.rogue, "owner": rng.choice(("red", "blue")),
                     "controller": rng.choice((None, "red", "blue"))}[change]
            table[key] = x.set(**{change: value})
        if step % 7 == 0:
            _check(game)
    _check(game)
