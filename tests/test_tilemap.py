"""The tile-map deck builder (seed 004): golden games, the geometry of range and steps, push, state
marks, the buying rule, deck cycling, VIP wins, hidden hands, and random legal self-play (hypothesis)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.core.errors import MapFileError
from rules.core.registry import new_game
from rules.core.selfplay import choose
from rules.tilemap.board import distance, packaged, path_cost
from rules.tilemap.game import TileGame, TileSetupError
from rules.tilemap.state import Permanent
from tests.games_golden import check

GOLDEN = sorted((Path(__file__).parent / "golden" / "games").glob("tilemap_*.game"))
WEIGHTS = {"pass": 1.0, "end": 0.3, "attack": 8.0, "move": 2.0, "play": 5.0, "cast": 3.0, "push": 1.0,
           "convert": 0.1, "buy": 3.0}
M = packaged("skirmish")


def game(seats: int = 2, map_name: str = "skirmish") -> TileGame:
    g = new_game("tilemap", {"map": map_name, "seats": seats})
    assert isinstance(g, TileGame)
    return g


def drawn(g: TileGame) -> TileGame:
    """Red's opening draw done (the first cards of its deck in name order)."""
    while g.state.phase == "upkeep":
        g.push(g.legal_actions("red")[0])
    return g


def place(g: TileGame, code: str, tile: str, seat: str, **changes: object) -> Permanent:
    perm = replace(Permanent(f"{code}-{tile}", code, seat, seat, M.tile(tile)), **changes)  # type: ignore[arg-type]
    g.state.put(perm)
    return perm


def resolve(g: TileGame) -> None:
    while g.state.stack:
        for seat in g.state.priority:
            g.push(f"{seat} pass")


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_games_replay(path: Path) -> None:
    assert check(path) == ""


def test_range_and_steps_follow_the_book() -> None:
    """#range: (x, y) within r iff max + floor(min / 2) <= r on absolute offsets; #movement: every second
    diagonal step counts twice."""
    assert distance((0, 0), (1, 1)) == 1 and distance((0, 0), (2, 2)) == 3 and distance((0, 0), (3, 1)) == 3
    assert distance((3, 3), (0, 3)) == 3  # the book's signed "x > y" would put (-3, 0) in range 1
    assert path_cost([(0, 0), (1, 1), (2, 2), (3, 3)]) == 4 and path_cost([(0, 0), (0, 1), (1, 2)]) == 2


def test_push_collides_and_drowns_and_stops_at_the_edge() -> None:
    g = drawn(game())
    g.state.players["red"].hand = Counter({"SHOVE": 2})
    g.state.players["red"].resource = 5
    place(g, "MILITIA", "b5", "blue")
    place(g, "KNIGHT", "b6", "blue")
    g.push("red push SHOVE b5 b4")  # pushed up from b4 into the knight on b6: stops, 1 damage
    resolve(g)
    assert g.state.at(M.tile("b5")).damage == 1  # type: ignore[union-attr]
    place(g, "KNIGHT", "b4", "blue")
    g.push("red push SHOVE b4 a4")  # east from a4: b4 -> c4 is deep water: destroyed
    resolve(g)
    assert g.state.at(M.tile("b4")) is None and g.state.players["blue"].discard["KNIGHT"] == 1


def test_ward_prevents_all_damage_and_poison_grows_on_activation() -> None:
    g = drawn(game())
    red = g.state.players["red"]
    red.hand, red.resource = Counter({"BOLT": 1, "VENOM": 1}), 9
    place(g, "KNIGHT", "c6", "blue", marks=(0, 0, 0, 0, 1))
    g.push("red cast BOLT c6")
    resolve(g)
    knight = g.state.at(M.tile("c6"))
    assert knight is not None and knight.damage == 0 and knight.mark("ward") == 0
    archer = place(g, "ARCHER", "a1", "red", marks=(2, 0, 0, 0, 0))  # health 2, poison 2
    assert archer.mark("poison") == 2
    g.push("red move a1-a2")  # activation adds a third poison mark: more than its health, destroyed
    assert g.state.at(M.tile("a1")) is None and g.state.players["red"].discard["ARCHER"] == 1
    assert not g.state.stack


