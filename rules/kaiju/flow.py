"""The order of a turn (seed 003, "Order of a Turn"): draws, the planning phase, active character
selection, the action phase's non-combat actions, healing and the end of the turn, and the win checks
("Winning the Game"). Each function changes a cloned state or raises `Illegal` naming the rule."""

from __future__ import annotations

from rules.core.engine import Illegal
from rules.core.notation import Act
from rules.kaiju.cards import KaijuCatalog
from rules.kaiju.state import CityCard, Combat, KaijuState, Member, Player, Refill, Side

GLORY_TO_WIN = 20
HAND = 5


def living(s: KaijuState) -> list[str]:
    """Seats in initiative order that still have characters on their team."""
    return [seat for seat in s.order if s.players[seat].members]


def to_act(s: KaijuState) -> str | None:
    if s.phase in ("planning", "select", "action") and s.to_act < len(s.order):
        return s.order[s.to_act]
    return None


def unique_id(code: str, taken: set[str]) -> str:
    """`code`, or `code-2`, `code-3` ... when a copy of the card is already on the table."""
    if code not in taken:
        return code
    n = 2
    while f"{code}-{n}" in taken:
        n += 1
    return f"{code}-{n}"


# --- draws ------------------------------------------------------------------------------------------------
def _hand(p: Player, pile: str) -> dict[str, int]:
    return p.planning_hand if pile == "planning" else p.combat_hand


def complete(p: Player, r: Refill) -> bool:
    deck = p.planning_deck if r.pile == "planning" else p.combat_deck
    left = deck.total() + (p.combat_discard.total() if r.pile == "combat" else 0)
    return sum(_hand(p, r.pile).values()) >= r.target or left == 0


def owe(s: KaijuState, seat: str, pile: str, target: int, may_discard: bool) -> None:
    """Demand a draw of `seat`; one that is already complete and allows no choice is dropped at once."""
    r = Refill(pile, target, may_discard)
    if not may_discard and complete(s.players[seat], r):
        return
    s.refills[(seat, pile)] = r


def draw(s: KaijuState, a: Act) -> None:
    pile, card = a.args
    r = s.refills.get((a.seat, pile))
    if r is None:
        raise Illegal("#setup", f"{a.seat} owes no {pile} draw now")
    p = s.players[a.seat]
    if complete(p, r):
        raise Illegal("#setup", f"{a.seat}'s hand already holds {r.target} {pile} cards")
    deck = p.planning_deck if pile == "planning" else p.combat_deck
    if pile == "combat" and deck.total() == 0:  # #combat_ends: shuffle the discard pile to form a new deck
        deck.update(p.combat_discard)
        p.combat_discard.clear()
    if deck[card] <= 0:
        raise Illegal("#setup", f"{card} is not in {a.seat}'s {pile} deck")
    deck[card] -= 1
    if deck[card] == 0:
        del deck[card]
    _hand(p, pile)[card] = _hand(p, pile).get(card, 0) + 1
    r = Refill(pile, r.target, False, r.drawn + 1)
    if complete(p, r):
        del s.refills[(a.seat, pile)]
    else:
        s.refills[(a.seat, pile)] = r


def take(counter: dict[str, int], card: str, what: str) -> None:
    if counter.get(card, 0) <= 0:
        raise Illegal("#playing", f"{card} is not in {what}")
    counter[card] -= 1
    if counter[card] == 0:
        del counter[card]


def discard(s: KaijuState, a: Act) -> None:
    pile, card = a.args
    p = s.players[a.seat]
    if pile == "combat" and s.knockdown == a.seat:
        take(p.combat_hand, card, f"{a.seat}'s combat hand")
        p.combat_discard[card] += 1
        s.knockdown = None
        return
    r = s.refills.get((a.seat, pile))
    if r is None or not r.may_discard:
        raise Illegal("#turn_order", f"{a.seat} may not discard {pile} cards now (only before drawing, in a "
                                      "planning draw, after a combat or when roaring to refill)")
    take(_hand(p, pile), card, f"{a.seat}'s {pile} hand")
    (p.planning_discard if pile == "planning" else p.combat_discard)[card] += 1


def keep(s: KaijuState, a: Act) -> None:
    mine = [k for k in s.refills if k[0] == a.seat]
    if not mine:
        raise Illegal("#turn_order", f"{a.seat} owes no draw")
    p = s.players[a.seat]
    for key in mine:
        if not complete(p, s.refills[key]):
            raise Illegal("#turn_order", f"{a.seat} must draw {key[1]} cards up to {s.refills[key].target} first")
    for key in mine:
        del s.refills[key]


