"""Night actions (#night) and the actions printed card effects call for (#stealing, storm damage, taming)."""

from __future__ import annotations

from rules.kipukas.context import Ctx, Illegal
from rules.kipukas.day import MAX_PLAYED, playable, start_action
from rules.kipukas.lifecycle import waste
from rules.kipukas.notation import Bottom, Craft, Discard, Draw, Heal, Initiative, Injure, Sabotage, Steal, Tame
from rules.kipukas.setup_phase import HAND_SIZE, draw_cards
from rules.kipukas.state import CardState
from rules.kipukas.style_ends import huntable

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
    hand = c.s.count("hand", a.player)
    deck = c.s.count("deck", a.player)
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
        c.put(cs.set(zone="play", at=stand, revealed=True, hidden=False, equipped_to=equip, played_turn=c.s.turn))
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
    c.put(cs.set(zone="effect", revealed=True, hidden=False, played_turn=c.s.turn))
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
    owed = [p for p in c.s.pending if p.kind == "damage" and p.cards == (cs.id,)]
    if owed and not c.available_means(c.card(cs.id)):
        # More damage is owed (storm and volcanic ground together) but no KEAL means is left to injure: the
        # soul is caught downed, as #storm wastes downed souls, instead of leaving a prompt nobody can answer.
        waste(c, cs.id, "caught downed with damage still owed (#storm)")


def heal(c: Ctx, a: Heal) -> None:
    """Plains healing after 2 diel cycles rested (#habitat_effects): one injury of means `index` heals.
    With no healing owed, a healer of the player's heals instead (`_healer`)."""
    owed = any(p.kind == "heal" and p.player == a.player and p.cards == (a.card,) for p in c.s.pending)
    if not owed and c.s.phase == "day" and c.s.bout is None and not c.s.pending:
        _healer(c, a)
        return
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
    if huntable(c, cs):
        raise Illegal("#playstyleoptions", f"{c.name(cs)} is huntable: \"The huntable cards must be played and "
                                           "cannot be discarded\" (The hunt)")
    _to_discard(c, cs)


def _to_discard(c: Ctx, cs: CardState) -> None:
    for item in list(c.s.cards.values()):
        if item.equipped_to == cs.id:
            c.put(item.set(equipped_to=None))
    c.put(cs.set(zone="discard", at=None, controller=None, equipped_to=None, revealed=True, hidden=False))
    c.forget(cs.id)


def steal(c: Ctx, a: Steal) -> None:
    """Take an opponent's card from hand or deck, never beyond a hand of 3 (#stealing)."""
    if c.s.phase not in ("day", "night"):
        raise Illegal("#stealing", f"not now: the game is in its {c.s.phase} phase")
    cs = c.card(a.card)
    if cs.owner not in c.foes(a.player) or cs.zone not in ("hand", "deck"):
        raise Illegal("#stealing", f"{a.card} is not in an opponent's hand or deck ({', '.join(c.foes(a.player))})")
    if c.s.count("hand", a.player) + 1 > HAND_SIZE:
        raise Illegal("#stealing", f"{a.player} would hold more than {HAND_SIZE} cards: the steal is cancelled")
    c.put(cs.set(zone="hand", controller=a.player))
    c.s.bottom[cs.owner] = tuple(x for x in c.s.bottom.get(cs.owner, ()) if x != cs.id)


def tame(c: Ctx, a: Tame) -> None:
    first = c.s.pending[0] if c.s.pending else None
    if first is None or first.kind != "tame" or first.player != a.player or first.cards != (a.card,):
        cs = c.card(a.card)
        if cs.rogue and not (first is not None and first.kind == "tame"):
            _taming_attempt(c, a, cs)
            return
        raise Illegal("#tameability", f"no taming answer about {a.card} is due from {a.player}")
    c.pop()
    if a.outcome == "rogue":
        cs = c.card(a.card)
        c.put(cs.set(rogue=True, revealed=True, hidden=False))
        c.notice(f"{c.name(cs)} goes rogue: it must be revealed, moves by D6 each day and attacks every soul "
                 "it meets (#rouge)")


def _taming_attempt(c: Ctx, a: Tame, cs: CardState) -> None:
    """#taming: "Either player can attempt to tame a rouge soul ... at the begining of the day before
    contention is resolved. It is first avaliable to the player with initiative. The player who attempts
    taming must have a fully controlled soul already in the same territory as the rouge soul." One attempt
    per player per rogue per day; the players give the outcome of affinity + items against tameability."""
    if c.s.phase != "day":
        raise Illegal("#taming", "taming is attempted at the beginning of the day")
    if c.s.pending or c.s.bout:
        raise Illegal("#taming", "the rules first need an answer: see the prompts")
    if c.s.active != a.player or a.player in c.s.acted or c.s.passed is not None:
        raise Illegal("#taming", f"taming comes at the beginning of the day, first to the player with initiative; "
                                 f"it is not {a.player}'s turn to try")
    assert cs.at is not None
    territory = c.territory_of(cs.at)
    helpers = [x for x in c.souls_in(territory, a.player) if not x.rogue and x.id != cs.id and x.control == a.player]
    if not helpers:
        raise Illegal("#taming", f"{a.player} needs a fully controlled soul already in territory {territory} "
                                 f"to tame {c.name(cs)}")
    tag = f"tame:{cs.id}"
    done = c.s.players[a.player].night_done
    if tag in done:
        raise Illegal("#taming", f"{a.player} already tried to tame {c.name(cs)} today")
    c.s.players[a.player] = c.s.players[a.player].set(night_done=done | {tag})
    if a.outcome == "tamed":
        c.put(cs.set(rogue=False, owner=a.player, controller=None))
        c.notice(f"{a.player} tames {c.name(cs)}: it fights for {a.player} from now on (#taming)")
    else:
        c.notice(f"{a.player}'s taming attempt on {c.name(cs)} fails; it stays rogue (#taming)")


def _healer(c: Ctx, a: Heal) -> None:
    """#keal_means_DHT: "Souls can be healed by other souls, terrain features, or items with a healing ability.
    The soul must be within the same territory as the healing entity ... Healers can only heal a certain
    number of KEAL means with in a certain number of diel cycles. Most healers have the ability to heal
    themselves ... unless they are downed." A day action: one KEAL means per healer per `heal_cycles`."""
    start_action(c, a.player)
    cs = c.own(a.player, a.card, "play")
    if not 1 <= a.index <= len(cs.injuries) or cs.injuries[a.index - 1] == 0:
        raise Illegal("#keal_means_DHT", f"{c.name(cs)}'s KEAL means {a.index} is not injured")
    assert cs.at is not None
    territory = c.territory_of(cs.at)
    healers = [h for h in c.s.play.values() if h.control == a.player and h.at is not None
               and c.territory_of(h.at) == territory and c.effects(h).heals
               and not (h.id == cs.id and c.downed(h))
               and (h.healed_turn == 0 or c.s.turn - h.healed_turn >= c.effects(h).heal_cycles)]
    if not healers:
        raise Illegal("#keal_means_DHT", f"no healer of {a.player}'s in territory {territory} can heal now "
                                         "(healers heal within their territory, once per their healing cycles)")
    healer = sorted(healers, key=lambda h: h.id)[0]
    c.put(healer.set(healed_turn=c.s.turn))
    cs = c.card(cs.id)
    c.put(cs.set(injuries=tuple(n - 1 if i == a.index - 1 else n for i, n in enumerate(cs.injuries))))
    c.notice(f"{c.name(healer)} heals {c.name(cs)}'s KEAL means {a.index} (#keal_means_DHT)")
