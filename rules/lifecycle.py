"""A soul leaving play for good (#combat_lifecycle): shared by the turn, combat and territory effects."""

from __future__ import annotations

from rules.context import Ctx


def waste(c: Ctx, card_id: str, why: str) -> None:
    """A soul is wasted: discarded; equipped items are dropped in its territory (#items)."""
    cs = c.card(card_id)
    if c.is_soul(cs) and cs.owner in c.s.players:
        c.s.players[cs.owner] = c.s.players[cs.owner].set(lost=c.s.players[cs.owner].lost + 1)
    for item in list(c.s.cards.values()):
        if item.equipped_to == card_id:
            c.put(item.set(equipped_to=None))
    c.put(cs.set(zone="discard", at=None, revealed=True, injuries=tuple(0 for _ in cs.injuries), rogue=False,
                 controller=None, moved=0, swimming=False, exhausted=False, rested=0))
    c.forget(card_id)
    c.notice(f"{c.name(cs)} is wasted: {why}")