# --- turn order -------------------------------------------------------------------------------------------
def start_turn(s: KaijuState, cat: KaijuCatalog) -> None:
    """#turn_order 1-2: the start of the turn (printed effects only), then the planning draw & discard."""
    s.turn += 1
    s.phase = "planning_draw"
    for seat in living(s):
        owe(s, seat, "planning", cat.team(s.players[seat].team).planning_draw, True)
    s.notices += (f"turn {s.turn}: start-of-turn effects printed on cards happen now",)


def _first(s: KaijuState, start: int) -> int:
    """The index in initiative order of the next seat with characters, from `start`."""
    i = start
    while i < len(s.order) and not s.players[s.order[i]].members:
        i += 1
    return i


def begin(s: KaijuState, phase: str) -> None:
    s.phase = phase
    s.passes = 0
    s.to_act = _first(s, 0)
    if phase == "action":
        _skip_inactive(s)


def _skip_inactive(s: KaijuState) -> None:
    """#actions: a player with no active character when it is their turn to act skips the action phase."""
    while s.to_act < len(s.order) and s.players[s.order[s.to_act]].active is None:
        s.to_act = _first(s, s.to_act + 1)


def next_actor(s: KaijuState, cat: KaijuCatalog) -> None:
    if s.phase == "planning":
        s.to_act = _first(s, s.to_act + 1)
        if s.to_act >= len(s.order):
            s.to_act = _first(s, 0)
        return
    s.to_act = _first(s, s.to_act + 1)
    if s.phase == "action":
        _skip_inactive(s)
    if s.to_act >= len(s.order):
        if s.phase == "select":
            begin(s, "action")
            if s.to_act >= len(s.order):
                end_turn(s, cat)
        else:
            end_turn(s, cat)


def end_turn(s: KaijuState, cat: KaijuCatalog) -> None:
    """#turn_order 6-7: inactive kaiju heal 1 (allies never heal), active characters leave the city."""
    for p in s.players.values():
        for mid, m in p.members.items():
            if m.stats.kaiju and mid not in p.entered and m.damage:
                p.members[mid] = Member(m.id, m.stats, m.damage - 1, m.scar)
        p.active = None
        p.entered = ()
    s.scar_window = ()
    start_turn(s, cat)


def settle(s: KaijuState, cat: KaijuCatalog) -> None:
    """After every action: move the flow on once nothing is owed, and check who has won."""
    check_win(s)
    if s.result is not None:
        s.phase = "over"
        return
    if s.refills or s.knockdown or s.challenge or s.combat is not None:
        return
    if s.phase == "setup":
        start_turn(s, cat)
    elif s.phase == "planning_draw":
        begin(s, "planning")
    elif s.phase == "action" and s.action_open:
        s.action_open = False
        s.scar_window = ()
        next_actor(s, cat)


# --- planning, selection and the basic actions -----------------------------------------------------------
def can_act(s: KaijuState, seat: str, phase: str) -> bool:
    """Whether `seat` is the one to act in `phase` with nothing else owed (draws, a combat, an answer)."""
    return (s.phase == phase and to_act(s) == seat and not s.refills and s.combat is None and not s.challenge
            and not s.action_open)


def _my_turn(s: KaijuState, a: Act, phase: str, rule: str) -> Player:
    if not can_act(s, a.seat, phase):
        waiting = ("draws" if s.refills else "a combat" if s.combat else "a challenge's answer" if s.challenge
                   else "the end of an action" if s.action_open else "")
        raise Illegal(rule, f"it is not {a.seat}'s turn in the {phase} phase (phase {s.phase}, to act "
                            f"{to_act(s) or 'nobody'}" + (f", waiting for {waiting})" if waiting else ")"))
    return s.players[a.seat]


