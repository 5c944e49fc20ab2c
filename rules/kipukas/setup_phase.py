"""Game setup (#game_setup): affinities, the D6 roll-off, capitals and base camps, effects, the first draw."""

from __future__ import annotations

from rules.core.errors import CatalogError
from rules.kipukas.adaptations import adaptation
from rules.kipukas.context import Ctx, Illegal
from rules.kipukas.notation import Affinity, Camp, Capital, DefaultEffect, Draw, Personal, Roll
from rules.kipukas.turns import start_turn

HAND_SIZE = 3
TERRITORIES_EACH = 3
DEFAULT_EFFECT_CYCLES = 5


def _phase(c: Ctx, *phases: str) -> None:
    if c.s.phase not in phases:
        raise Illegal("#game_setup", f"not now: the game is in its {c.s.phase} phase")


def affinity(c: Ctx, a: Affinity) -> None:
    _phase(c, "affinity")
    p = c.s.players[a.player]
    if p.affinity is not None:
        raise Illegal("#game_setup", f"{a.player} already declared {p.affinity} as their crux")
    try:
        name = adaptation(a.adaptation)
    except CatalogError as exc:
        raise Illegal("#affinity", exc.problem) from None
    c.s.players[a.player] = p.set(affinity=name)
    if all(q.affinity for q in c.s.players.values()):
        c.s.phase = "rolloff"


def rolloff(c: Ctx, a: Roll) -> None:
    _phase(c, "rolloff")
    value = _die(a.value, 6, "#game_setup")
    p = c.s.players[a.player]
    if p.rolloff is not None:
        waiting = [q for q, st in c.s.players.items() if st.rolloff is None and q != a.player]
        raise Illegal("#game_setup", f"{a.player} already rolled {p.rolloff}; wait for {', '.join(waiting)}")
    c.s.players[a.player] = p.set(rolloff=value)
    rolls = [st.rolloff for st in c.s.players.values()]
    if None in rolls:
        return
    if len(set(rolls)) < len(rolls):  # more seats: any tie re-rolls them all, so the placing order is total
        for name in c.s.players:
            c.s.players[name] = c.s.players[name].set(rolloff=None)
        c.notice(f"roll-off tie ({value}): {'both' if len(rolls) == 2 else 'all'} roll the D6 again (#game_setup)")
        return
    order = placing_order(c)
    c.s.first = order[0]
    c.s.initiative = order[-1]  # in trade, the lowest roll gets initiative for the first turn
    c.s.active = order[0]
    c.s.phase = "capitals"


def placing_order(c: Ctx) -> list[str]:
    """The seats from the highest roll-off to the lowest: the order capitals are placed in (#game_setup)."""
    return sorted(c.s.players, key=lambda q: -(c.s.players[q].rolloff or 0))


