"""Combat arithmetic: the "fists tool" of kipukas.cards and the other roll modifiers (#roll_modifiers).

- KEAL means bouts: every adaptation of the attacking means meets every adaptation of the defending
  means; the chart values of the pairs are summed and added to the attack roll (#materials).
- Final blow: the archetypal genes meet the same way, plus +10 when the attacker's motive beats the
  defender's (#motive_interactions), plus the preservation effects (#motivation).
- Affinity: +1 to attack and defence rolls of a soul whose gene is its player's declared affinity.
- Habitat: primary/secondary effect of the territory's geography, none at all when a nomad fights.
- Brawl: ties are decided by comparing brawl sequences left to right (#brawl).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from rules.kipukas.adaptations import ADAPTATIONS, adaptation
from rules.kipukas.habitats import roll_effect
from rules.kipukas.motives import SELF, SOCIETY, SUPPORT, Motives

PRESERVATION_BONUS = 3


@cache
def type_chart() -> dict[str, dict[str, int]]:
    """modifier[attacker][defender] from the packaged type_chart.json, checked to cover all 15 x 15 pairs."""
    data = json.loads((resources.files("rules.kipukas") / "data" / "type_chart.json").read_text(encoding="utf-8"))
    chart = {a: {d: int(v) for d, v in row.items()} for a, row in data["modifier"].items()}
    for a in ADAPTATIONS:
        missing = [d for d in ADAPTATIONS if d not in chart.get(a, {})]
        if missing:
            raise ValueError(f"type_chart.json: modifier.{a} lacks {', '.join(missing)}")
    return chart


@dataclass(frozen=True, slots=True)
class Pair:
    attacker: str
    defender: str
    modifier: int


@dataclass(frozen=True, slots=True)
class Typing:
    """Modifiers of one engagement. `attack` is added to the attack roll, `defence` to the defence roll."""

    attack: int
    defence: int
    pairs: tuple[Pair, ...]
    motive_bonus: int = 0
    best_of: int = 1
    notes: tuple[str, ...] = ()


def pairs(attacker: Sequence[str], defender: Sequence[str]) -> tuple[Pair, ...]:
    chart = type_chart()
    att = [adaptation(a) for a in attacker]
    dfn = [adaptation(d) for d in defender]
    return tuple(Pair(a, d, chart[a][d]) for a in att for d in dfn)


def keal_modifier(attacker: Sequence[str], defender: Sequence[str]) -> Typing:
    """Attack-roll modifier of a KEAL means bout: the sum over every attacker x defender adaptation pair."""
    ps = pairs(attacker, defender)
    return Typing(sum(p.modifier for p in ps), 0, ps)


def final_blow_modifier(attacker_gene: str, defender_gene: str,
                        attacker_motive: str | None = None, defender_motive: str | None = None) -> Typing:
    """Modifiers of a final blow: gene typing, +10 motive interaction and the preservation effects.

    Self (either side) makes the final blow best 2 out of 3; Support adds 3 to its attack roll when the
    Support soul attacks; Society adds 3 to its defence roll when the Society soul defends.
    """
    ps = pairs([attacker_gene], [defender_gene])
    attack = sum(p.modifier for p in ps)
    defence = 0
    motive_bonus = 0
    best_of = 1
    notes: list[str] = []
    motives = Motives.packaged()
    if attacker_motive and defender_motive:
        motive_bonus = motives.interaction(attacker_motive, defender_motive)
        if motive_bonus:
            notes.append(f"{motives.motive(attacker_motive)} beats {motives.motive(defender_motive)}: "
                         f"+{motive_bonus} attack")
    attack += motive_bonus
    if attacker_motive and motives.group(attacker_motive) == SUPPORT:
        attack += PRESERVATION_BONUS
        notes.append(f"attacker preserves Support: +{PRESERVATION_BONUS} attack")
    if defender_motive and motives.group(defender_motive) == SOCIETY:
        defence += PRESERVATION_BONUS
        notes.append(f"defender preserves Society: +{PRESERVATION_BONUS} defence")
    for side, m in (("attacker", attacker_motive), ("defender", defender_motive)):
        if m and motives.group(m) == SELF:
            best_of = 3
            notes.append(f"{side} preserves Self: best 2 out of 3")
    return Typing(attack, defence, ps, motive_bonus, best_of, tuple(notes))


def affinity_bonus(gene: str | None, affinity: str | None) -> int:
    """+1 to attack and defence rolls when the soul's gene is its player's declared affinity (#affinity)."""
    return 1 if gene is not None and affinity is not None and adaptation(gene) == adaptation(affinity) else 0


def habitat_modifiers(attacker_habitat: str, defender_habitat: str, geography: str) -> tuple[int, int, str]:
    """(attacker change, defender change, explanation) for a battle fought in `geography`.

    Habitat effects do not apply to battles with nomads (#habitat_effects, Nomad primary effect).
    """
    if "Nomad" in (attacker_habitat, defender_habitat):
        return 0, 0, "a nomad fights: no habitat effects"
    a, a_why = roll_effect(attacker_habitat, geography)
    d, d_why = roll_effect(defender_habitat, geography)
    why = "; ".join(w for w in (f"attacker {a_why}" if a_why else "", f"defender {d_why}" if d_why else "") if w)
    return a, d, why




def brawl_power(ch: str) -> tuple[int, int]:
    """Sort key of one brawl character, larger is stronger: A..Z > a..z > 9..0 > '-' > '_' (#brawl)."""
    if ch.isascii() and ch.isupper():
        return 4, -ord(ch)
    if ch.isascii() and ch.islower():
        return 3, -ord(ch)
    if ch.isascii() and ch.isdigit():
        return 2, ord(ch)
    if ch == "-":
        return 1, 1
    if ch == "_":
        return 1, 0
    raise ValueError(f"{ch!r} is not a brawl character (letters, digits, '-' or '_')")


def brawl(first: str, second: str) -> int:
    """1 when `first` wins the brawl, -1 when `second` wins, 0 for identical strength (#brawl)."""
    for a, b in zip(first, second, strict=False):
        ka, kb = brawl_power(a), brawl_power(b)
        if ka != kb:
            return 1 if ka > kb else -1
    return (len(first) > len(second)) - (len(first) < len(second))
