"""Preconstructed teams and decks from the packaged card data ("New players should use one of our
preconstructed decks"): a legal configuration for any 2-5 seats, for the demo, benches and tests."""

from __future__ import annotations

from rules.kaiju.cards import KaijuCatalog, packaged
from rules.kaiju.setup import COMBAT_COPIES, PLANNING_COPIES, SEATS

TEAMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("TITANS", ("GOROS", "RAMPART", "VOLTAR")),
    ("DEEP", ("AQUALA", "TRENCH", "KORAL")),
    ("SWARM", ("MOTHRA", "SKITTER", "VOLTAR", "GOROS")),
    ("DEFAULT", ("RAMPART", "MOTHRA", "KORAL")),
    ("DEFAULT", ("TRENCH", "SKITTER", "AQUALA")),
)


def preconstructed(count: int, catalog: KaijuCatalog | None = None) -> dict[str, object]:
    """A game configuration for the first `count` seats: every planning card 3 times, every combat card
    twice (as many OFFENSE as DEFENSE cards in the packaged data), and the initiative order of ties."""
    if not 2 <= count <= len(SEATS):
        raise ValueError(f"Colossal Kaiju Combat is played by 2 to 5 players, got {count}")
    cat = catalog or packaged()
    planning = [c for c in sorted(cat.planning) for _ in range(PLANNING_COPIES)]
    combat = [c for c in sorted(cat.combat) for _ in range(COMBAT_COPIES)]
    seats = {seat: {"team": team, "characters": list(chars), "planning": planning, "combat": combat}
             for seat, (team, chars) in zip(SEATS[:count], TEAMS, strict=False)}
    return {"seats": seats, "initiative_order": list(SEATS[:count])}
