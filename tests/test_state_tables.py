"""The engine's precomputed tables and uncopied views (`rules.kipukas.state`, `catalog`, `board_map`) say
exactly what the definitions they replace say.

Speed work answers common questions from tables built once (a card's kind bits, a stand's ground) and from the
card table's indices (zone counts, ids, the sorted cache without a copy), and builds the opening cards through
the records' mutable twin. Here each is compared with its definition: over every card of the catalog, every
stand of the map, and every position of two seeded random games (counts, ids and views for each zone and
seat), so a table that drifts from the records it summarises fails here rather than changing a game.
"""

from __future__ import annotations

import random

from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import KIND_HEALER, KIND_ITEM, KIND_SOUL, KIND_SPACED, KIND_UNDERGROUND, Catalog
from rules.kipukas.context import Ctx
from rules.kipukas.decks import COPY_LIMITS
from rules.kipukas.game import Game
from rules.kipukas.selfplay import choose
from rules.kipukas.state import ZONES, CardState, CardTable, new_card


def _deck(rng: random.Random, serial: int) -> list[str]:
    pool = [c for c in Catalog.packaged().cards.values() for _ in range(COPY_LIMITS[c.type])]
    rng.shuffle(pool)
    return [f"{c.code}#{serial}{i:03d}" for i, c in enumerate(pool[:30])]


def test_card_kind_bits_follow_the_printed_card() -> None:
    catalog = Catalog.packaged()
    assert set(catalog.kinds) == set(catalog.cards)
    for code, card in catalog.cards.items():
        kind = catalog.kinds[code]
        assert bool(kind & KIND_SOUL) == card.is_soul, code
        assert bool(kind & KIND_SPACED) == (card.is_soul and card.habitat != "DigitalCloud"), code
        assert bool(kind & KIND_UNDERGROUND) == (card.is_soul and card.habitat == "Underground"), code
        assert bool(kind & KIND_ITEM) == (not card.is_soul and card.type == "Item"), code
        assert bool(kind & KIND_HEALER) == (code in catalog.healer_codes), code
    assert any(k & KIND_ITEM for k in catalog.kinds.values()) and any(k & KIND_SPACED for k in catalog.kinds.values())


def test_stand_ground_is_its_territory_geography() -> None:
    board = BoardMap.packaged()
    assert set(board.stand_geography) == set(board.stands)
    for stand, ground in board.stand_geography.items():
        assert ground == board.territories[board.stand_territory[stand]].geography, stand


def test_new_card_equals_the_frozen_record() -> None:
    built = new_card("abc#1000", "abc", "red", "deck", (0, 0, 0))
    plain = CardState("abc#1000", "abc", "red", "deck", injuries=(0, 0, 0))
    assert type(built) is CardState
    assert built == plain and hash(built) == hash(plain)
    assert built.set(zone="hand") == plain.set(zone="hand")


def test_zone_counts_ids_and_views_follow_the_cards_in_every_position() -> None:
    positions = 0
    filled: set[str] = set()
    for seed in (4, 9):
        rng = random.Random(seed)
        game = Game.new({"red": _deck(rng, 1), "blue": _deck(rng, 2)}, style="domination", cycles=12)
        player = random.Random(seed + 100)
        while not game.result and positions < 1500:
            s = game.state
            table = s.cards
            assert isinstance(table, CardTable)
            for zone in ZONES:
                for seat in s.players:
                    listed = s.in_zone(zone, seat)
                    if listed:
                        filled.add(zone)
                    assert s.count(zone, seat) == len(listed), (zone, seat)
                    assert s.ids_in(zone, seat) == {x.id for x in listed}, (zone, seat)
                    assert table.sorted_view(zone, seat) == listed, (zone, seat)
            actions = game.legal_actions()
            game.apply(choose(Ctx(s, game.board, game.catalog, game.style), actions, player))
            positions += 1
    assert positions > 150  # both games got well past set-up, and every zone play reaches held cards:
    assert {"deck", "hand", "play", "discard"} <= filled, filled
