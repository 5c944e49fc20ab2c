"""Effects of a territory's geography that act between turns (#habitat_effects).

- Plains (secondary): a revealed soul resting in an uncontested plains territory heals one KEAL means per
  2 diel cycles rested. Resting means it did not arrive on its stand during the cycle that just ended.
- Volcanic (secondary): souls that are not volcanic dwellers take 1 KEAL means damage once per diel
  cycle; a downed soul that takes damage is wasted (#combat_lifecycle).

Both raise prompts (`Pending` items) that the soul's owner answers with ``heal`` or ``injure``, because
the owner chooses the KEAL means.
"""

from __future__ import annotations

from rules.kipukas.context import Ctx
from rules.kipukas.lifecycle import waste
from rules.kipukas.state import Pending

REST_TO_HEAL = 2
_ACTIVE = ("volcanic", "plains")  # the geographies that act between turns


def between_turns(c: Ctx) -> None:
    """Run at the end of diel cycle `c.s.turn`, before the next one starts (none before turn 1)."""
    if c.s.turn < 1:
        return
    asks: list[Pending] = []
    territories, ground = c.board.territories, c.board.stand_geography
    # Only souls on volcanic or plains ground, or with rest to forget, have anything to do: the rest are
    # left out before sorting (the others are visited in id order, as the prompts are made in that order).
    due = [cs for cs in c.souls_in_play() if cs.at is not None
           and (cs.rested or (ground.get(cs.at) or territories[c.territory_of(cs.at)].geography) in _ACTIVE)]
    for cs in sorted(due, key=lambda x: x.id):
        assert cs.at is not None
        territory = c.territory_of(cs.at)
        geography = territories[territory].geography
        if geography == "volcanic" and c.info(cs).habitat != "Volcanic":
            if c.downed(cs):
                waste(c, cs.id, "downed and burnt by volcanic ground (#habitat_effects)")
                continue
            asks.append(Pending("damage", cs.owner, territory, (cs.id,), note="#habitat_effects"))
        resting = (geography == "plains" and cs.revealed and any(cs.injuries) and not c.contested(territory)
                   and cs.arrived_turn < c.s.turn and not cs.exhausted)
        rested = cs.rested + 1 if resting else 0
        if rested >= REST_TO_HEAL:
            asks.append(Pending("heal", cs.owner, territory, (cs.id,)))
            rested = 0
        if rested != cs.rested:
            c.put(cs.set(rested=rested))
    c.s.pending = (*c.s.pending, *asks)
