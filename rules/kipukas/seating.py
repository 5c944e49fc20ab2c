"""Who sits at a game (#playstyleoptions): the seats a play style takes, Mass conflict's territory limits by
map size, Band together's third party and Captive's exchanged souls.

Two-seat styles are played by red and blue exactly as before. Mass conflict seats 2-4 players in seat order
red, blue, green, yellow: "8 territories = 2 player max, 9-11 territories = 3 player max, 12 territories = 4
players max or starting territories are limited to 1 capital and 1 base camp" — more players than the map's
maximum start with a capital and one base camp each (and the map must hold those). Band together adds a
third party's seat (default green) that red and blue fight together. Captive: "Each player gives the other a
soul card, which they shuffle into their deck"; the `captives` parameter names the two cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.notation import PLAYERS, SEATS
from rules.kipukas.styles import Style, StyleError


def full_seats(holdable: int) -> int:
    """The most players a map of `holdable` territories takes with three starting territories each."""
    return 2 if holdable <= 8 else 3 if holdable <= 11 else 4


def seated(chosen: Style, decks: Mapping[str, Sequence[str]], board: BoardMap) -> tuple[Style, tuple[str, ...]]:
    """The style as this table plays it and its seats in seat order; `StyleError` naming what is wrong."""
    given = tuple(decks)
    unknown = sorted(set(given) - set(SEATS))
    if unknown:
        raise StyleError(f"{chosen.title}: unknown seat {', '.join(unknown)} (seats: {', '.join(SEATS)})")
    seats = tuple(s for s in SEATS if s in decks)
    fewest, most = chosen.seats
    if chosen.name == "band-together":
        third = chosen.third or "green"
        if third in PLAYERS or third not in SEATS:
            raise StyleError(f"{chosen.title}: the third party sits at green or yellow (red and blue band "
                             f"together), got third={third!r}")
        want = (*PLAYERS, third)
        if set(seats) != set(want):
            raise StyleError(f"{chosen.title} is played by red and blue against the third party {third}, each with "
                             f"a deck; got decks for {', '.join(seats)}")
        return replace(chosen, third=third, allies=frozenset(PLAYERS)), tuple(s for s in SEATS if s in want)
    if most == 2:
        if set(seats) != set(PLAYERS):
            raise StyleError(f"{chosen.title} is played by {' and '.join(PLAYERS)}, each with a deck; got decks for "
                             f"{', '.join(seats)} (3-4 seats: style mass-conflict)")
        return chosen, PLAYERS
    if not fewest <= len(seats) <= most or seats != SEATS[:len(seats)]:
        raise StyleError(f"{chosen.title} seats {fewest}-{most} players in seat order "
                         f"{', '.join(SEATS[:most])}; got decks for {', '.join(seats)}")
    holdable = len(board.holdable)
    camps = chosen.camps
    if len(seats) > full_seats(holdable) and camps > 1:
        camps = 1  # "or starting territories are limited to 1 capital and 1 base camp"
    if len(seats) * (1 + camps) > holdable:
        raise StyleError(f"{chosen.title}: map {board.name!r} has {holdable} territories, too few for {len(seats)} "
                         f"players with {1 + camps} starting territories each")
    return replace(chosen, camps=camps), seats


def captive_pairs(chosen: Style, decks: Mapping[str, Sequence[str]], catalog: Catalog) -> Style:
    """Captive: each player names one soul card of their deck to give the other (`captives=CARD,CARD`)."""
    if chosen.name != "captive":
        return chosen
    named = [c for c in chosen.captives if c]
    givers: dict[str, str] = {}
    for card in named:
        owners = [p for p in PLAYERS if card in decks.get(p, ())]
        if len(owners) != 1:
            raise StyleError(f"{chosen.title}: captive card {card} is not in exactly one deck")
        if not catalog.card(card.split("#")[0]).is_soul:
            raise StyleError(f"{chosen.title}: captive card {card} is not a soul card")
        givers[owners[0]] = card
    if sorted(givers) != sorted(PLAYERS) or len(named) != 2:
        raise StyleError(f"{chosen.title}: each player gives the other one soul card: captives=RED_CARD,BLUE_CARD "
                         f"(one soul of each deck), got {','.join(named) or 'none'}")
    return replace(chosen, captives=(givers["red"], givers["blue"]))
