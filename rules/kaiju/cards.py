"""The Colossal Kaiju Combat card data the rules reference (`data/cards.json`): team cards, characters,
combat cards and planning cards, with the stats the rule book's flow uses. Printed rules text is kept
as text: the engine shows it as a prompt, it never interprets it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, TypeVar

from rules.core.errors import CatalogError

ICONS = ("offense", "defense")
COMBAT_KINDS = ("attack", "technique", "defense", "counter")
PLANNING_KINDS = ("location", "opponent", "ally", "event", "scar")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Team:
    code: str
    name: str
    initiative: int
    planning_draw: int
    fury: int
    fortitude_bonus: int
    size: tuple[int, int]
    requires: str | None  # an attribute every initial character must have
    text: str


@dataclass(frozen=True, slots=True)
class Character:
    """A kaiju character card, or an ally (a planning card that joined a team: `kaiju` False)."""

    code: str
    name: str
    ferocity: int
    agility: int
    power: int
    fortitude: int
    attributes: tuple[str, ...]
    text: str
    kaiju: bool = True
    glory: int = 5


@dataclass(frozen=True, slots=True)
class CombatCard:
    code: str
    name: str
    icon: str
    kind: str
    ferocity: int
    agility: int
    power: int
    damage: int
    toughness: int
    keywords: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class PlanningCard:
    code: str
    name: str
    kind: str
    glory: int
    fortitude: int
    ferocity: int
    agility: int
    power: int
    requires: str | None
    text: str

    def as_character(self) -> Character:
        """An ally or a city card in combat fights with these stats."""
        return Character(self.code, self.name, self.ferocity, self.agility, self.power, self.fortitude, (),
                         self.text, kaiju=False, glory=self.glory)


@dataclass(frozen=True)
class KaijuCatalog:
    teams: dict[str, Team]
    characters: dict[str, Character]
    combat: dict[str, CombatCard]
    planning: dict[str, PlanningCard]

    def team(self, code: str) -> Team:
        return _get(self.teams, code, "team card")

    def character(self, code: str) -> Character:
        return _get(self.characters, code, "character")

    def combat_card(self, code: str) -> CombatCard:
        return _get(self.combat, code, "combat card")

    def planning_card(self, code: str) -> PlanningCard:
        return _get(self.planning, code, "planning card")


def _get(table: dict[str, T], code: str, what: str) -> T:
    try:
        return table[code]
    except KeyError:
        raise CatalogError(code, f"not a {what} of the kaiju card data (known: {', '.join(sorted(table))})") from None


def _load(raw: dict[str, Any]) -> KaijuCatalog:
    try:
        teams = {t["code"]: Team(t["code"], t["name"], int(t["initiative"]), int(t["planning_draw"]), int(t["fury"]),
                                 int(t["fortitude_bonus"]), (int(t["size"][0]), int(t["size"][1])), t["requires"],
                                 t["text"]) for t in raw["teams"]}
        chars = {c["code"]: Character(c["code"], c["name"], int(c["ferocity"]), int(c["agility"]), int(c["power"]),
                                      int(c["fortitude"]), tuple(c["attributes"]), c["text"])
                 for c in raw["characters"]}
        combat = {c["code"]: CombatCard(c["code"], c["name"], c["icon"], c["kind"], int(c["ferocity"]),
                                        int(c["agility"]), int(c["power"]), int(c["damage"]), int(c["toughness"]),
                                        tuple(c["keywords"]), c["text"]) for c in raw["combat"]}
        planning = {c["code"]: PlanningCard(c["code"], c["name"], c["kind"], int(c["glory"]), int(c["fortitude"]),
                                            int(c["ferocity"]), int(c["agility"]), int(c["power"]), c["requires"],
                                            c["text"]) for c in raw["planning"]}
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise CatalogError("kaiju cards.json", f"malformed card data: {exc!r}") from exc
    for card in combat.values():
        if card.icon not in ICONS or card.kind not in COMBAT_KINDS:
            raise CatalogError(card.code, f"icon {card.icon!r} / kind {card.kind!r} unknown")
    for p in planning.values():
        if p.kind not in PLANNING_KINDS:
            raise CatalogError(p.code, f"planning kind {p.kind!r} unknown (kinds: {', '.join(PLANNING_KINDS)})")
    return KaijuCatalog(teams, chars, combat, planning)


@cache
def packaged() -> KaijuCatalog:
    """The card data shipped with the package."""
    text = resources.files("rules.kaiju").joinpath("data/cards.json").read_text(encoding="utf-8")
    return _load(json.loads(text))
