"""The tile-map game's card data (`data/cards.json`): units, bosses and spells with the numbers its rules
reference (seed 004, "Cards", "Units", "Boss", "State Marks", "Push")."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from rules.core.errors import CatalogError

TYPES = ("unit", "boss", "spell")
EFFECTS = ("damage", "push", "poison", "paralysis", "panic", "rage", "ward")
MARKS = ("poison", "paralysis", "panic", "rage", "ward")


@dataclass(frozen=True, slots=True)
class Card:
    code: str
    type: str
    buy: int | None            # no buy cost: cannot be bought (start cards, bosses)
    play: int | None           # no play cost: cannot be played as an action (bosses: map only)
    upkeep: int = 0
    health: int = 0
    movement: int = 0
    attack: int = 0
    range: int = 0
    swimming: bool = False
    push: int = 0              # units: push the attacked permanent this far after combat
    shroud: bool = False
    effect: str | None = None  # spells
    amount: int = 0
    units_only: bool = False

    @property
    def permanent(self) -> bool:
        return self.type in ("unit", "boss")


def _card(raw: dict[str, Any]) -> Card:
    kind = raw["type"]
    if kind not in TYPES:
        raise CatalogError(raw.get("code", "?"), f"card type {kind!r} unknown (types: {', '.join(TYPES)})")
    if kind == "spell":
        if raw["effect"] not in EFFECTS:
            raise CatalogError(raw["code"], f"spell effect {raw['effect']!r} unknown")
        return Card(raw["code"], kind, raw["buy"], raw["play"], effect=raw["effect"], amount=int(raw["amount"]),
                    units_only=bool(raw["units_only"]))
    return Card(raw["code"], kind, raw["buy"], raw["play"], int(raw["upkeep"]), int(raw["health"]),
                int(raw["movement"]), int(raw["attack"]), int(raw["range"]), bool(raw["swimming"]), int(raw["push"]),
                bool(raw["shroud"]))


@cache
def packaged() -> dict[str, Card]:
    """The card data shipped with the package, by code."""
    raw = json.loads(resources.files("rules.tilemap").joinpath("data/cards.json").read_text(encoding="utf-8"))
    try:
        return {c["code"]: _card(c) for c in raw["cards"]}
    except (KeyError, TypeError, ValueError) as exc:
        raise CatalogError("tilemap cards.json", f"malformed card data: {exc!r}") from exc


def card(code: str) -> Card:
    cards = packaged()
    if code not in cards:
        raise CatalogError(code, f"not a card of the tile-map card data (known: {', '.join(sorted(cards))})")
    return cards[code]
