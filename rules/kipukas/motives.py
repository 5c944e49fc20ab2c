"""Motivations (#motivation): preservation groups and the +10 interactions of the motive anagram.

Read from the packaged motives.json. The group gives the Final Blow effect (Self: best 2 of 3, Support:
+3 to the Final Blow attack roll, Society: +3 to the Final Blow defence roll); `beats` gives the +10
attack bonus of the anagram (#motive_interactions) in the direction of the arrow.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from rules.core.errors import CatalogError

SELF, SUPPORT, SOCIETY = "Self", "Support", "Society"


@dataclass(frozen=True)
class Motives:
    group_of: dict[str, str]
    beats: dict[str, str]
    bonus: int

    @classmethod
    @cache
    def packaged(cls) -> Motives:
        data = json.loads((resources.files("rules.kipukas") / "data" / "motives.json").read_text(encoding="utf-8"))
        group_of = {m: g for g, spec in data["groups"].items() for m in spec["motives"]}
        return cls(group_of, dict(data["beats"]), int(data["bonus"]))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.group_of)

    def motive(self, name: str) -> str:
        """Canonical motive name (case-insensitive); `CatalogError` naming the input if unknown."""
        for m in self.group_of:
            if m.lower() == name.strip().lower():
                return m
        raise CatalogError(name, f"unknown motive (known: {', '.join(self.group_of)})")

    def group(self, motive: str) -> str:
        return self.group_of[self.motive(motive)]

    def interaction(self, attacker: str, defender: str) -> int:
        """+10 when the attacker's motive beats the defender's in the anagram, else 0."""
        return self.bonus if self.beats.get(self.motive(attacker)) == self.motive(defender) else 0
