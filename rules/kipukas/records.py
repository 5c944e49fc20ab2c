"""The game state's small frozen records: a card (`CardState`), a player (`PlayerState`), an attack
(`Bout`) and what the rules wait for (`Pending`), each rebuilt through a mutable twin of its class when it
changes (`CardState.set`, `_fast_set`), since a frozen dataclass's own `__init__` is the dearer way.

Zones of a card: ``deck`` (order unknown to the engine after shuffling, except cards put on the bottom),
``hand``, ``aside`` (a personal effect not used this game), ``play`` (on a stand of the map), ``effect``
(in front of its player: personal effect, default effect, sabotage being resolved), ``prison`` and
``discard``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, make_dataclass
from operator import attrgetter
from typing import Any

ZONES = ("aside", "deck", "hand", "play", "effect", "prison", "discard")


@dataclass(frozen=True, slots=True)
class CardState:
    id: str
    code: str
    owner: str
    zone: str
    at: str | None = None           # stand id while in play or prison
    revealed: bool = False
    hidden: bool = False            # face down under the mat (#placement_how); never revealed while hidden
    injuries: tuple[int, ...] = ()  # per KEAL means, for souls
    played_turn: int = 0
    played_revealed: bool = False
    arrived_turn: int = 0           # turn the soul reached its current stand (loitering, #prison)
    moved: int = 0                  # movement used today
    swim_tried: bool = False
    swimming: bool = False
    exhausted: bool = False         # lost an attack or a challenged retreat: no more attacks today
    rogue: bool = False
    rested: int = 0                 # diel cycles rested uninjured-by-combat on uncontested plains (healing)
    controller: str | None = None   # who controls it in play when not its owner (captured terrain, items)
    equipped_to: str | None = None  # items: the soul carrying them
    healed_turn: int = 0            # healers: the diel cycle they last healed (#keal_means_DHT)

    @property
    def control(self) -> str:
        return self.controller or self.owner

    def set(self, **changes: Any) -> CardState:
        # a copy through the mutable twin (`_draft`), the changed slots written there, then made a CardState
        new = _CARD_DRAFT(*_CARD_VALUES(self))
        for name, value in changes.items():
            setattr(new, name, value)
        new.__class__ = CardState
        return new  # type: ignore[no-any-return]


def _draft(cls: type) -> Any:
    """A mutable twin of the frozen slotted record class `cls`: the same slots in the same order, so an
    instance built through it can take `cls` as its class. A frozen dataclass's `__init__` writes each field
    through `object.__setattr__` (about five times the cost of a plain slot write), and records are rebuilt
    on almost every action; the result is an ordinary, frozen, equal-comparing `cls` instance."""
    return make_dataclass(f"_{cls.__name__}Draft", [(f.name, f.type) for f in fields(cls)], slots=True, eq=False,
                          repr=False)


_CARD_FIELDS = tuple(f.name for f in fields(CardState))
_CARD_VALUES = attrgetter(*_CARD_FIELDS)  # one C call instead of dataclasses.replace's per-field work
_CARD_INDEX = {name: i for i, name in enumerate(_CARD_FIELDS)}
_CARD_DRAFT = _draft(CardState)
_CARD_DEFAULTS = tuple(f.default for f in fields(CardState))[4:]  # the fields after id, code, owner and zone


def new_card(card_id: str, code: str, owner: str, zone: str, injuries: tuple[int, ...]) -> CardState:
    """``CardState(card_id, code, owner, zone, injuries=injuries)`` built through the mutable twin: a game's
    sixty cards are made at every `Game.new`, and the frozen class's `__init__` is the dearer way."""
    values = [card_id, code, owner, zone, *_CARD_DEFAULTS]
    values[_CARD_INDEX["injuries"]] = injuries
    new = _CARD_DRAFT(*values)
    new.__class__ = CardState
    return new  # type: ignore[no-any-return]


_FIELD_NAMES: dict[type, tuple[Any, Any]] = {}  # record class -> (its mutable twin, a getter of its fields)


def _fast_set(record: Any, changes: dict[str, Any]) -> Any:
    """`dataclasses.replace` for the small frozen records, without its per-call field introspection, built
    through the record's mutable twin (`_draft`)."""
    kind = type(record)
    meta = _FIELD_NAMES.get(kind)
    if meta is None:
        names = tuple(f.name for f in fields(record))
        meta = _FIELD_NAMES[kind] = (_draft(kind), attrgetter(*names))
    draft, get = meta
    new = draft(*get(record))
    for name, value in changes.items():
        setattr(new, name, value)
    new.__class__ = kind
    return new


@dataclass(frozen=True, slots=True)
class PlayerState:
    affinity: str | None = None
    rolloff: int | None = None
    effect_chosen: bool = False
    effect_due: int | None = None   # turn from which the default-effect card must be played
    played_this_roll: int = 0
    night_done: frozenset[str] = frozenset()
    peace: str | None = None
    lost: int = 0                   # own souls wasted so far (play-style scoring: body count, ends and means)
    hunted: int = 0                 # own souls of The hunt's huntable type wasted so far

    def set(self, **changes: Any) -> PlayerState:
        new: PlayerState = _fast_set(self, changes)
        return new


@dataclass(frozen=True, slots=True)
class Bout:
    """One attack between two souls: a KEAL means bout or a final blow, waiting for means or rolls."""

    attacker: str
    defender: str
    final: bool
    attack_means: int | None = None
    defence_means: int | None = None
    attack_roll: int | None = None
    defence_roll: int | None = None
    rounds: tuple[int, ...] = ()    # final blow best-of-3: +1 attacker won a round, -1 defender
    grab: str = ""                  # a grab bout for this dropped item (#items)

    def set(self, **changes: Any) -> Bout:
        new: Bout = _fast_set(self, changes)
        return new


@dataclass(frozen=True, slots=True)
class Pending:
    """Something the rules demand before play goes on, addressed to `player` (see `Game.prompts`)."""

    kind: str            # trap-roll, trap, combat, challenge, escape, damage, heal, tame, peace
    player: str
    territory: str = ""
    cards: tuple[str, ...] = ()
    stand: str = ""
    value: int = 0       # D20 of a trap roll, tameability, or the escape 2D6 total of a retreat
    chase: int = 0       # the challenger's D20 of a retreat
    note: str = ""

    def set(self, **changes: Any) -> Pending:
        new: Pending = _fast_set(self, changes)
        return new