def test_paralysis_allows_only_unmarking_and_panic_spends_the_unit() -> None:
    g = drawn(game())
    place(g, "KNIGHT", "a1", "red", marks=(0, 1, 0, 0, 0))
    refused = g.apply("red move a1-a2")
    assert not refused.accepted and refused.rule == "#paralysis"
    g.push("red unmark a1")
    resolve(g)
    knight = g.state.at(M.tile("a1"))
    assert knight is not None and knight.mark("paralysis") == 0 and knight.moves == 0 and knight.attacks == 1
    place(g, "MILITIA", "g1", "red", marks=(0, 0, 1, 0, 0))
    verdict = g.push("red move g1-g2")
    assert "shy AI" in verdict.message and not g.state.stack and g.state.at(M.tile("g1")).tapped  # type: ignore[union-attr]


def test_high_ground_adds_range_to_ranged_units_only() -> None:
    g = drawn(game())
    place(g, "ARCHER", "b3", "red")
    place(g, "KNIGHT", "f5", "red")  # melee on high ground: still range 1
    place(g, "MILITIA", "b7", "blue")
    place(g, "MILITIA", "g7", "blue")
    assert g.apply("red attack b3 b7").accepted  # 4 away: range 3 + 1
    resolve(g)
    assert not g.apply("red attack f5 g7").accepted  # 2 away


def test_one_purchase_per_turn_onto_the_discard_pile_and_the_deck_cycles() -> None:
    g = drawn(game())
    red = g.state.players["red"]
    red.resource = 9
    g.push("red end")
    g.push("red buy ARCHER")
    assert red.discard["ARCHER"] == 0  # the snapshot before the purchase is untouched (undo restores it)
    red = g.state.players["red"]
    assert red.discard["ARCHER"] == 1 and red.store["ARCHER"] == 1 and red.resource == 6
    assert g.state.active == "blue" and g.state.phase == "upkeep" and not g.apply("red buy KNIGHT").accepted
    g.undo()
    assert g.state.phase == "buying" and g.state.players["red"].resource == 9
    red = g.state.players["red"]
    red.deck, red.discard = Counter(), Counter({"BOLT": 2})
    g.push("red end")
    g.push("blue draw " + g.legal_actions("blue")[0].split()[-1])
    while g.state.active == "blue":
        g.push(g.legal_actions("blue")[0] if g.state.phase == "upkeep" else "blue end")
    assert g.state.players["red"].deck == Counter({"BOLT": 2}) and not g.state.players["red"].discard


def test_losing_the_vip_loses_the_game_and_errors_name_the_key() -> None:
    g = drawn(game())
    g.state.players["red"].hand, g.state.players["red"].resource = Counter({"BOLT": 3}), 9
    for _ in range(3):
        g.push("red cast BOLT d7")
        resolve(g)
    result = g.result
    assert result is not None and result.winners == ("red",) and not g.apply("red end").accepted
    with pytest.raises(TileSetupError, match="seats at most 2"):
        new_game("tilemap", {"map": "skirmish", "seats": 3})
    with pytest.raises(MapFileError, match="no packaged tile map 'moon'"):
        new_game("tilemap", {"map": "moon"})


def test_views_hide_hands_and_decks() -> None:
    g = drawn(game())
    hand = g.view("red")["players"]["red"]["hand"]  # type: ignore[index]
    assert isinstance(hand, list) and len(hand) == 4
    assert g.view("blue")["players"]["red"]["hand"] == 4  # type: ignore[index]
    assert g.view("spectator")["players"]["red"]["deck"] == 2  # type: ignore[index]
    assert isinstance(g.view("judge")["players"]["blue"]["deck"], list)  # type: ignore[index]


@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), seats=st.integers(2, 5))
def test_random_legal_selfplay_applies_every_listed_action_and_undoes_exactly(seed: int, seats: int) -> None:
    g = game(seats, "skirmish" if seats == 2 else "arena")
    rng = random.Random(seed)
    for _ in range(150):
        if g.result is not None:
            assert not g.legal_actions()
            break
        lines = g.legal_actions()
        assert lines, f"no legal action in\n{g.to_text()}"
        assert g.state.clone() == g.state  # a snapshot holds every field
        before = g.to_text()
        for probe in rng.sample(lines, min(3, len(lines))):  # listed lines apply; undo restores exactly
            assert g.apply(probe).accepted, probe
            assert g.undo() == probe and g.to_text() == before
        assert g.apply(choose(lines, rng, WEIGHTS)).accepted
        tiles = [p.tile for p in g.state.permanents.values()]
        assert len(tiles) == len(set(tiles)), "two permanents on one tile"
        assert all(M.on_map(t) or g.state.map_name == "arena" for t in tiles)
