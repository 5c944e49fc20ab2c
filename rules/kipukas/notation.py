"""Actions and their canonical text notation (docs/notation.md).

Every action is ``<player> <verb> <arguments...>``, e.g. ``red move HMPU#0004 T7-M6`` or
``blue roll d20 14``. Each verb is a small frozen dataclass; `parse()` and `Action.to_text()` are
inverse (``parse(a.to_text()) == a``). Lists are comma separated without spaces (``4,5``,
``ro1A#0001,jSYU#0002``); a stand pair is ``FROM-TO``. Errors name the text and what was expected.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import ClassVar, TypeVar, get_type_hints

from rules.kipukas.notation_words import _OTHER_ROLL, _ROLLS, _WORD, NotationError, _check_card, _convert

PLAYERS = ("red", "blue")  # the seats of a two-player game, in seat order
SEATS = (*PLAYERS, "green", "yellow")  # every seat the notation knows (Mass conflict: up to 4 players)
@dataclasses.dataclass(frozen=True, slots=True)
class Action:
    """Base of all actions. `verb` is the notation keyword; `choices` restricts word fields."""

    player: str
    verb: ClassVar[str] = ""
    choices: ClassVar[dict[str, tuple[str, ...]]] = {}

    def to_text(self) -> str:
        words = [self.player, self.verb]
        names = _NAMES.get(type(self))
        if names is None:
            names = _NAMES[type(self)] = tuple(f.name for f in dataclasses.fields(self)[1:] if _required(f))
        for name in names:
            value = getattr(self, name)
            if isinstance(value, tuple):
                words.append(("-" if name == "path" else ",").join(str(v) for v in value))
            else:
                words.append(str(value))
        for f in _optional(type(self)):
            value = getattr(self, f.name)
            if value != f.default:
                words += [f.name, ",".join(map(str, value)) if isinstance(value, tuple) else str(value)]
        return " ".join(words)

    def __str__(self) -> str:
        return self.to_text()


def _required(f: dataclasses.Field[object]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _optional(cls: type[Action]) -> tuple[dataclasses.Field[object], ...]:
    """Keyword arguments written ``NAME VALUE`` after the positional ones, only when not the default."""
    found = _OPTIONAL.get(cls)
    if found is None:
        found = _OPTIONAL[cls] = tuple(f for f in dataclasses.fields(cls)[1:] if not _required(f))
    return found


_OPTIONAL: dict[type[Action], tuple[dataclasses.Field[object], ...]] = {}
_REGISTRY: dict[str, type[Action]] = {}
_NAMES: dict[type[Action], tuple[str, ...]] = {}  # argument field names per verb, in notation order
A = TypeVar("A", bound=Action)


def _verb(name: str, **choices: tuple[str, ...]) -> Callable[[type[A]], type[A]]:
    def register(cls: type[A]) -> type[A]:
        cls.verb = name
        cls.choices = choices
        _REGISTRY[name] = cls
        return cls
    return register


@_verb("affinity")
@dataclasses.dataclass(frozen=True, slots=True)
class Affinity(Action):
    adaptation: str


@_verb("roll", what=("d6", "diel", "d20", "attack", "defence", "escape", "chase", "territory"))
@dataclasses.dataclass(frozen=True, slots=True)
class Roll(Action):
    """Dice results: faces in die order, or ``=N`` (a total) for die fields outside the grammar.
    For ``diel`` the value is ``day``, ``night`` or ``storm``."""

    what: str
    value: str


@_verb("capital")
@dataclasses.dataclass(frozen=True, slots=True)
class Capital(Action):
    territory: str


@_verb("camp")
@dataclasses.dataclass(frozen=True, slots=True)
class Camp(Action):
    territory: str


@_verb("personal")
@dataclasses.dataclass(frozen=True, slots=True)
class Personal(Action):
    """Personal effect card for the game, or ``none``."""

    card: str


@_verb("default")
@dataclasses.dataclass(frozen=True, slots=True)
class DefaultEffect(Action):
    """The default effect: a card from the deck put in front of the player, played in 5 diel cycles."""

    card: str


@_verb("draw")
@dataclasses.dataclass(frozen=True, slots=True)
class Draw(Action):
    cards: tuple[str, ...]


@_verb("initiative")
@dataclasses.dataclass(frozen=True, slots=True)
class Initiative(Action):
    pass


@_verb("end")
@dataclasses.dataclass(frozen=True, slots=True)
class End(Action):
    pass


@_verb("play", face=("revealed", "unrevealed", "hidden"))
@dataclasses.dataclass(frozen=True, slots=True)
class Play(Action):
    card: str
    territory: str
    face: str


@_verb("reveal")
@dataclasses.dataclass(frozen=True, slots=True)
class Reveal(Action):
    card: str


@_verb("move")
@dataclasses.dataclass(frozen=True, slots=True)
class Move(Action):
    """``red move HMPU#0004 T7-T6`` or, naming the stands passed on the way, ``... T7-T6 via M7b``: the
    route decides which territories the soul passes through (trap rolls, #traps)."""

    card: str
    path: tuple[str, str]
    via: tuple[str, ...] = ()


@_verb("swim")
@dataclasses.dataclass(frozen=True, slots=True)
class Swim(Action):
    card: str
    faces: tuple[int, ...]


@_verb("trap", outcome=("sprung", "idle"))
@dataclasses.dataclass(frozen=True, slots=True)
class Trap(Action):
    card: str
    outcome: str


@_verb("attack")
@dataclasses.dataclass(frozen=True, slots=True)
class Attack(Action):
    card: str
    target: str


@_verb("means")
@dataclasses.dataclass(frozen=True, slots=True)
class Means(Action):
    """Secret choice of KEAL means (1-based index on the card) for the current pairing."""

    card: str
    index: int


@_verb("stop")
@dataclasses.dataclass(frozen=True, slots=True)
class Stop(Action):
    pass


@_verb("retreat")
@dataclasses.dataclass(frozen=True, slots=True)
class Retreat(Action):
    cards: tuple[str, ...]
    stand: str


@_verb("challenge", answer=("challenge", "release"))
@dataclasses.dataclass(frozen=True, slots=True)
class Challenge(Action):
    answer: str


@_verb("hold")
@dataclasses.dataclass(frozen=True, slots=True)
class Hold(Action):
    """Leave a carried-over contention for today when none of your souls there can attack."""

    territory: str


@_verb("bottom")
@dataclasses.dataclass(frozen=True, slots=True)
class Bottom(Action):
    pass


@_verb("craft")
@dataclasses.dataclass(frozen=True, slots=True)
class Craft(Action):
    """Combine 2-3 items from hand; equip them to a soul (card id) or drop them in a territory."""

    cards: tuple[str, ...]
    target: str


@_verb("sabotage")
@dataclasses.dataclass(frozen=True, slots=True)
class Sabotage(Action):
    card: str


@_verb("injure")
@dataclasses.dataclass(frozen=True, slots=True)
class Injure(Action):
    """Storm (or card-effect) damage: one injury to the soul's KEAL means `index`."""

    card: str
    index: int


@_verb("heal")
@dataclasses.dataclass(frozen=True, slots=True)
class Heal(Action):
    """Plains healing: one injury of the soul's KEAL means `index` heals."""

    card: str
    index: int


@_verb("discard")
@dataclasses.dataclass(frozen=True, slots=True)
class Discard(Action):
    """A card of yours leaves play or hand by its printed effect (resolved sabotage, spent trap, ...)."""

    card: str


@_verb("steal")
@dataclasses.dataclass(frozen=True, slots=True)
class Steal(Action):
    card: str


@_verb("tame", outcome=("tamed", "rogue"))
@dataclasses.dataclass(frozen=True, slots=True)
class Tame(Action):
    card: str
    outcome: str


@_verb("peace", choice=("keep", "reserves"))
@dataclasses.dataclass(frozen=True, slots=True)
class Peace(Action):
    choice: str


@_verb("effect", state=("on", "off"))
@dataclasses.dataclass(frozen=True, slots=True)
class Effect(Action):
    """A judge sets a printed-effect flag (`rules.effects.FLAGS`) for one card: ``judge effect ZrrD#0001
    attacks_downed on``. Only the judge says it."""

    card: str
    flag: str
    state: str


@_verb("equip")
@dataclasses.dataclass(frozen=True, slots=True)
class Equip(Action):
    """Equip an item from hand to one of your souls in play, during the day's movement (#equiping)."""

    card: str
    target: str


@_verb("unequip")
@dataclasses.dataclass(frozen=True, slots=True)
class Unequip(Action):
    """Unequip an item: it is dropped in the territory where the soul stands (#equiping)."""

    card: str


@_verb("pass")
@dataclasses.dataclass(frozen=True, slots=True)
class Pass(Action):
    """Pass an equipped item to another of your souls on the same stand (#equiping)."""

    card: str
    target: str


@_verb("pickup")
@dataclasses.dataclass(frozen=True, slots=True)
class Pickup(Action):
    """A soul picks up and equips a dropped item in its territory, from an uncontested stand (#equiping)."""

    card: str
    target: str


@_verb("resolve", outcome=("success", "failure"))
@dataclasses.dataclass(frozen=True, slots=True)
class Resolve(Action):
    """A sabotage card's result by its printed criteria; the card is then discarded (#sabotage)."""

    card: str
    outcome: str


@_verb("dig")
@dataclasses.dataclass(frozen=True, slots=True)
class Dig(Action):
    """An underground dweller digs a tunnel from its stand to a stand it can reach today in another territory
    (#habitat_effects: "Undergroud dwellers can make underground tunnels")."""

    card: str
    stand: str


@_verb("roam")
@dataclasses.dataclass(frozen=True, slots=True)
class Roam(Action):
    """A rogue soul's D6 step (#rouge): its original player moves it one line, to the stand the D6 picked."""

    card: str
    stand: str


@_verb("bs")
@dataclasses.dataclass(frozen=True, slots=True)
class Bs(Action):
    """Call out the opponent's last action as making no sense, before its effect is used (#BS)."""


@_verb("concede", reasonability=("for", "against"))
@dataclasses.dataclass(frozen=True, slots=True)
class Concede(Action):
    """#BS: one player concedes reasonability: ``for`` (the action stands) or ``against`` (it is taken back).
    ``judge concede ...`` is the tie-breaking third individual's call."""

    reasonability: str


@_verb("grab")
@dataclasses.dataclass(frozen=True, slots=True)
class Grab(Action):
    """The soul a player sends to grab an item dropped in a contested territory (#items)."""

    card: str
    target: str


@_verb("imprison")
@dataclasses.dataclass(frozen=True, slots=True)
class Imprison(Action):
    """A card effect takes an enemy soul prisoner in a base camp or capital the player holds (#prison)."""

    card: str
    territory: str


@_verb("release")
@dataclasses.dataclass(frozen=True, slots=True)
class Release(Action):
    """The conditions of a card-effect prison are met: the prisoner's player takes it back (#prison)."""

    card: str


@_verb("award", winner=SEATS)
@dataclasses.dataclass(frozen=True, slots=True)
class Award(Action):
    """The referee of a competition special confirms what only the ref's printed card decides (the marked
    terrain feature used against the opponent, the marked trap set off): ``judge award red`` (#playstyleoptions)."""

    winner: str


JUDGE = "judge"
JUDGE_VERBS = ("effect", "concede", "award")
VERBS: tuple[str, ...] = tuple(_REGISTRY)


def parse(text: str) -> Action:
    """Parse one action in canonical notation; `NotationError` naming the text on any problem."""
    words = text.split()
    if len(words) < 2:
        raise NotationError(text, "expected '<player> <verb> ...' (e.g. 'red move HMPU#0004 T7-M6')")
    player, verb, rest = words[0], words[1], words[2:]
    if player == JUDGE and verb not in JUDGE_VERBS:
        raise NotationError(text, f"the judge says only {', '.join(JUDGE_VERBS)}")
    if player not in SEATS and player != JUDGE:
        raise NotationError(text, f"unknown player {player!r} (players: {', '.join(SEATS)})")
    if verb in ("effect", "award") and player != JUDGE:
        raise NotationError(text, f"only the judge says {verb!r} (judge {verb} ...)")
    cls = _REGISTRY.get(verb)
    if cls is None:
        raise NotationError(text, f"unknown verb {verb!r} (verbs: {', '.join(VERBS)})")
    fields = [f for f in dataclasses.fields(cls)[1:] if _required(f)]
    optional = {f.name: f for f in _optional(cls)}
    extra = rest[len(fields):]
    if len(rest) < len(fields) or len(extra) % 2 or any(extra[i] not in optional for i in range(0, len(extra), 2)):
        usage = " ".join(f"<{f.name}>" for f in fields) + "".join(f" [{n} <{n}>]" for n in optional)
        raise NotationError(text, f"{verb} takes {len(fields)} argument(s): {player} {verb} {usage}".rstrip())
    hints = get_type_hints(cls)
    values: list[object] = []
    for f, word in zip(fields, rest, strict=False):
        values.append(_checked(text, cls, f.name, hints[f.name], word))
    keywords = {extra[i]: _checked(text, cls, extra[i], hints[extra[i]], extra[i + 1]) for i in range(0, len(extra), 2)}
    if cls is Roll and not _ROLLS.get(words[2], _OTHER_ROLL).match(words[3]):
        raise NotationError(text, f"a {words[2]} roll cannot show {words[3][:40]!r}")
    return cls(player, *values, **keywords)


def _checked(text: str, cls: type[Action], name: str, hint: object, word: str) -> object:
    """One argument: only notation characters, a card field a card id, then converted to its type."""
    if not _WORD.match(word):
        raise NotationError(text, f"{name} {word[:40]!r} may hold only letters, digits and # = , _ -")
    if name == "card" and not (cls is Personal and word == "none"):
        _check_card(text, word)
    return _convert(text, name, hint, word, cls.choices.get(name))
