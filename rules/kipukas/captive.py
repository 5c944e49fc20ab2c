"""Captive (#playstyleoptions): "Each player gives the other a soul card, which they shuffle into their deck.
Once drawn, the player must play the card unrevealed. The first player to reveal and lead their soul back to
their capital wins."

Readings (docs/rules-engine.md): `Game.new` deals each named card (`captives=RED_CARD,BLUE_CARD`) into the
other player's deck as that player's card. Its receiver plays it unrevealed and, while it is in hand, plays no
other card first; the receiver never reveals it. Its giver ("their soul") reveals it as a day action wherever it
stands, and it is then the giver's soul again; the giver wins when it stands on the stand of the giver's capital.
"""

from __future__ import annotations

from rules.kipukas.context import Ctx, Illegal
from rules.kipukas.notation import PLAYERS, Action, Play, Reveal
from rules.kipukas.state import CardState

RULE = "#playstyleoptions"


def giver(c: Ctx, card: str) -> str:
    """Who gave captive `card` (the captives are listed red's first)."""
    return PLAYERS[c.style.captives.index(card)]


def held_captive(c: Ctx, player: str) -> CardState | None:
    """A captive in `player`'s hand, which must be played before any other card."""
    for card in c.style.captives:
        cs = c.s.cards.get(card)
        if cs is not None and cs.zone == "hand" and cs.control == player:
            return cs
    return None


def captive_play(c: Ctx, a: Play, cs: CardState) -> None:
    """A captive is played unrevealed, and before any other card of its receiver's hand."""
    if not c.style.captives:
        return
    if cs.id in c.style.captives:
        if a.face != "unrevealed":
            raise Illegal(RULE, f"Captive: {c.name(cs)} is a captive soul; its receiver plays it unrevealed")
        return
    waiting = held_captive(c, a.player)
    if waiting is not None:
        raise Illegal(RULE, f"Captive: {a.player} drew the captive {c.name(waiting)} and must play it (unrevealed) "
                            "before any other card")


def captive_reveal(c: Ctx, a: Reveal) -> None:
    """Only the captive's giver reveals it; it is then the giver's soul again."""
    cs = c.card(a.card)
    if cs.zone != "play":
        raise Illegal(RULE, f"Captive: {c.name(cs)} is not in play")
    if cs.revealed:
        raise Illegal("#day", f"{c.name(cs)} is already revealed")
    if a.player != giver(c, cs.id):
        raise Illegal(RULE, f"Captive: {c.name(cs)} is {giver(c, cs.id)}'s soul held captive; only "
                            f"{giver(c, cs.id)} reveals it")
    c.put(cs.set(revealed=True, hidden=False, owner=a.player, controller=None, played_turn=0))
    c.notice(f"{a.player} reveals their captive soul {c.name(cs)}: lead it back to your capital (Captive)")


def captive_end(c: Ctx) -> str | None:
    """A giver whose revealed captive stands on the stand of the giver's capital wins."""
    if not c.s.turn:
        return None
    for card in c.style.captives:
        cs = c.s.cards.get(card)
        if cs is None or cs.zone != "play" or not cs.revealed or cs.at is None:
            continue
        home = giver(c, card)
        capitals = [t for t, (p, kind) in c.s.claims.items() if p == home and kind == "capital"]
        if cs.owner == home and any(c.board.home_stand.get(t) == cs.at for t in capitals):
            return f"{home} wins: led the captive soul {card} back to their capital ({c.style.title})"
    return None


def captive_reveals(c: Ctx, player: str) -> list[Action]:
    """The reveals `player` may make of their own captives in play (for legal-action generation)."""
    out: list[Action] = []
    for card in c.style.captives:
        cs = c.s.cards.get(card)
        if cs is not None and cs.zone == "play" and not cs.revealed and giver(c, card) == player:
            out.append(Reveal(player, card))
    return out
