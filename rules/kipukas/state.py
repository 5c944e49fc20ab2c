"""The game state: small frozen records in a few dicts, so a snapshot is a shallow copy (`GameState.copy`).

Zones of a card: ``deck`` (order unknown to the engine after shuffling, except cards put on the bottom),
``hand``, ``aside`` (a personal effect not used this game), ``play`` (on a stand of the map), ``effect``
(in front of its player: personal effect, default effect, sabotage being resolved), ``prison`` and
``discard``. `GameState.to_text()` is the canonical text used by golden files: stable ordering, one fact
per line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, make_dataclass
from operator import attrgetter
from typing import Any, NamedTuple

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
        values = list(_CARD_VALUES(self))
        for name, value in changes.items():
            values[_CARD_INDEX[name]] = value
        new = _CARD_DRAFT(*values)
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


_FIELD_NAMES: dict[type, tuple[Any, Any, dict[str, int]]] = {}


def _fast_set(record: Any, changes: dict[str, Any]) -> Any:
    """`dataclasses.replace` for the small frozen records, without its per-call field introspection, built
    through the record's mutable twin (`_draft`)."""
    kind = type(record)
    meta = _FIELD_NAMES.get(kind)
    if meta is None:
        names = tuple(f.name for f in fields(record))
        meta = _FIELD_NAMES[kind] = (_draft(kind), attrgetter(*names), {n: i for i, n in enumerate(names)})
    draft, get, index = meta
    values = list(get(record))
    for name, value in changes.items():
        values[index[name]] = value
    new = draft(*values)
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


def _by_id(c: CardState) -> str:
    return c.id