def _die(value: str, sides: int, rule: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= sides:
        raise Illegal(rule, f"a D{sides} shows 1 to {sides}, not {value!r}")
    return int(value)


def _claim(c: Ctx, player: str, territory: str, kind: str) -> None:
    if c.s.active != player:
        raise Illegal("#game_setup", f"it is {c.s.active}'s turn to place")
    c.territory_stand(territory)
    if territory in c.s.claims:
        raise Illegal("#game_setup", f"territory {territory} is already claimed by {c.s.claims[territory][0]}")
    c.s.claims[territory] = (player, kind)


def capital(c: Ctx, a: Capital) -> None:
    _phase(c, "capitals")
    placed = [t for t, (_, kind) in c.s.claims.items() if kind == "capital"]
    if c.style.adjacent_capitals and placed and not c.board.adjacent_territories(placed[0], a.territory):
        raise Illegal("#playstyleoptions", f"{c.style.title}: players start with only a capital in adjacent "
                                           f"territories; {a.territory} does not border {placed[0]}")
    _claim(c, a.player, a.territory, "capital")
    order = placing_order(c)
    c.s.active = order[(order.index(a.player) + 1) % len(order)]
    if sum(1 for _, kind in c.s.claims.values() if kind == "capital") == len(order):
        c.s.phase = "camps" if c.style.camps else "effects"
        c.s.active = c.s.first if c.style.camps else None


def camp(c: Ctx, a: Camp) -> None:
    _phase(c, "camps")
    each = 1 + c.style.camps  # three each in Domination: a capital and two base camps (#game_setup)
    if sum(1 for owner, _ in c.s.claims.values() if owner == a.player) >= each:
        raise Illegal("#game_setup", f"{a.player} already holds {each} territories")
    _claim(c, a.player, a.territory, "camp")
    held = {p: sum(1 for owner, _ in c.s.claims.values() if owner == p) for p in c.s.players}
    if all(n >= each for n in held.values()):
        c.s.phase = "effects"
        c.s.active = None
        return
    order = placing_order(c)  # base camps go round in the capitals' order, skipping who holds enough
    i = order.index(a.player)
    for k in range(1, len(order) + 1):
        nxt = order[(i + k) % len(order)]
        if held[nxt] < each:
            c.s.active = nxt
            break


def personal(c: Ctx, a: Personal) -> None:
    _phase(c, "effects")
    _no_effect_yet(c, a.player)
    if a.card != "none":
        cs = c.own(a.player, a.card, "aside")
        if c.info(cs).type != "PersonalEffect":
            raise Illegal("#personal_effects", f"{c.name(cs)} is not a personal effect card")
        c.put(cs.set(zone="effect", revealed=False))
        c.notice(f"{a.player}'s personal effect {c.name(cs)} applies as printed, for the whole game")
    _effect_chosen(c, a.player)


def default_effect(c: Ctx, a: DefaultEffect) -> None:
    _phase(c, "effects")
    _no_effect_yet(c, a.player)
    cs = c.own(a.player, a.card, "deck")
    c.put(cs.set(zone="effect"))
    c.s.players[a.player] = c.s.players[a.player].set(effect_due=1 + DEFAULT_EFFECT_CYCLES)
    _effect_chosen(c, a.player)


def _no_effect_yet(c: Ctx, player: str) -> None:
    if c.s.players[player].effect_chosen:
        raise Illegal("#personal_effects", f"{player} already chose their effect; it cannot be changed")


def _effect_chosen(c: Ctx, player: str) -> None:
    c.s.players[player] = c.s.players[player].set(effect_chosen=True)
    if all(p.effect_chosen for p in c.s.players.values()):
        c.s.phase = "draw"


def draw_cards(c: Ctx, player: str, cards: tuple[str, ...], rule: str) -> None:
    """Move `cards` from `player`'s deck to hand, in order, enforcing deck order knowledge and hand size."""
    hand = c.s.count("hand", player)
    if hand + len(cards) > HAND_SIZE:
        raise Illegal(rule, f"{player} holds {hand} cards; drawing {len(cards)} would exceed the hand size of "
                            f"{HAND_SIZE}")
    if len(set(cards)) != len(cards):
        raise Illegal(rule, "the same card is named twice")
    bottom = list(c.s.bottom.get(player, ()))
    deck = c.s.ids_in("deck", player)  # kept as cards leave it (no re-sort per card drawn)
    for card_id in cards:
        cs = c.own(player, card_id, "deck")
        if any(x not in bottom for x in deck):  # cards of unknown order are still above the bottom pile
            if card_id in bottom:
                raise Illegal(rule, f"{card_id} was put at the bottom of the deck; other cards are above it")
        elif bottom and card_id != bottom[0]:
            raise Illegal(rule, f"only the bottom-pile cards remain; the next one is {bottom[0]}")
        if card_id in bottom:
            bottom.remove(card_id)
        deck.discard(card_id)
        c.put(cs.set(zone="hand"))
    c.s.bottom[player] = tuple(bottom)


def setup_draw(c: Ctx, a: Draw) -> None:
    _phase(c, "draw")
    if c.s.in_zone("hand", a.player):
        raise Illegal("#game_setup", f"{a.player} already drew their opening hand")
    deck = c.s.count("deck", a.player)
    if len(a.cards) != min(HAND_SIZE, deck):
        raise Illegal("#game_setup", f"draw exactly {min(HAND_SIZE, deck)} cards from the top of the deck")
    draw_cards(c, a.player, a.cards, "#game_setup")
    done = [p for p in c.s.players if c.s.in_zone("hand", p) or not c.s.in_zone("deck", p)]
    if len(done) == len(c.s.players):
        c.s.turn = 0
        start_turn(c, "day")
