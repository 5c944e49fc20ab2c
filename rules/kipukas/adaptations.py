"""The 15 archetypal adaptations (#adaptation_overview) and the spellings of them found in print.

The rule book and cards.json spell some adaptations in more than one way ("Decript", "Avain",
"Algorithimic", lower case). `adaptation()` maps every known spelling to the canonical name used by
type_chart.json and says which spelling it was given when it does not know it.
"""

from __future__ import annotations

from rules.core.errors import CatalogError

ADAPTATIONS: tuple[str, ...] = (
    "Cenozoic", "Decrepit", "Angelic", "Brutal", "Arboreal", "Astral", "Telekinetic", "Glitch", "Magic",
    "Endothermic", "Avian", "Mechanical", "Algorithmic", "Energetic", "Entropic",
)

# Misspellings printed in the rule book (#adaptation_overview, #contention_ex) and in cards.json.
_ALIASES = {"decript": "Decrepit", "avain": "Avian", "algorithimic": "Algorithmic", "energitic": "Energetic"}
_BY_LOWER = {a.lower(): a for a in ADAPTATIONS}


def adaptation(name: str) -> str:
    """Canonical name of an archetypal adaptation; `CatalogError` naming the input if unknown."""
    key = name.strip().lower()
    found = _BY_LOWER.get(key) or _ALIASES.get(key)
    if found is None:
        raise CatalogError(name, f"unknown archetypal adaptation (known: {', '.join(ADAPTATIONS)})")
    return found


def is_canonical(name: str) -> bool:
    return name in ADAPTATIONS
