"""A soul leaving play for good (#combat_lifecycle): shared by the turn, combat and territory effects."""

from __future__ import annotations

from rules.kipukas.context import Ctx
from rules.kipukas.state import Pending
from rules.kipukas.style_ends import huntable


def waste(c: Ctx, card_id: str, why: str) -> None:
    """A soul is wasted: discarded; equipped items are dropped in its territory (#items)."""
    cs = c.card(card_id)
    if c.is_soul(cs) and cs.owner in c.s.players:
        p = c.s.players[cs.owner]
        c.s.players[cs.owner] = p.set(lost=p.lost + 1, hunted=p.hunted + (1 if huntable(c, cs) else 0))
    dropped = [item.id for item in c.s.play.values() if item.equipped_to == card_id]
    for item_id in dropped:
        c.put(c.card(item_id).set(equipped_to=None))
    territory = c.territory_of(cs.at) if cs.at else None
    c.put(cs.set(zone="discard", at=None, revealed=True, hidden=False, injuries=tuple(0 for _ in cs.injuries),
                 rogue=False, controller=None, moved=0, swimming=False, exhausted=False, rested=0))
    c.forget(card_id)
    c.notice(f"{c.name(cs)} is wasted: {why}")
    if dropped and territory is not None and c.contested(territory):
        # #items: "If a territory is under contention when this happens, each player chooses a suitable card
        # to attempt to grab the item. A KEAL means bout will ensue where the victor equips the item and the
        # loser takes KEAL means damage." One grab at a time: the first dropped item (others stay dropped).
        seats = tuple(c.s.players)  # the side that did not lose the soul first, then on in seat order
        i = seats.index(cs.owner) if cs.owner in seats else -1
        order = tuple(seats[(i + k) % len(seats)] for k in range(1, len(seats) + 1))
        able = [p for p in order if any(not c.downed(x) for x in c.souls_in(territory, p))]
        if able:
            c.push(*(Pending("grab", p, territory, (dropped[0],)) for p in able), front=True)
            c.notice(f"{dropped[0]} dropped in contested territory {territory}: "
                     f"{' and '.join(able)} choose a soul to grab it (#items)")
