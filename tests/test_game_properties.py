"""Random legal play from random setups never breaks an invariant (hypothesis, derandomized)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.kipukas.catalog import Catalog
from rules.kipukas.decks import COPY_LIMITS, check_deck
from rules.kipukas.game import Game
from rules.kipukas.notation import parse
from rules.kipukas.state import ZONES

STEPS = 160


def random_deck(rng: random.Random, serial: int) -> list[str]:
    """A valid 30-card deck (+ maybe a personal effect) drawn at random from the catalog."""
    pool = [c for c in Catalog.packaged().cards.values() for _ in range(COPY_LIMITS[c.type])]
    rng.shuffle(pool)
    cards = [f"{c.code}#{serial}{i:03d}" for i, c in enumerate(pool[:30])]
    effects = [c for c in Catalog.packaged().cards.values() if c.type == "PersonalEffect"]
    if rng.random() < 0.5:
        cards.append(f"{rng.choice(effects).code}#{serial}999")
    assert check_deck(cards).valid
    return cards


def check_invariants(g: Game, ids: frozenset[str]) -> None:
    s = g.state
    assert frozenset(s.cards) == ids, "cards appeared or vanished"
    for p in ("red", "blue"):
        assert len(s.in_zone("hand", p)) <= 3, f"{p} holds more than 3 cards"
        assert s.players[p].played_this_roll <= 3
    per_territory: Counter[tuple[str, str]] = Counter()
    for cs in s.cards.values():
        assert cs.zone in ZONES
        assert (cs.at is not None) == (cs.zone in ("play", "prison")), f"{cs.id} in {cs.zone} at {cs.at}"
        info = g.catalog.card(cs.code)
        if cs.zone == "play" and info.is_soul and info.habitat != "DigitalCloud":
            assert cs.at is not None
            per_territory[(cs.owner, g.board.stand(cs.at).territory)] += 1
        if cs.equipped_to is not None:
            soul = s.cards[cs.equipped_to]
            assert soul.zone == "play" and soul.at == cs.at, f"{cs.id} equipped to {soul.id} elsewhere"
    assert all(n <= 3 for n in per_territory.values()), per_territory


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_random_legal_play_keeps_invariants_and_undo_is_identity(seed: int) -> None:
    rng = random.Random(seed)
    g = Game.new({"red": random_deck(rng, 1), "blue": random_deck(rng, 2)})
    ids = frozenset(g.state.cards)
    for step in range(STEPS):
        actions = g.legal_actions()
        assert actions or g.result, f"no legal action at step {step} in phase {g.state.phase}:\n{g.to_text()}"
        if g.result:
            break
        action = rng.choice(actions)
        assert parse(action.to_text()) == action
        before_text, before = g.to_text(), g.state.copy()
        assert g.apply(action).accepted, action
        check_invariants(g, ids)
        if step % 7 == 0:
            assert g.undo() == action
            assert g.state == before and g.to_text() == before_text
            g.apply(action)
