"""The state of a tile-map game: permanents on tiles, each player's deck, hand, discard pile, store and
resource, the action stack with who still has to pass, and the turn. `clone()` copies one level down."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from rules.core.counters import copy_counter as _copy
from rules.core.notation import Act
from rules.tilemap.board import Tile

MARK_NAMES = ("poison", "paralysis", "panic", "rage", "ward")


@dataclass(frozen=True, slots=True)
class Permanent:
    id: str
    code: str
    owner: str
    controller: str
    tile: Tile
    damage: int = 0
    marks: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)  # MARK_NAMES order
    moves: int = 1
    attacks: int = 1
    tapped: bool = False
    activated: bool = False

    def mark(self, kind: str) -> int:
        return self.marks[MARK_NAMES.index(kind)]

    def with_mark(self, kind: str, delta: int) -> Permanent:
        i = MARK_NAMES.index(kind)
        marks = list(self.marks)
        marks[i] = max(0, marks[i] + delta)
        return replace(self, marks=(marks[0], marks[1], marks[2], marks[3], marks[4]))


@dataclass(frozen=True, slots=True)
class Declared:
    """An action on the stack: the declaration (costs already paid) waiting to be executed."""

    act: Act
    speed: str  # slow, fast, free


@dataclass
class Player:
    deck: Counter[str]
    hand: Counter[str]
    discard: Counter[str]
    store: Counter[str]
    resource: int = 0
    bought: bool = False
    out: bool = False  # lost its VIP

    def clone(self) -> Player:
        return Player(_copy(self.deck), _copy(self.hand), _copy(self.discard), _copy(self.store), self.resource,
                      self.bought, self.out)


@dataclass
class TileState:
    map_name: str
    seats: tuple[str, ...]
    players: dict[str, Player]
    permanents: dict[str, Permanent]
    active: str
    turn: int = 1
    phase: str = "upkeep"  # upkeep (draws owed), action, buying, over
    owed: int = 0          # the active player draws until the hand holds this many (or the deck is empty)
    stack: tuple[Declared, ...] = ()
    priority: tuple[str, ...] = ()  # seats that have not passed since the last declaration or execution
    selected: str | None = None
    serial: int = 0
    result: tuple[tuple[str, ...], str, str] | None = None
    notices: tuple[str, ...] = ()
    by_tile: dict[Tile, str] = field(default_factory=dict)

    def clone(self) -> TileState:
        return TileState(self.map_name, self.seats, {s: p.clone() for s, p in self.players.items()},
                         dict(self.permanents), self.active, self.turn, self.phase, self.owed, self.stack,
                         self.priority, self.selected, self.serial, self.result, self.notices, dict(self.by_tile))

    def at(self, tile: Tile) -> Permanent | None:
        pid = self.by_tile.get(tile)
        return self.permanents[pid] if pid else None

    def put(self, perm: Permanent) -> None:
        old = self.permanents.get(perm.id)
        if old is not None and self.by_tile.get(old.tile) == perm.id:
            del self.by_tile[old.tile]
        self.permanents[perm.id] = perm
        self.by_tile[perm.tile] = perm.id

    def remove(self, pid: str) -> Permanent:
        perm = self.permanents.pop(pid)
        self.by_tile.pop(perm.tile, None)
        return perm

    def in_game(self) -> list[str]:
        return [s for s in self.seats if not self.players[s].out]