class CardTable(dict[str, CardState]):
    """The game's cards by id, keeping on every write an index by zone and controlling player (`owned`) and
    the cards in play in table order (`play`), so rules that ask "which souls are on the map" or "what is
    in red's hand" look at a handful of cards instead of all sixty.

    `clone()` shares the index dicts copy-on-write (both sides copy a dict before their first write to it),
    so a snapshot per action costs one copy of the id table, not of every index.
    """

    __slots__ = ("journal", "mine", "on", "owned", "play", "play_mine", "settled", "sorted_by", "touched")

    def __init__(self, cards: dict[str, CardState] | None = None) -> None:
        super().__init__(cards or {})
        self.play: dict[str, CardState] = {k: c for k, c in self.items() if c.zone == "play"}
        self.owned: dict[tuple[str, str], dict[str, CardState]] = {}  # (zone, controlling player) -> cards
        for k, c in self.items():
            self.owned.setdefault((c.zone, c.control), {})[k] = c
        self.mine: set[tuple[str, str]] = set(self.owned)  # index dicts this table may write without copying
        self.play_mine = True
        # Stands where a card arrived, left, or changed what it means for claims since claims were last
        # settled (`turns.settle_claims` looks only there, and clears it).
        self.touched: set[str] = {c.at for c in self.values() if c.at is not None}
        self.settled: dict[str, tuple[str, str]] | None = None  # the claims as the last settlement left them
        # While an action is applied in place: (card id, record before the write) per write, for its undo.
        self.journal: list[tuple[str, CardState | None]] | None = None
        # (zone, controlling player or None for everyone) -> its cards sorted by id, until a write there.
        self.sorted_by: dict[tuple[str, str | None], list[CardState]] = {}
        # stand -> the cards in play there (table order within a stand not kept); built on first use
        self.on: dict[str, dict[str, CardState]] | None = None

    def __reduce__(self) -> tuple[type[CardTable], tuple[dict[str, CardState]]]:
        """copy, deepcopy and pickle rebuild the indices from the cards (claims are then looked at everywhere)."""
        return CardTable, (dict(self),)

    def clone(self) -> CardTable:
        new = CardTable.__new__(CardTable)
        dict.update(new, self)
        new.owned = dict(self.owned)
        new.play = self.play
        new.mine, self.mine = set(), set()
        new.play_mine = self.play_mine = False
        new.touched = set(self.touched)
        new.settled = self.settled
        new.journal = None
        new.sorted_by = dict(self.sorted_by)  # the lists are never changed, only dropped
        new.on = None  # rebuilt when first asked for
        return new

    def at_stand(self) -> dict[str, dict[str, CardState]]:
        """Stand -> the cards in play on it, kept up to date on every write once built."""
        on = self.on
        if on is None:
            on = self.on = {}
            for k, c in self.play.items():
                if c.at is not None:
                    on.setdefault(c.at, {})[k] = c
        return on

    def zone(self, zone: str) -> list[CardState]:
        """Every card in `zone`, whoever controls it (unordered)."""
        return [c for (z, _), members in self.owned.items() if z == zone for c in members.values()]

    def any_in(self, zone: str) -> bool:
        """Whether any card is in `zone` (without listing them); the two seats' entries are looked at first."""
        owned = self.owned
        if owned.get((zone, "red")) or owned.get((zone, "blue")):
            return True
        return any(members for (z, _), members in owned.items() if z == zone)

    def sorted_in(self, zone: str, owner: str | None) -> list[CardState]:
        """The cards of `zone` (controlled by `owner`, or everyone's when None) sorted by id; kept until a
        write to that zone, as hands and decks are asked for far more often than they change."""
        key = (zone, owner)
        found = self.sorted_by.get(key)
        if found is None:
            members = self.zone(zone) if owner is None else self.owned.get((zone, owner), {}).values()
            found = self.sorted_by[key] = sorted(members, key=_by_id)
        return list(found)

    def sorted_view(self, zone: str, owner: str) -> list[CardState]:
        """`sorted_in` for one player without the copy: the table's own cached list, which the caller must
        not change (legal-action generation reads hands and decks many times per game)."""
        key = (zone, owner)
        found = self.sorted_by.get(key)
        if found is None:
            found = self.sorted_by[key] = sorted(self.owned.get(key, {}).values(), key=_by_id)
        return found

    def _members(self, key: tuple[str, str]) -> dict[str, CardState]:
        cache = self.sorted_by
        if cache:
            cache.pop(key, None)
            cache.pop((key[0], None), None)
        if key not in self.mine:
            self.owned[key] = dict(self.owned.get(key, {}))
            self.mine.add(key)
        return self.owned[key]

    def __setitem__(self, key: str, cs: CardState) -> None:
        old = dict.get(self, key)
        if self.journal is not None:
            self.journal.append((key, old))
        dict.__setitem__(self, key, cs)
        if old is None or old.at != cs.at or old.zone != cs.zone or old.rogue != cs.rogue \
                or old.equipped_to != cs.equipped_to or old.controller != cs.controller or old.owner != cs.owner:
            if old is not None and old.at is not None:
                self.touched.add(old.at)
            if cs.at is not None:
                self.touched.add(cs.at)
        new_key = (cs.zone, cs.controller or cs.owner)
        if old is None:
            self._members(new_key)[key] = cs
        else:
            old_key = (old.zone, old.controller or old.owner)
            members = self._members(old_key)
            del members[key]
            (members if old_key == new_key else self._members(new_key))[key] = cs
        on = self.on
        if on is not None:
            if old is not None and old.at is not None and old.zone == "play":
                del on[old.at][key]
            if cs.at is not None and cs.zone == "play":
                on.setdefault(cs.at, {})[key] = cs
        if cs.zone == "play":
            if key in self.play:
                if not self.play_mine:
                    self.play, self.play_mine = dict(self.play), True
                self.play[key] = cs
            else:  # entering play is rare: rebuild in the table's order
                self.play, self.play_mine = {k: c for k, c in self.items() if c.zone == "play"}, True
        elif key in self.play:
            if not self.play_mine:
                self.play, self.play_mine = dict(self.play), True
            del self.play[key]

    def __delitem__(self, key: str) -> None:
        old = self[key]
        if self.journal is not None:
            self.journal.append((key, old))
        dict.__delitem__(self, key)
        if self.on is not None and old.at is not None and old.zone == "play":
            del self.on[old.at][key]
        del self._members((old.zone, old.control))[key]
        if key in self.play:
            if not self.play_mine:
                self.play, self.play_mine = dict(self.play), True
            del self.play[key]

    def update(self, *args: object, **kwargs: object) -> None:
        raise TypeError("CardTable is changed one card at a time (cards[id] = record), so its index stays right")

    def rewind(self, journal: list[tuple[str, CardState | None]]) -> None:
        """Undo the writes of `journal` (newest first), through the indices; the journal is not extended."""
        self.journal = None
        for key, old in reversed(journal):
            if old is None:
                self.__delitem__(key)
            else:
                self[key] = old


