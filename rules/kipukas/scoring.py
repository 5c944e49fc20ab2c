"""How a play style's fixed end is scored (#playstyleoptions), once its diel cycles have run out.

Readings where the book is silent are listed in docs/rules-engine.md: "territory gained to souls lost" is
territories held divided by own souls wasted (at least 1); "coastline" counts held territories that touch
water (a water territory, or a stand with a water movement line); a domination game with a cycle limit
ends by convention with the keep-the-peace count of #discarding_runout.
"""

from __future__ import annotations

from fractions import Fraction

from rules.kipukas.context import Ctx, other


def held(c: Ctx, player: str) -> int:
    return sum(1 for owner, _ in c.s.claims.values() if owner == player)


def coastal(c: Ctx) -> frozenset[str]:
    """Territories touching water: water geography, or a stand with a water movement line."""
    board = c.board
    out = {t for t, terr in board.territories.items() if terr.geography == "water" and not terr.transit}
    for p in board.paths:
        if p.water:
            out |= {board.stand_territory[p.a], board.stand_territory[p.b]}
    return frozenset(t for t in out if not board.territories[t].transit)


def score(c: Ctx, player: str) -> Fraction:
    kind = c.style.score
    if kind == "ends-means":
        return Fraction(held(c, player), max(1, c.s.players[player].lost))
    if kind == "hunt":
        return Fraction(held(c, player) + hunt_bonus(c, player))
    if kind == "coastline":
        shore = coastal(c)
        return Fraction(sum(1 for t, (owner, _) in c.s.claims.items() if owner == player and t in shore))
    return Fraction(held(c, player))


HUNT_BONUS = 3


def hunt_bonus(c: Ctx, player: str) -> int:
    """The hunt: "player with most souls with a certain type defeated receives a +3 bonus" (a soul is defeated
    when it is wasted, as in Highest body count; equal counts give no one the bonus)."""
    mine = c.s.players[other(player)].hunted
    theirs = c.s.players[player].hunted
    return HUNT_BONUS if mine > theirs else 0


def fixed_end(c: Ctx) -> None:
    """End the game after the style's last diel cycle: the higher score wins, equal scores tie."""
    cycles = c.style.cycles
    what = {"ends-means": "territory held per soul lost", "coastline": "coastal territories held",
            "band": "territories held (the third party not counted)",
            "hunt": "territories held plus the hunt bonus"}.get(c.style.score, "territories held")
    scores = {p: score(c, p) for p in c.s.players if p != c.style.third}  # Band together: the players only
    shown = ", ".join(f"{p} {_show(v)}" for p, v in scores.items())
    why = ("convention: keep the peace (#discarding_runout)" if c.style.score == "convention"
           else f"{c.style.title} (#playstyleoptions)")
    best = max(scores.values())
    winners = [p for p, v in scores.items() if v == best]
    head = f"tie after {cycles} diel cycles" if len(winners) > 1 else f"{winners[0]} wins after {cycles} diel cycles"
    c.s.result = f"{head}: {what} {shown}; {why}"
    c.s.phase = "over"
    c.s.active = None


def _show(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{float(v):.2f}"
