"""Night actions (#night) and the actions printed card effects call for (#stealing, storm damage, taming)."""

from __future__ import annotations

from rules.context import Ctx, Illegal, other
from rules.day import MAX_PLAYED, playable, start_action
from rules.notation import Bottom, Craft, Discard, Draw, Heal, Initiative, Injure, Sabotage, Steal, Tame
from rules.setup_phase import HAND_SIZE, draw_cards
from rules.state import CardState

NIGHT_ONCE = {Bottom: "bottom", Draw: "draw", Craft: "craft", Sabotage: "sabotage", Initiative: "initiative"}


def night_action(c: Ctx, player: str, verb: str) -> None:
    if c.s.phase != "night":
        raise Illegal("#night", f"'{verb}' is a night action")
    start_action(c, player)
    done = c.s.players[player].night_done
    if verb in done:
        raise Illegal("#night", f"{player} already used '{verb}' this night; each night action is taken once")
    c.s.players[player] = c.s.players[player].set(night_done=done | {verb})


def bottom(c: Ctx, a: Bottom) -> None:
    night_action(c, a.player, "bottom")
    hand = c.s.in_zone("hand", a.player)
    if not hand:
        raise Illegal("#night", f"{a.player} has no cards in hand to put under the deck")
    for cs in hand:
        c.put(cs.set(zone="deck"))
    c.s.bottom[a.player] = (*c.s.bottom.get(a.player, ()), *(cs.id for cs in hand))


def draw(c: Ctx, a: Draw) -> None:
    night_action(c, a.player, "draw")
    hand = len(c.s.in_zone("hand", a.player))
    deck = len(c.s.in_zone("deck", a.player))
    want = min(HAND_SIZE - hand, deck)
    if want == 0:
        raise Illegal("#night" if deck else "#discarding_runout",
                      f"{a.player}'s hand is full" if deck else f"{a.player}'s deck has run out")
    if len(a.cards) != want:
        raise Illegal("#night", f"{a.player} draws {want} card(s) to fill the hand back to {HAND_SIZE}")
    draw_cards(c, a.player, a.cards, "#night")


def craft(c: Ctx, a: Craft) -> None:
    """Combine 2-3 items from hand; equip the result to a soul or drop it in a controlled territory."""
    night_action(c, a.player, "craft")
    if not 2 <= len(a.cards) <= 3 or len(set(a.cards)) != len(a.cards):
        raise Illegal("#crafting", "a craft combines two or three different item cards")
    items = [c.own(a.player, card, "hand") for card in a.cards]
    for cs in items:
        if c.info(cs).type != "Item":
            raise Illegal("#crafting", f"{c.name(cs)} is not an item card")
    p = c.s.players[a.player]
    if p.played_this_roll + len(items) > MAX_PLAYED:
        raise Illegal("#game_setup", f"{a.player} may play {MAX_PLAYED - p.played_this_roll} more card(s) this "
                                     "diel roll")
    c.s.players[a.player] = p.set(played_this_roll=p.played_this_roll + len(items))
    if a.target in c.s.cards:
        soul = c.own(a.player, a.target, "play")
        if not c.is_soul(soul):
            raise Illegal("#equiping", f"{c.name(soul)} is not a soul; items equip to souls")
        stand, equip = soul.at, soul.id
    else:
        stand = c.territory_stand(a.target)
        if not c.controls(a.player, a.target):
            raise Illegal("#crafting", f"crafted items are dropped only in a territory you control, not {a.target}")
        equip = None
    for cs in items:
        c.put(cs.set(zone="play", at=stand, revealed=True, equipped_to=equip, played_turn=c.s.turn))
    c.notice(f"{a.player} crafts {'+'.join(a.cards)}: the opponent or a referee confirms the recipe; a wrong "
             "guess discards the items (#crafting)")


def sabotage(c: Ctx, a: Sabotage) -> None:
    night_action(c, a.player, "sabotage")
    cs = playable(c, a.player, a.card)
    if c.info(cs).type != "Sabotage":
        raise Illegal("#sabotage", f"{c.name(cs)} is not a sabotage card")
    p = c.s.players[a.player]
    if p.played_this_roll >= MAX_PLAYED:
        raise Illegal("#game_setup", f"{a.player} already played {MAX_PLAYED} cards this diel roll")
    c.s.players[a.player] = p.set(played_this_roll=p.played_this_roll + 1)
    c.put(cs.set(zone="effect", revealed=True, played_turn=c.s.turn))
    c.notice(f"{c.name(cs)}: resolve its printed success criteria, result and failure consequence; discard it "
             "when done (#sabotage)")