@dataclass(slots=True)
class GameState:
    cards: dict[str, CardState]
    players: dict[str, PlayerState]
    bottom: dict[str, tuple[str, ...]]
    claims: dict[str, tuple[str, str]] = field(default_factory=dict)  # territory -> (player, capital|camp)
    phase: str = "affinity"   # affinity, rolloff, capitals, camps, effects, draw, diel, day, night, storm, peace, over
    turn: int = 0
    first: str | None = None  # placed the capital first
    active: str | None = None
    initiative: str | None = None
    passed: str | None = None  # called/took initiative this turn: no more actions this turn
    acted: frozenset[str] = frozenset()      # players who already acted this day (contention first)
    contention_due: frozenset[tuple[str, str]] = frozenset()  # (player, territory) carried over to today
    pending: tuple[Pending, ...] = ()
    bout: Bout | None = None
    fixed_means: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)
    result: str | None = None
    origin: str | None = None  # whose top-level action is being resolved (the turn passes from them)
    notices: tuple[str, ...] = ()  # printed-effect reminders raised by the last action
    overrides: dict[str, tuple[tuple[str, bool], ...]] = field(default_factory=dict)  # judge: card -> flags
    hill: tuple[str, int] | None = None  # King of the hill: (holder, diel cycle from which it held the hill)
    tunnels: tuple[tuple[str, str], ...] = ()  # dug during the game by underground dwellers (#habitat_effects)
    rescue: tuple[str, str] | None = None  # Off to the rescue: (player, the soul escorting the survivor)
    done: frozenset[str] = frozenset()  # more than two seats: who ended the turn after another took initiative

    def __post_init__(self) -> None:
        if not isinstance(self.cards, CardTable):
            self.cards = CardTable(self.cards)

    @property
    def play(self) -> dict[str, CardState]:
        """The cards in zone ``play``, in the order of `cards` (an index the card table keeps)."""
        return self.cards.play  # type: ignore[attr-defined, no-any-return]  # __post_init__ made it a CardTable

    def copy(self) -> GameState:
        assert isinstance(self.cards, CardTable)
        return GameState(self.cards.clone(), dict(self.players), dict(self.bottom), dict(self.claims), self.phase,
                         self.turn, self.first, self.active, self.initiative, self.passed, self.acted,
                         self.contention_due, self.pending, self.bout, dict(self.fixed_means), self.result,
                         self.origin, self.notices, dict(self.overrides), self.hill, self.tunnels, self.rescue,
                         self.done)

    def mark(self) -> Undo:
        """Start recording changes for one action applied in place (python-chess's `push`): the scalar
        fields and the small dicts are saved as they are, card writes are journaled by the card table."""
        table: CardTable = self.cards  # type: ignore[assignment]  # __post_init__ made it a CardTable
        journal: list[tuple[str, CardState | None]] = []
        table.journal = journal
        return _new_tuple(Undo, (_STATE_VALUES(self), dict(self.players), dict(self.bottom), dict(self.claims),
                                 dict(self.fixed_means), dict(self.overrides), journal, set(table.touched),
                                 table.settled))

    def restore(self, undo: Undo) -> None:
        """Return to the state `undo` was marked at (python-chess's `pop`); `undo` stays usable."""
        table = self.cards
        assert isinstance(table, CardTable)
        table.rewind(undo.journal)
        for name, value in zip(_STATE_FIELDS, undo.values, strict=True):
            setattr(self, name, value)
        self.players, self.bottom, self.claims = dict(undo.players), dict(undo.bottom), dict(undo.claims)
        self.fixed_means, self.overrides = dict(undo.fixed_means), dict(undo.overrides)
        self.cards = table
        table.touched = set(undo.touched)
        table.settled = undo.settled

    def put(self, cs: CardState) -> None:
        self.cards[cs.id] = cs

    def in_zone(self, zone: str, owner: str | None = None) -> list[CardState]:
        return self.cards.sorted_in(zone, owner)  # type: ignore[attr-defined, no-any-return]  # a CardTable

    def count(self, zone: str, owner: str) -> int:
        """How many cards `owner` controls in `zone` (`len(in_zone(zone, owner))` without listing or sorting)."""
        return len(self.cards.owned.get((zone, owner), ()))  # type: ignore[attr-defined]  # a CardTable

    def ids_in(self, zone: str, owner: str) -> set[str]:
        """The ids of the cards `owner` controls in `zone`, unordered (a new set the caller may change)."""
        return set(self.cards.owned.get((zone, owner), ()))  # type: ignore[attr-defined]  # a CardTable

    def to_text(self) -> str:
        lines = [f"phase {self.phase} turn {self.turn} active {self.active or '-'} "
                 f"initiative {self.initiative or '-'} passed {self.passed or '-'}"]
        if self.result:
            lines.append(f"result {self.result}")
        for name in sorted(self.players):
            p = self.players[name]
            lines.append(f"{name} affinity {p.affinity or '-'} rolloff {p.rolloff or '-'} played {p.played_this_roll}"
                         f" night {','.join(sorted(p.night_done)) or '-'}"
                         + (f" effect-due {p.effect_due}" if p.effect_due is not None else ""))
            for zone in ("hand", "effect", "discard"):
                cards = self.in_zone(zone, name)
                if cards:
                    lines.append(f"{name} {zone} {','.join(c.id for c in cards)}")
            deck = self.in_zone("deck", name)
            lines.append(f"{name} deck {len(deck)}" + (f" bottom {','.join(self.bottom[name])}"
                                                       if self.bottom.get(name) else ""))
        for terr in sorted(self.claims):
            owner, kind = self.claims[terr]
            lines.append(f"claim {terr} {owner} {kind}")
        for c in self.in_zone("play") + self.in_zone("prison"):
            face = "revealed" if c.revealed else "hidden" if c.hidden else "unrevealed"
            flags = [c.zone if c.zone == "prison" else "", face,
                     f"injuries {','.join(map(str, c.injuries))}" if any(c.injuries) else "",
                     f"moved {c.moved}" if c.moved else "", "swimming" if c.swimming else "",
                     "exhausted" if c.exhausted else "", "rogue" if c.rogue else "",
                     f"control {c.controller}" if c.controller else "",
                     f"on {c.equipped_to}" if c.equipped_to else ""]
            lines.append(f"card {c.id} {c.owner} {c.at} " + " ".join(f for f in flags if f))
        for card in sorted(self.overrides):
            lines.append(f"effect {card} " + " ".join(f"{f}={'on' if on else 'off'}" for f, on in self.overrides[card]))
        for end_a, end_b in self.tunnels:
            lines.append(f"tunnel {end_a}-{end_b}")
        if self.hill:
            lines.append(f"hill {self.hill[0]} since {self.hill[1]}")
        if self.rescue:
            lines.append(f"survivor with {self.rescue[0]} {self.rescue[1]}")
        if self.done:
            lines.append("ended " + ",".join(sorted(self.done)))
        if self.contention_due:
            lines.append("contention " + " ".join(f"{p}:{t}" for p, t in sorted(self.contention_due)))
        for pend in self.pending:
            lines.append(f"pending {pend.kind} {pend.player} {pend.territory or '-'} {','.join(pend.cards) or '-'}"
                         + (f" {pend.stand}" if pend.stand else "") + (f" {pend.value}" if pend.value else "")
                         + (f" chase {pend.chase}" if pend.chase else "") + (f" {pend.note}" if pend.note else ""))
        if self.bout:
            b = self.bout
            lines.append(f"bout {b.attacker} {b.defender} {'final' if b.final else 'keal'} "
                         f"means {b.attack_means or '-'}/{b.defence_means or '-'} "
                         f"rolls {b.attack_roll if b.attack_roll is not None else '-'}/"
                         f"{b.defence_roll if b.defence_roll is not None else '-'}"
                         + (f" rounds {','.join(map(str, b.rounds))}" if b.rounds else "")
                         + (f" grab {b.grab}" if b.grab else ""))
        return "\n".join(line.rstrip() for line in lines)


_STATE_FIELDS = tuple(f.name for f in fields(GameState) if f.name != "cards")
_STATE_VALUES = attrgetter(*_STATE_FIELDS)
_new_tuple = tuple.__new__


class Undo(NamedTuple):
    """What `GameState.restore` needs to take one in-place action back: the fields as they were (the small
    dicts copied, as handlers write into them), the card writes in order, and the claim bookkeeping.
    A named tuple built by `GameState.mark` through `tuple.__new__` (one C call; the slotted class it replaces
    ran nine attribute writes in Python per action). Never changed once made."""

    values: tuple[Any, ...]
    players: dict[str, PlayerState]
    bottom: dict[str, tuple[str, ...]]
    claims: dict[str, tuple[str, str]]
    fixed_means: dict[tuple[str, str], tuple[int, int]]
    overrides: dict[str, tuple[tuple[str, bool], ...]]
    journal: list[tuple[str, CardState | None]]
    touched: set[str]
    settled: dict[str, tuple[str, str]] | None
