"""Perft-like positions for the rules engine: golden-game prefixes and the exact legal-action counts below them.

`position(name, n)` replays the first `n` actions of `tests/golden/NAME.game` (rejected ones leave the
state as it is, as in the golden file); `perft(game, depth)` counts the leaves of the legal-action tree
(`Game.legal_actions` + `push` / `undo`), like chess perft. The counts were recorded on the engine before the
speed work (trial-applying candidates) and must never change unless what is legal changes on purpose; new
counts are checked against trial application first (``python -m tests.perft_positions --oracle``).
"""

from __future__ import annotations

from pathlib import Path

from rules.kipukas.game import Game

GOLDEN = Path(__file__).resolve().parent / "golden"


def position(name: str, n: int) -> Game:
    """The game after the first `n` action lines of golden file `name` (decks from its `deck` lines)."""
    decks: dict[str, list[str]] = {}
    actions: list[str] = []
    style: dict[str, str] = {}
    for line in (GOLDEN / f"{name}.game").read_text(encoding="utf-8").splitlines():
        if line.startswith("style "):
            style_name, *params = line.split()[1:]
            style = {"style": style_name, **dict(p.partition("=")[::2] for p in params)}
        elif line.startswith("deck "):
            _, player, cards = line.split(maxsplit=2)
            decks[player] = cards.split(",")
        elif line.startswith("> "):
            actions.append(line[2:])
    if n > len(actions):
        raise ValueError(f"golden game {name} has {len(actions)} actions, not {n}")
    game = Game.new(decks, **style)  # type: ignore[arg-type]
    for text in actions[:n]:
        game.apply(text)
    return game


def perft(game: Game, depth: int, oracle: bool = False) -> int:
    """Leaves of the legal-action tree `depth` plies deep (depth 1 = the number of legal actions). With
    `oracle`, the tree is grown by trial-applying every candidate (`Game.legal_actions_by_trial`), the
    reference definition that new counts are checked against before they are recorded."""
    actions = game.legal_actions_by_trial() if oracle else game.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        game.push(action)
        total += perft(game, depth - 1, oracle)
        game.undo()
    return total


# (golden file, actions replayed) -> counts at depth 1, 2, 3
GOLDEN_PERFT: dict[tuple[str, int], tuple[int, int, int]] = {
    ("flyer_conquers_the_kipuka", 0): (30, 450, 5400),      # affinity
    ("flyer_conquers_the_kipuka", 15): (19, 206, 3157),     # day, first souls
    ("flyer_conquers_the_kipuka", 18): (22, 376, 4844),     # day
    ("flyer_conquers_the_kipuka", 33): (9, 30, 295),        # day after a storm
    ("flyer_conquers_the_kipuka", 45): (21, 219, 1486),     # day, flyer in enemy land
    ("style_mass_conflict", 27): (25, 619, 5837),          # three seats: day, red to act (oracle-checked)
    ("hilbert_vs_wolf_and_raven", 18): (6, 114, 2166),      # draw
    ("hilbert_vs_wolf_and_raven", 21): (19, 164, 2343),     # day
    ("hilbert_vs_wolf_and_raven", 24): (20, 292, 2710),     # day, taming
    ("hilbert_vs_wolf_and_raven", 36): (42, 432, 864),      # KEAL means bout (#retreat: own territory only)
    ("hilbert_vs_wolf_and_raven", 39): (2, 43, 439),        # counter-attack or retreat
    ("hilbert_vs_wolf_and_raven", 57): (42, 432, 852),      # bout
    ("hilbert_vs_wolf_and_raven", 60): (26, 144, 2680),     # reinforcement (the Raven moves while downed)
    ("hilbert_vs_wolf_and_raven", 69): (37, 72, 96),        # final blow (the Raven attacks while downed)
    ("hilbert_vs_wolf_and_raven", 75): (15, 96, 1118),      # day after a storm
}

# (seed, random actions played) -> counts at depth 1, 2, 3
RANDOM_PERFT: dict[tuple[int, int], tuple[int, int, int]] = {
    # re-recorded when legal_actions began to offer every verb (equip, pass, pick up, dig, roam, taming
    # attempts, every crafting combination): uniform random play now reaches other positions
    (1, 160): (5, 19, 73),        # day
    (2, 80): (11, 189, 2020),     # day
    (2, 320): (10, 93, 856),      # day
    (3, 200): (10, 90, 795),      # day
    (4, 160): (8, 51, 282),       # day
    (5, 80): (11, 110, 414),      # night
    (5, 160): (20, 120, 800),     # day
    (6, 80): (42, 432, 1404),     # day, bout
    (6, 240): (6, 33, 173),       # day
}


def random_position(seed: int, n: int) -> Game:
    """The game after `n` uniformly random legal actions from two random valid decks (seeded)."""
    import random

    from rules.kipukas.catalog import Catalog
    from rules.kipukas.decks import COPY_LIMITS

    rng = random.Random(seed)
    catalog = Catalog.packaged()
    decks = {}
    for serial, player in ((1, "red"), (2, "blue")):
        pool = [c for c in catalog.cards.values() for _ in range(COPY_LIMITS[c.type])]
        rng.shuffle(pool)
        decks[player] = [f"{c.code}#{serial}{i:03d}" for i, c in enumerate(pool[:30])]
    game = Game.new(decks)
    for _ in range(n):
        if game.result:
            break
        game.push(rng.choice(game.legal_actions()))
    return game


def _counts(g: Game, oracle: bool) -> tuple[int, int, int]:
    fast = (perft(g, 1), perft(g, 2), perft(g, 3))
    if oracle:
        slow = (perft(g, 1, True), perft(g, 2, True), perft(g, 3, True))
        if slow != fast:
            raise SystemExit(f"direct generation {fast} differs from trial application {slow}:\n{g.to_text()}")
    return fast


def main() -> None:
    """Print the perft tables as they are now (``python -m tests.perft_positions [--oracle]``), to paste
    after a rule change that changes what is legal on purpose; ``--oracle`` first checks every count
    against trial application of every candidate and stops at the first difference."""
    import sys

    oracle = "--oracle" in sys.argv[1:]
    print("GOLDEN_PERFT = {")
    for (name, n) in GOLDEN_PERFT:
        g = position(name, n)
        print(f"    ({name!r}, {n}): {_counts(g, oracle)},")
    print("}\nRANDOM_PERFT = {")
    for (seed, n) in RANDOM_PERFT:
        g = random_position(seed, n)
        print(f"    ({seed}, {n}): {_counts(g, oracle)},  # {g.state.phase}")
    print("}")


if __name__ == "__main__":
    main()
