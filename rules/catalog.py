"""The card catalog: the published Kipukas cards, read from the packaged copy of cards.json."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from rules.errors import PayloadError
from rules.identity import CardRef

SOUL_TYPES = ("Character", "Species")


@dataclass(frozen=True, slots=True)
class Card:
    code: str
    slug: str
    title: str
    type: str
    movement: int | None
    raw: dict[str, Any]

    @property
    def is_soul(self) -> bool:
        return self.type in SOUL_TYPES


@dataclass(frozen=True)
class Catalog:
    cards: dict[str, Card]

    @classmethod
    @cache
    def packaged(cls) -> Catalog:
        text = (resources.files("rules") / "data" / "cards.json").read_text(encoding="utf-8")
        cards = {}
        for row in json.loads(text):
            cards[row["code"]] = Card(row["code"], row["slug"], row["title"], row["type"],
                                      row.get("movement"), row)
        return cls(cards)

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