def play(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    """#playing_planning_cards: one planning card in turn; locations and opponents join the city's row,
    allies the team (if a member meets the requirement), events their glory or the discard pile."""
    p = _my_turn(s, a, "planning", "#playing_planning_cards")
    card = cat.planning_card(a.args[0])
    if card.kind == "scar":
        raise Illegal("#playing_planning_cards", f"{card.code} is a scar: played at the end of a combat")
    if card.kind == "ally" and card.requires and not any(card.requires in m.stats.attributes
                                                          for m in p.members.values()):
        raise Illegal("#playing_planning_cards", f"ally {card.code} requires a team member with {card.requires!r}")
    take(p.planning_hand, card.code, f"{a.seat}'s planning hand")
    taken = {c.id for c in s.city} | {m for q in s.players.values() for m in q.members}
    if card.kind in ("location", "opponent"):
        s.city = (*s.city, CityCard(unique_id(card.code, taken), card.code, a.seat, card.as_character()))
    elif card.kind == "ally":
        mid = unique_id(card.code, taken)
        p.members[mid] = Member(mid, card.as_character())
    elif card.glory:
        p.glory_cards = (*p.glory_cards, (card.code, card.glory))
    else:
        p.planning_discard[card.code] += 1
    if card.text:
        s.notices += (f"{card.name}: {card.text}",)
    s.passes = 0
    next_actor(s, cat)


def pass_turn(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    if s.phase == "planning":
        _my_turn(s, a, "planning", "#turn_order")
        s.passes += 1
        if s.passes >= len(living(s)):
            begin(s, "select")
        else:
            next_actor(s, cat)
        return
    _my_turn(s, a, "action", "#actions")
    next_actor(s, cat)


def select(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    p = _my_turn(s, a, "select", "#selecting_an_active_character")
    if a.args[0] not in p.members:
        raise Illegal("#selecting_an_active_character", f"{a.args[0]} is not a conscious member of {a.seat}'s team")
    p.active = a.args[0]
    p.entered = (*p.entered, a.args[0])
    next_actor(s, cat)


def attack(s: KaijuState, a: Act) -> None:
    p = _my_turn(s, a, "action", "#actions")
    seat, target = a.args
    if seat == a.seat or seat not in s.players or s.players[seat].active != target:
        raise Illegal("#actions", f"attack targets another player's active character; {seat} {target} is not one")
    assert p.active is not None
    s.combat = Combat(Side(a.seat, p.active), Side(seat, target), "attacker")


def challenge(s: KaijuState, a: Act) -> None:
    """#actions 2: non-kaiju must accept; a kaiju's owner accepts or declines."""
    _my_turn(s, a, "action", "#actions")
    seat, target = a.args
    q = s.players.get(seat)
    if seat == a.seat or q is None or target not in q.members or q.active == target:
        raise Illegal("#actions", f"challenge targets another player's inactive character; {seat} {target} is not one")
    if q.members[target].stats.kaiju:
        s.challenge = (a.seat, seat, target)
    else:
        accept(s, seat, target, a.seat)


def accept(s: KaijuState, seat: str, target: str, challenger: str) -> None:
    q = s.players[seat]
    q.entered = (*q.entered, target)
    active = s.players[challenger].active
    assert active is not None
    s.combat = Combat(Side(challenger, active), Side(seat, target), "attacker")


def answer(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    if s.challenge is None or s.challenge[1] != a.seat:
        raise Illegal("#actions", f"no challenge waits for {a.seat}'s answer")
    challenger, seat, target = s.challenge
    s.challenge = None
    if a.verb == "accept":
        accept(s, seat, target, challenger)
    else:
        next_actor(s, cat)


def roar(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    """#actions 3: gain 2 energy, and draw 2 combat cards or discard any and draw back up to 5."""
    p = _my_turn(s, a, "action", "#actions")
    p.energy += 2
    if a.args[0] == "draw":
        owe(s, a.seat, "combat", p.combat_hand.total() + 2, False)
    else:
        owe(s, a.seat, "combat", HAND, True)
    s.action_open = True


def rampage(s: KaijuState, a: Act) -> None:
    """#actions 4: move to a city card up to 3 spaces away (each move puts the adjacent card at the end of
    the row) and fight it; the player to the left plays its combat cards."""
    p = _my_turn(s, a, "action", "#actions")
    ids = [c.id for c in s.city]
    if a.args[0] not in ids[:4]:
        raise Illegal("#building_and_moving_the_city", f"{a.args[0]} is not a city card within 3 spaces "
                                                        f"(in order: {', '.join(ids[:4]) or 'the city is empty'})")
    for _ in range(ids.index(a.args[0])):
        s.city = (*s.city[1:], s.city[0])
    proxy = left_of(s, a.seat)
    assert p.active is not None
    s.combat = Combat(Side(a.seat, p.active), Side(proxy, a.args[0], city=True), "attacker")


def left_of(s: KaijuState, seat: str) -> str:
    """The next seat to the left (seating order) that still plays."""
    i = s.seats.index(seat)
    for k in range(1, len(s.seats)):
        other = s.seats[(i + k) % len(s.seats)]
        if s.players[other].members:
            return other
    raise Illegal("#actions", "no other player is left to play for the city")


def check_win(s: KaijuState) -> None:
    """#winning_the_game: 20 glory ends the game (highest total, then most conscious characters, else a
    tie); a player who alone has characters left wins at once."""
    if s.result is not None:
        return
    rich = [seat for seat in s.seats if s.players[seat].glory >= GLORY_TO_WIN]
    if rich:
        top = max(s.players[x].glory for x in rich)
        best = [x for x in rich if s.players[x].glory == top]
        most = max(s.players[x].conscious for x in best)
        best = [x for x in best if s.players[x].conscious == most]
        why = f"{top} glory" if len(best) == 1 else f"{top} glory and {most} conscious characters each"
        s.result = ((best[0],) if len(best) == 1 else (), why, "#winning_the_game")
        return
    alive = [seat for seat in s.seats if s.players[seat].members]
    if len(alive) <= 1:
        s.result = (tuple(alive), "the only team with characters left" if alive else "no team has characters left",
                    "#winning_the_game")
