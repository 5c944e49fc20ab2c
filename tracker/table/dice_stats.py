"""Per-game statistics of each player's reported rolls against the dice's distribution (chi-squared), for
the record's export: a judge's signal, never proof (a few dozen rolls say little; the p-value says how
little).

Counted: the accepted action rows that report a die's face: the D6 roll-off (``roll d6``), escapes (two
D6), the D20 of traps, chases and random territories, and the diel die (each symbol on two of its six
faces, #diel_cycle). Bout rolls (``roll attack``/``roll defence``) are left out: their dice depend on the
card's printed die field, which the row does not carry. A row a judge struck or replaced counts as
corrected.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from tracker.record.store import Row

FACES = {"d6": [str(n) for n in range(1, 7)], "d20": [str(n) for n in range(1, 21)],
         "diel": ["day", "night", "storm"]}
DIE_OF = {"d6": "d6", "escape": "d6", "d20": "d20", "chase": "d20", "territory": "d20", "diel": "diel"}


def _faces(text: str) -> tuple[str, str, list[str]] | None:
    words = text.split()
    if len(words) != 4 or words[1] != "roll" or words[2] not in DIE_OF or words[3].startswith("="):
        return None
    return words[0], DIE_OF[words[2]], words[3].split(",")


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for X chi-squared with `dof` degrees of freedom (the regularised upper gamma function)."""
    if x <= 0:
        return 1.0
    a, y = dof / 2.0, x / 2.0
    if y < a + 1:  # the series of the lower function converges fast here
        term = total = 1.0 / a
        n = 1
        while term > total * 1e-14 and n < 10_000:
            term *= y / (a + n)
            total += term
            n += 1
        return max(0.0, 1.0 - total * math.exp(-y + a * math.log(y) - math.lgamma(a)))
    # the continued fraction of the upper function (Lentz)
    tiny = 1e-300
    b = y + 1.0 - a
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-14:
            break
    return min(1.0, math.exp(-y + a * math.log(y) - math.lgamma(a)) * h)


def roll_statistics(rows: Iterable[Row]) -> dict[str, dict[str, dict[str, Any]]]:
    """player -> die -> {rolls, counts, chi2, dof, p}: each player's reported faces against fair dice."""
    actions: dict[int, str] = {}
    for row in rows:
        if row.kind == "action" and row.body.get("accepted"):
            actions[row.seq] = str(row.body["text"])
        elif row.kind == "correct" and int(row.body["target"]) in actions:
            actions[int(row.body["target"])] = str(row.body.get("text") or "")
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for text in actions.values():
        found = _faces(text)
        if found is None:
            continue
        player, die, faces = found
        tally = counts.setdefault(player, {}).setdefault(die, dict.fromkeys(FACES[die], 0))
        for face in faces:
            if face in tally:
                tally[face] += 1
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for player, dice in sorted(counts.items()):
        for die, tally in sorted(dice.items()):
            n = sum(tally.values())
            expected = n / len(tally)
            chi2 = sum((o - expected) ** 2 / expected for o in tally.values()) if n else 0.0
            dof = len(tally) - 1
            out.setdefault(player, {})[die] = {"rolls": n, "counts": tally, "chi2": round(chi2, 4), "dof": dof,
                                               "p": round(chi2_sf(chi2, dof), 6)}
    return out
