"""The card catalog: the published Kipukas cards, read from the packaged copy of cards.json.

Souls carry their archetypal gene, motive, habitat, KEAL means, tolerance, movement, die field and
brawl sequence. Spellings that differ from the canonical names ("Algorithimic", "brutal", "service") are
normalised and listed in `Card.data_notes`, so a data problem is visible rather than silently fixed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from rules.core.errors import CatalogError, PayloadError
from rules.kipukas.adaptations import adaptation
from rules.kipukas.dice import RollSpec, parse_die
from rules.kipukas.effects import Effects, packaged_effects
from rules.kipukas.habitats import habitat
from rules.kipukas.identity import CardRef
from rules.kipukas.motives import Motives

SOUL_TYPES = ("Character", "Species")
CARD_TYPES = ("Character", "Species", "TerrainFeature", "Trap", "Sabotage", "Item", "PersonalEffect", "Incubation")


@dataclass(frozen=True, slots=True)
class KealMeans:
    name: str
    adaptations: tuple[str, ...]
    count: int  # injuries this means tolerates before it is unavailable


@dataclass(frozen=True, slots=True)
class Card:
    code: str
    slug: str
    title: str
    type: str
    movement: int | None
    raw: dict[str, Any]
    landscape: bool = False
    scarcity: str = ""
    gene: str | None = None
    motive: str | None = None
    habitat: str | None = None
    tolerance: int | None = None
    die: RollSpec | None = None
    brawl: str | None = None
    keal_means: tuple[KealMeans, ...] = ()
    tameability: int | None = None
    data_notes: tuple[str, ...] = ()

    @property
    def is_soul(self) -> bool:
        return self.type in SOUL_TYPES

    def means(self, name: str) -> KealMeans:
        for m in self.keal_means:
            if m.name.lower() == name.strip().lower():
                return m
        raise CatalogError(name, f"{self.title} ({self.code}) has no KEAL means of that name "
                                 f"(has: {', '.join(m.name for m in self.keal_means)})")


def card_from_row(row: dict[str, Any]) -> Card:
    """Build a `Card` from one cards.json row; `CatalogError` names the card and field on bad data."""
    code = str(row.get("code", "?"))
    try:
        kind = row["type"]
        if kind not in CARD_TYPES:
            raise CatalogError(code, f"type {kind!r} is not one of {', '.join(CARD_TYPES)}")
        base = dict(code=code, slug=row["slug"], title=row["title"], type=kind, raw=row,
                    landscape=bool(row.get("landscape", False)), scarcity=str(row.get("scarcity", "")))
        if kind not in SOUL_TYPES:
            return Card(movement=None, **base)
        notes: list[str] = []
        gene = _canon(adaptation, row["genetic_disposition"], "genetic_disposition", notes)
        motives = Motives.packaged()
        motive = _canon(motives.motive, row["motivation"], "motivation", notes)
        means = tuple(
            KealMeans(m["name"], tuple(_canon(adaptation, g, f"keal_means {m['name']}", notes) for g in m["genetics"]),
                      int(m["count"]))
            for m in row["keal_means"]
        )
        die = parse_die(str(row["die"]))
        if not die.covered:
            notes.append(f"die field {row['die']!r} is outside the die grammar; the players give totals")
        tame = row.get("tamability")
        return Card(movement=int(row["movement"]), gene=gene, motive=motive, habitat=habitat(row["habitat"]),
                    tolerance=int(row["injury_tolerance"]), die=die, brawl=str(row["brawl_sequence"]),
                    keal_means=means, tameability=None if tame is None else int(tame), data_notes=tuple(notes),
                    **base)
    except KeyError as exc:
        raise CatalogError(code, f"cards.json row lacks field {exc.args[0]!r}") from None


def _canon(fn: Any, value: str, field: str, notes: list[str]) -> str:
    canon: str = fn(value)
    if canon != value:
        notes.append(f"{field}: {value!r} read as {canon!r}")
    return canon


KIND_SOUL = 1          # a Character or Species card
KIND_SPACED = 2        # a soul that counts to the three-per-territory limit (not a digital cloud dweller)
KIND_UNDERGROUND = 4   # a soul that digs tunnels
KIND_ITEM = 8          # an item card
KIND_HEALER = 16       # printed effects make it a healer


def _kind(card: Card, healer: bool) -> int:
    """The `KIND_*` bits of a card: one table lookup answers what `rules.legal_items.scan` asks of each card."""
    if card.is_soul:
        return KIND_SOUL | (KIND_SPACED if card.habitat != "DigitalCloud" else 0) \
            | (KIND_UNDERGROUND if card.habitat == "Underground" else 0) | (KIND_HEALER if healer else 0)
    return (KIND_ITEM if card.type == "Item" else 0) | (KIND_HEALER if healer else 0)


@dataclass(frozen=True)
class Catalog:
    cards: dict[str, Card]
    soul_codes: frozenset[str] = frozenset()  # derived in __post_init__: the codes of Character/Species cards
    effects: dict[str, Effects] = field(default_factory=dict)  # printed overrides by code (rules.effects)
    healer_codes: frozenset[str] = frozenset()  # derived: codes whose printed effects make them healers
    # (code, injuries) -> (uninjured KEAL means, downed): a static table `rules.context.Ctx` fills as it asks
    wounds: dict[tuple[str, tuple[int, ...]], tuple[tuple[int, ...], bool]] = field(
        default_factory=dict, repr=False, compare=False)
    # derived: code -> what a pass over the cards in play asks of it, as one small int (`KIND_*` bits)
    kinds: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "soul_codes", frozenset(k for k, c in self.cards.items() if c.is_soul))
        object.__setattr__(self, "healer_codes", frozenset(k for k, fx in self.effects.items() if fx.heals))
        object.__setattr__(self, "kinds", {k: _kind(c, k in self.healer_codes) for k, c in self.cards.items()})

    @classmethod
    @cache
    def packaged(cls) -> Catalog:
        text = (resources.files("rules.kipukas") / "data" / "cards.json").read_text(encoding="utf-8")
        cards = {row["code"]: card_from_row(row) for row in json.loads(text)}
        effects = packaged_effects()
        unknown = sorted(set(effects) - set(cards))
        if unknown:
            raise CatalogError(unknown[0], "effects.json names a card code that is not in cards.json")
        return cls(cards, effects=effects)

    def card(self, code: str) -> Card:
        try:
            return self.cards[code]
        except KeyError:
            raise PayloadError(code, "unknown card code (not in the catalog of published cards)") from None

    def resolve(self, ref: CardRef) -> Card:
        """The catalog card a parsed payload names (by code, or by slug for binder links)."""
        if ref.code is not None:
            return self.card(ref.code)
        for card in self.cards.values():
            if card.slug == ref.slug:
                return card
        raise PayloadError(ref.raw, f"unknown card slug {ref.slug!r}")

    def find(self, name: str) -> Card:
        """A card by code, slug or exact title (case-insensitive) — for command lines and tests."""
        if name in self.cards:
            return self.cards[name]
        low = name.strip().lower()
        for card in self.cards.values():
            if low in (card.slug.lower(), card.title.lower(), card.code.lower()):
                return card
        raise PayloadError(name, "no card with that code, slug or title")

    def souls(self) -> list[Card]:
        return [c for c in self.cards.values() if c.is_soul]
