"""Rules engine speed: random legal self-play games per second and mean `Game.apply` time.

Baseline, run in the same process: `copy.deepcopy` of the same game states (what a naive snapshot-per-
action engine would pay on every action). The ratio says how many baseline snapshots fit in one apply.
Games are capped at --actions actions (random play rarely conquers all nine territories).

    python bench/bench_rules.py [--games N] [--actions N] [--seed N]
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.catalog import Catalog
from rules.decks import COPY_LIMITS
from rules.game import Game
from rules.state import GameState


def deck(rng: random.Random, serial: int) -> list[str]:
    pool = [c for c in Catalog.packaged().cards.values() for _ in range(COPY_LIMITS[c.type])]
    rng.shuffle(pool)
    return [f"{c.code}#{serial}{i:03d}" for i, c in enumerate(pool[:30])]


def self_play(rng: random.Random, max_actions: int, states: list[GameState]) -> tuple[int, float, float]:
    """One game; returns (actions applied, seconds in apply, seconds in legal_actions)."""
    g = Game.new({"red": deck(rng, 1), "blue": deck(rng, 2)})
    applied, t_apply, t_legal = 0, 0.0, 0.0
    while applied < max_actions and not g.result:
        t0 = time.perf_counter()
        actions = g.legal_actions()
        t1 = time.perf_counter()
        g.apply(rng.choice(actions))
        t2 = time.perf_counter()
        t_legal += t1 - t0
        t_apply += t2 - t1
        applied += 1
        if applied % 25 == 0:
            states.append(g.state)
    return applied, t_apply, t_legal


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    states: list[GameState] = []
    total_actions, total_apply, total_legal = 0, 0.0, 0.0
    start = time.perf_counter()
    for _ in range(args.games):
        n, t_apply, t_legal = self_play(rng, args.actions, states)
        total_actions += n
        total_apply += t_apply
        total_legal += t_legal
    wall = time.perf_counter() - start
    t0 = time.perf_counter()
    for state in states:
        copy.deepcopy(state)
    deepcopy_mean = (time.perf_counter() - t0) / len(states)
    apply_mean = total_apply / total_actions
    print(f"games: {args.games} (capped at {args.actions} actions), actions: {total_actions}")
    print(f"self-play games per second: {args.games / wall:.2f} (incl. legal_actions)")
    print(f"mean apply: {apply_mean * 1e6:.1f} us; mean legal_actions: {total_legal / total_actions * 1e6:.1f} us")
    print(f"baseline deepcopy of a state: {deepcopy_mean * 1e6:.1f} us ({len(states)} states)")
    print(f"ratio apply / deepcopy: {apply_mean / deepcopy_mean:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
