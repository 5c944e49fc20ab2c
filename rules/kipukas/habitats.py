"""Habitats (#habitat_effects) and the roll effects they give in a territory of a given geography.

Only the effects that change a battle roll are arithmetic here; the others (water, heavens, underground,
digital cloud, volcanic damage, plains healing) are movement or state rules used by the game engine.
"""

from __future__ import annotations

from rules.core.errors import CatalogError

HABITATS: tuple[str, ...] = (
    "Mountain", "Forest", "Plains", "Water", "Heavens", "Volcanic", "Underground", "DigitalCloud", "Nomad",
)
# geography (map file spelling) -> the habitat whose dwellers get its primary effect
GEOGRAPHY_HABITAT = {
    "mountain": "Mountain", "forest": "Forest", "plains": "Plains", "water": "Water", "heavens": "Heavens",
    "volcanic": "Volcanic", "underground": "Underground", "digital": "DigitalCloud",
}
PRIMARY_ROLL_BONUS = {"Mountain": 2, "Forest": 2, "Plains": 3}
# geography habitat -> (habitat of the dwellers it hurts, roll change): "take two from plains dweller rolls"
SECONDARY_ROLL_EFFECT = {"Mountain": ("Plains", -2), "Forest": ("Plains", -2)}


def habitat(name: str) -> str:
    key = name.strip().lower().replace(" ", "")
    for h in HABITATS:
        if h.lower() == key:
            return h
    raise CatalogError(name, f"unknown habitat (known: {', '.join(HABITATS)})")


def roll_effect(soul_habitat: str, geography: str) -> tuple[int, str]:
    """Roll change for a soul of `soul_habitat` fighting in `geography`, with the effect that gave it.

    The primary effect applies when the habitat matches; otherwise the territory's secondary effect is
    checked (#roll_modifiers). Nomad cancelling is decided per battle by `fists.habitat_modifiers`.
    """
    home = GEOGRAPHY_HABITAT.get(geography)
    if home is None:
        raise CatalogError(geography, f"unknown geography (known: {', '.join(GEOGRAPHY_HABITAT)})")
    if soul_habitat == home:
        bonus = PRIMARY_ROLL_BONUS.get(home, 0)
        return bonus, (f"{home} primary {bonus:+d}" if bonus else "")
    hurt = SECONDARY_ROLL_EFFECT.get(home)
    if hurt is not None and hurt[0] == soul_habitat:
        return hurt[1], f"{home} secondary {hurt[1]:+d}"
    return 0, ""
