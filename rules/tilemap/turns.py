"""A player's turn (seed 004 is silent on its order; the simplest reading, docs/games.md): upkeep
(untap, resource, deck from the discard pile when empty, draw up to the map's hand size), the action
phase, the buying phase; and the win conditions the map names."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from rules.core.engine import Illegal
from rules.core.notation import Act
from rules.tilemap.board import TileMap
from rules.tilemap.cards import card
from rules.tilemap.state import TileState


def upkeep(s: TileState, m: TileMap) -> None:
    """#upkeep: untap, gain the map's base resource less the upkeep of controlled units (resource never
    goes below 0: the book is silent on unpaid upkeep), shuffle the discard pile into an empty deck, and
    owe the draw up to the map's hand size."""
    seat = s.active
    p = s.players[seat]
    upkeep_cost = 0
    for perm in list(s.permanents.values()):
        if perm.controller == seat:
            s.put(replace(perm, moves=1, attacks=1, tapped=False, activated=False))
            upkeep_cost += card(perm.code).upkeep
    p.resource = max(0, p.resource + m.base_gain - upkeep_cost)
    p.bought = False
    if p.deck.total() == 0:
        p.deck.update(p.discard)
        p.discard.clear()
    s.phase, s.owed, s.selected = "upkeep", m.hand, None
    if p.hand.total() >= m.hand or p.deck.total() == 0:
        s.phase = "action"


def draw(s: TileState, a: Act) -> None:
    p = s.players[a.seat]
    if s.phase != "upkeep" or a.seat != s.active:
        raise Illegal("#deck", f"{a.seat} owes no draw now")
    if p.deck[a.args[0]] <= 0:
        raise Illegal("#deck", f"{a.args[0]} is not in {a.seat}'s deck")
    take(p.deck, a.args[0])
    p.hand[a.args[0]] += 1
    if p.hand.total() >= s.owed or p.deck.total() == 0:
        s.phase = "action"


def take(counter: Counter[str], code: str) -> None:
    """One `code` out of `counter` (the caller checked it is there); no zero counts are kept."""
    counter[code] -= 1
    if counter[code] <= 0:
        del counter[code]


def end(s: TileState, m: TileMap, a: Act) -> None:
    """End the action phase (the selected permanent is tapped), or the buying phase (the turn passes)."""
    if a.seat != s.active or s.stack or s.phase not in ("action", "buying"):
        raise Illegal("#action_phase", f"{a.seat} cannot end a phase now (active {s.active}, phase {s.phase}"
                                       + (", actions on the stack)" if s.stack else ")"))
    if s.phase == "action":
        tap_selected(s)
        s.phase = "buying"
    else:
        next_turn(s, m)


def tap_selected(s: TileState) -> None:
    if s.selected and s.selected in s.permanents:
        s.put(replace(s.permanents[s.selected], tapped=True))
    s.selected = None


def buy(s: TileState, m: TileMap, a: Act) -> None:
    """#buying: one card per turn, from the own store, in the buying phase, for its buy cost, onto the
    discard pile."""
    p = s.players[a.seat]
    code = a.args[0]
    if a.seat != s.active or s.phase != "buying" or s.stack:
        raise Illegal("#buying", "cards are bought only in one's own buying phase")
    info = card(code)
    if p.store[code] <= 0 or info.buy is None:
        raise Illegal("#buying", f"{code} is not in {a.seat}'s store or has no buy cost")
    if p.resource < info.buy:
        raise Illegal("#buying", f"{code} costs {info.buy}, {a.seat} has {p.resource} resource")
    p.resource -= info.buy
    take(p.store, code)
    p.discard[code] += 1
    next_turn(s, m)


def next_turn(s: TileState, m: TileMap) -> None:
    """The next seat still in the game; a round (`turn`) ends when play wraps to the first seat."""
    seats = s.seats
    i = seats.index(s.active)
    for k in range(1, len(seats) + 1):
        j = (i + k) % len(seats)
        if not s.players[seats[j]].out:
            if j <= i:
                s.turn += 1
            s.active = seats[j]
            break
    upkeep(s, m)


def check_win(s: TileState, m: TileMap) -> None:
    """#win_conditions as the map names them: the last seat with its VIP boss (VIP), or the first to reach
    the resource threshold."""
    if s.result is not None:
        return
    if m.win_resource is not None:
        rich = [x for x in s.in_game() if s.players[x].resource >= m.win_resource]
        if rich:
            s.result = (tuple(rich), f"reached {m.win_resource} resource", "#win_conditions")
    if s.result is None and m.win_vip:
        left = s.in_game()
        if len(left) <= 1:
            s.result = (tuple(left), "the only VIP left on the map" if left else "no VIP left", "#win_conditions")
    if s.result is not None:
        s.phase = "over"
