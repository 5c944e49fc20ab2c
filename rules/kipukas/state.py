"""The game state: small frozen records in a few dicts, so a snapshot is a shallow copy (`GameState.copy`).

Zones of a card: ``deck`` (order unknown to the engine after shuffling, except cards put on the bottom),
``hand``, ``aside`` (a personal effect not used this game), ``play`` (on a stand of the map), ``effect``
(in front of its player: personal effect, default effect, sabotage being resolved), ``prison`` and
``discard``. `GameState.to_text()` is the canonical text used by golden files: stable ordering, one fact
per line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, NamedTuple

from rules.kipukas.card_table import CardTable
from rules.kipukas.journal import JOURNALED, Journaled, rewind_dict
from rules.kipukas.records import ZONES, Bout, CardState, Pending, PlayerState, new_card

__all__ = ["ZONES", "Bout", "CardState", "CardTable", "GameState", "Pending", "PlayerState", "Undo", "new_card"]


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
        fields are saved as they are; card writes and writes into the small dicts are journaled in the card
        table's journal (`rules.kipukas.journal`), so nothing is copied per action."""
        table: CardTable = self.cards  # type: ignore[assignment]  # __post_init__ made it a CardTable
        bound = table.bound
        if bound is None or bound[0] is not self.players or bound[1] is not self.bottom \
                or bound[2] is not self.claims or bound[3] is not self.fixed_means or bound[4] is not self.overrides:
            self._bind(table)
        journal: list[Any] = []
        table.journal = journal
        touched = table.touched
        return _new_tuple(Undo, (_STATE_VALUES(self), journal, frozenset(touched) if touched else _NO_STANDS,
                                 table.settled))

    def _bind(self, table: CardTable) -> None:
        """Make the small dicts journal their writes into `table`'s journal (after a copy, a construction or a
        field set from outside: the first action marked then converts them)."""
        for name in JOURNALED:
            found = getattr(self, name)
            if not (isinstance(found, Journaled) and found.owner is table):
                setattr(self, name, Journaled(name, table, found))
        table.bound = (self.players, self.bottom, self.claims, self.fixed_means, self.overrides)

    def restore(self, undo: Undo) -> None:
        """Return to the state `undo` was marked at (python-chess's `pop`), rewinding its journal newest
        first; `undo` stays usable (it may rewind a copy of the state too, as `rules.kipukas.history` does)."""
        table = self.cards
        assert isinstance(table, CardTable)
        table.journal = None
        journal = undo.journal
        i = len(journal) - 1
        while i >= 0:
            entry = journal[i]
            if type(entry) is tuple:  # a dict write: (field, key, old value)
                rewind_dict(self, *entry)
                i -= 1
            else:  # a card write: its id, then the record before the write (None: the card was added)
                if entry is None:
                    table.__delitem__(journal[i - 1])
                else:
                    table[journal[i - 1]] = entry
                i -= 2
        for name, value in zip(_STATE_FIELDS, undo.values, strict=True):
            setattr(self, name, value)
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


_STATE_FIELDS = tuple(f.name for f in fields(GameState) if f.name != "cards" and f.name not in JOURNALED)
_STATE_VALUES = attrgetter(*_STATE_FIELDS)
_new_tuple = tuple.__new__
_NO_STANDS: frozenset[str] = frozenset()  # shared by the undo records of actions marked with nothing touched


class Undo(NamedTuple):
    """What `GameState.restore` needs to take one in-place action back: the scalar fields as they were, the
    journal of the action's writes in order (card writes and writes into the small dicts), and the claim
    bookkeeping. A named tuple built by `GameState.mark` through `tuple.__new__` (one C call). Never changed
    once made."""

    values: tuple[Any, ...]
    journal: list[Any]
    touched: frozenset[str]
    settled: dict[str, tuple[str, str]] | None