def _owed(c: Ctx, kind: str, player: str, card: str, rule: str, what: str) -> None:
    match = [p for p in c.s.pending if p.kind == kind and p.player == player and p.cards == (card,)]
    if not match:
        raise Illegal(rule, f"{card} owes no {what} from {player}")
    c.s.pending = tuple(p for p in c.s.pending if p is not match[0])


def injure(c: Ctx, a: Injure) -> None:
    """Storm or volcanic damage: the owner marks which KEAL means is injured."""
    if c.s.bout is not None or (c.s.pending and c.s.pending[0].kind not in ("damage", "heal")):
        raise Illegal("#storm", "damage is marked when a storm or volcanic ground calls for it")
    _owed(c, "damage", a.player, a.card, "#storm", "damage")
    cs = c.card(a.card)
    if a.index not in c.available_means(cs):
        raise Illegal("#keal_means_DHT", f"{c.name(cs)} has no uninjured KEAL means {a.index}")
    c.put(cs.set(injuries=tuple(n + 1 if i == a.index - 1 else n for i, n in enumerate(cs.injuries))))


def heal(c: Ctx, a: Heal) -> None:
    """Plains healing after 2 diel cycles rested (#habitat_effects): one injury of means `index` heals."""
    if c.s.bout is not None or (c.s.pending and c.s.pending[0].kind not in ("damage", "heal")):
        raise Illegal("#habitat_effects", "healing is marked when the rules call for it")
    cs = c.card(a.card)
    if not 1 <= a.index <= len(cs.injuries) or cs.injuries[a.index - 1] == 0:
        raise Illegal("#keal_means_DHT", f"{c.name(cs)}'s KEAL means {a.index} is not injured")
    _owed(c, "heal", a.player, a.card, "#habitat_effects", "healing")
    c.put(cs.set(injuries=tuple(n - 1 if i == a.index - 1 else n for i, n in enumerate(cs.injuries))))


def discard(c: Ctx, a: Discard) -> None:
    """A card leaves play, the effect row or the hand by its printed effect (or a wrong crafting guess)."""
    cs = c.card(a.card)
    if cs.control != a.player:
        raise Illegal("#discarding_runout", f"{a.card} is not under {a.player}'s control")
    if cs.zone not in ("play", "effect", "hand"):
        raise Illegal("#discarding_runout", f"{a.card} is in the {cs.zone}; only cards in hand or in play are "
                                            "discarded")
    if c.s.phase not in ("day", "night", "storm"):
        raise Illegal("#discarding_runout", f"not now: the game is in its {c.s.phase} phase")
    _to_discard(c, cs)


def _to_discard(c: Ctx, cs: CardState) -> None:
    for item in list(c.s.cards.values()):
        if item.equipped_to == cs.id:
            c.put(item.set(equipped_to=None))
    c.put(cs.set(zone="discard", at=None, controller=None, equipped_to=None, revealed=True))
    c.forget(cs.id)


def steal(c: Ctx, a: Steal) -> None:
    """Take an opponent's card from hand or deck, never beyond a hand of 3 (#stealing)."""
    if c.s.phase not in ("day", "night"):
        raise Illegal("#stealing", f"not now: the game is in its {c.s.phase} phase")
    cs = c.card(a.card)
    if cs.owner != other(a.player) or cs.zone not in ("hand", "deck"):
        raise Illegal("#stealing", f"{a.card} is not in {other(a.player)}'s hand or deck")
    if len(c.s.in_zone("hand", a.player)) + 1 > HAND_SIZE:
        raise Illegal("#stealing", f"{a.player} would hold more than {HAND_SIZE} cards: the steal is cancelled")
    c.put(cs.set(zone="hand", controller=a.player))
    c.s.bottom[cs.owner] = tuple(x for x in c.s.bottom.get(cs.owner, ()) if x != cs.id)


def tame(c: Ctx, a: Tame) -> None:
    first = c.s.pending[0] if c.s.pending else None
    if first is None or first.kind != "tame" or first.player != a.player or first.cards != (a.card,):
        raise Illegal("#tameability", f"no taming answer about {a.card} is due from {a.player}")
    c.pop()
    if a.outcome == "rogue":
        cs = c.card(a.card)
        c.put(cs.set(rogue=True, revealed=True))
        c.notice(f"{c.name(cs)} goes rogue: it must be revealed, moves by D6 each day and attacks every soul "
                 "it meets (#rouge)")
