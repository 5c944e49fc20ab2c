"""The state of a Colossal Kaiju Combat game: one record per player, the city, the combat in progress and
the draws the rules demand. `clone()` copies one level down (card codes are strings, members small
records), which is what makes undo snapshots cheap."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rules.core.counters import copy_counter as _copy
from rules.kaiju.cards import Character

PHASES = ("setup", "planning_draw", "planning", "select", "action", "over")


@dataclass(frozen=True, slots=True)
class Member:
    """A character on a team: a kaiju or an ally, its damage and its scar."""

    id: str
    stats: Character
    damage: int = 0
    scar: str | None = None


@dataclass(frozen=True, slots=True)
class CityCard:
    id: str
    code: str
    owner: str
    stats: Character
    damage: int = 0


@dataclass(frozen=True, slots=True)
class Refill:
    """A draw the rules demand of a seat: draw from `pile` until the hand holds `target` cards (or the pile and, for
    combat cards, its discard are empty); discards allowed first when `may_discard`."""

    pile: str
    target: int
    may_discard: bool
    drawn: int = 0


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a combat: the seat that plays its cards, and the fighter (a member or a city card)."""

    seat: str
    fighter: str
    city: bool = False
    spent_ferocity: int = 0
    spent_agility: int = 0
    spent_energy: int = 0
    raged: bool = False
    card: str | None = None  # face-down this exchange
    played: bool = False     # acted this exchange (a card or a pass)
    stack: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Combat:
    attacker: Side
    defender: Side
    initiative: str  # "attacker" or "defender"
    passes: int = 0


@dataclass
class Player:
    team: str
    members: dict[str, Member]
    planning_deck: Counter[str]
    combat_deck: Counter[str]
    planning_hand: Counter[str] = field(default_factory=Counter)
    combat_hand: Counter[str] = field(default_factory=Counter)
    planning_discard: Counter[str] = field(default_factory=Counter)
    combat_discard: Counter[str] = field(default_factory=Counter)
    energy: int = 0
    fury: int = 0
    glory_cards: tuple[tuple[str, int], ...] = ()  # (card, glory) won
    glory_tokens: int = 0
    active: str | None = None
    entered: tuple[str, ...] = ()  # members that were in the active area this turn (they do not heal)

    def clone(self) -> Player:
        return Player(self.team, dict(self.members), _copy(self.planning_deck), _copy(self.combat_deck),
                      _copy(self.planning_hand), _copy(self.combat_hand), _copy(self.planning_discard),
                      _copy(self.combat_discard), self.energy, self.fury, self.glory_cards, self.glory_tokens,
                      self.active, self.entered)

    @property
    def glory(self) -> int:
        return self.glory_tokens + sum(g for _, g in self.glory_cards)

    @property
    def conscious(self) -> int:
        return len(self.members)


@dataclass
class KaijuState:
    seats: tuple[str, ...]         # seating order (left = next)
    order: tuple[str, ...]         # initiative order, fixed for the game
    players: dict[str, Player]
    phase: str = "setup"
    turn: int = 0
    city: tuple[CityCard, ...] = ()  # city[0] is the card the battle is next to
    to_act: int = 0                # index into `order` in the sequential phases
    passes: int = 0                # consecutive passes in the planning phase
    refills: dict[tuple[str, str], Refill] = field(default_factory=dict)  # (seat, pile) -> draw owed
    combat: Combat | None = None
    challenge: tuple[str, str, str] | None = None  # (challenger, seat, member) waiting for accept/decline
    knockdown: str | None = None   # seat that must discard a combat card at random
    action_open: bool = False      # the current action ends once the draws it demanded are done
    scar_window: tuple[tuple[str, str], ...] = ()  # (seat, member) that fought and survived the last combat
    result: tuple[tuple[str, ...], str, str] | None = None  # winners, reason, rule
    notices: tuple[str, ...] = ()

    def clone(self) -> KaijuState:
        return KaijuState(self.seats, self.order, {s: p.clone() for s, p in self.players.items()}, self.phase,
                          self.turn, self.city, self.to_act, self.passes, dict(self.refills), self.combat,
                          self.challenge, self.knockdown, self.action_open, self.scar_window, self.result,
                          self.notices)
