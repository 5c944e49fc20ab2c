"""Printed card text that overrides a generic rule, as a small typed layer (issue 19).

Only what the rules need is modelled, per card code, in the packaged `rules/data/effects.json`:

- ``attacks_downed`` / ``moves_downed``: the soul attacks / moves at full range while downed (#keal_means_DHT
  says downed souls cannot; the Raven of #contention_ex "is able to move and attack normally when downed").
- ``wasted_on_lost_bout``: losing a KEAL means bout as the attacker wastes the soul.
- ``bout_detection``: the opponent rolls standard detection before a KEAL means bout (a prompt).
- ``detection``: D20 faces that detect traps when this soul enters a territory (standard: 1-4, #traps).
- ``through_enemies``: passes enemies waiting on movement stands (#movement says it may not).
- ``roll_totals``: a printed roll modifier: its rolls are given as ``=N`` totals even on dice the grammar knows.
- ``heals``: a healer (#keal_means_DHT): heals one KEAL means of a soul in its territory, once per
  ``heal_cycles`` diel cycles.
- ``hidden_placement``: the card may be played hidden, face down under the mat ("special circumstances
  required", #placement_how; "hidden items (from card effects) played under the mat", #items).

A judge sets any flag for one physical card during a game (``judge effect CARD FLAG on|off``), for printed
text still unmodelled; overrides are part of the game state, so undo and replay keep them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from functools import cache
from importlib import resources
from typing import Any

from rules.core.errors import CatalogError

FLAGS = ("attacks_downed", "moves_downed", "wasted_on_lost_bout", "bout_detection", "through_enemies",
         "roll_totals", "heals", "hidden_placement")


@dataclass(frozen=True, slots=True)
class Effects:
    attacks_downed: bool = False
    moves_downed: bool = False
    wasted_on_lost_bout: bool = False
    bout_detection: bool = False
    through_enemies: bool = False
    roll_totals: bool = False
    heals: bool = False
    hidden_placement: bool = False
    heal_cycles: int = 2
    detection: tuple[int, ...] = (1, 2, 3, 4)
    source: str = ""

    def with_flag(self, flag: str, on: bool) -> Effects:
        if flag not in FLAGS:
            raise CatalogError(flag, f"unknown effect flag (flags: {', '.join(FLAGS)})")
        changes: dict[str, Any] = {flag: on}
        return replace(self, **changes)


NONE = Effects()


def effects_from_row(code: str, row: dict[str, Any]) -> Effects:
    """One effects.json entry; `CatalogError` names the card and the field on bad data."""
    known = {f.name for f in fields(Effects)}
    bad = sorted(set(row) - known)
    if bad:
        raise CatalogError(code, f"effects.json: unknown field(s) {', '.join(bad)} (known: {', '.join(sorted(known))})")
    values: dict[str, Any] = {}
    for name, value in row.items():
        if name == "detection":
            if not isinstance(value, list) or not all(isinstance(v, int) and 1 <= v <= 20 for v in value):
                raise CatalogError(code, "effects.json: detection is a list of D20 faces (1-20)")
            values[name] = tuple(value)
        elif name == "heal_cycles":
            if not isinstance(value, int) or value < 1:
                raise CatalogError(code, "effects.json: heal_cycles is a whole number of diel cycles >= 1")
            values[name] = value
        elif name == "source":
            values[name] = str(value)
        else:
            if not isinstance(value, bool):
                raise CatalogError(code, f"effects.json: {name} is true or false, got {value!r}")
            values[name] = value
    return Effects(**values)


@cache
def packaged_effects() -> dict[str, Effects]:
    text = (resources.files("rules.kipukas") / "data" / "effects.json").read_text(encoding="utf-8")
    return {code: effects_from_row(code, row) for code, row in json.loads(text).items()}
