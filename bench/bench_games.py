"""The games behind the interface, side by side in one process: apply time and random self-play speed.

For each game (Colossal Kaiju Combat with 2 and 4 seats, the tile-map game on `skirmish` (2 seats) and
`arena` (4 seats)) random legal games are played through `rules.core` (`legal_actions()` + `apply()` of
one of them, picked by `rules.core.selfplay.choose`), interleaved with Kipukas steps (its adapter, the
progress player of `rules.kipukas.selfplay`) so machine load hits all alike. Prints per game: the mean *apply*
(one accepted line: parse, rules, snapshot), the mean *step* (legal_actions + apply), the ratio of each
against the Kipukas step of the same run (the baseline), random self-play games per second (incl. the
random player) and the share of games that reached a result within the cap.

    python bench/bench_games.py [--games N] [--cap N] [--seed N]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.core.interface import TableGame
from rules.core.registry import new_game
from rules.core.selfplay import choose
from rules.kaiju.decks import preconstructed
from rules.kipukas.adapter import KipukasGame
from rules.kipukas.catalog import Catalog
from rules.kipukas.context import Ctx
from rules.kipukas.decks import COPY_LIMITS
from rules.kipukas.selfplay import choose as kipukas_choose

KAIJU = {"pass": 0.2, "keep": 3.0, "discard": 0.3, "attack": 6.0, "rampage": 4.0, "card": 4.0, "rage": 5.0,
         "roar": 0.5, "decline": 0.3}
TILEMAP = {"pass": 1.0, "end": 0.3, "attack": 8.0, "move": 2.0, "play": 5.0, "cast": 3.0, "push": 1.0,
           "convert": 0.1, "buy": 3.0}


@dataclass
class Tally:
    games: int = 0
    results: int = 0
    steps: int = 0
    step_s: float = 0.0
    apply_s: float = 0.0
    wall_s: float = 0.0
    lengths: list[int] = field(default_factory=list)


def play(game: TableGame, rng: random.Random, cap: int, weights: dict[str, float], t: Tally) -> None:
    start = time.perf_counter()
    n = 0
    while n < cap and game.result is None:
        t0 = time.perf_counter()
        lines = game.legal_actions()
        t1 = time.perf_counter()
        if not lines:
            break
        line = choose(lines, rng, weights)
        t2 = time.perf_counter()
        if not game.apply(line).accepted:
            raise AssertionError(f"{game.name}: a legal line was refused: {line}")
        t3 = time.perf_counter()
        t.step_s += (t1 - t0) + (t3 - t2)
        t.apply_s += t3 - t2
        n += 1
    t.wall_s += time.perf_counter() - start
    t.steps += n
    t.games += 1
    t.results += game.result is not None
    t.lengths.append(n)


def kipukas_steps(rng: random.Random, steps: int, t: Tally) -> None:
    """`steps` Kipukas steps through the adapter (new games as they end), timed like the others."""
    pool = [c for c in Catalog.packaged().cards.values() for _ in range(COPY_LIMITS[c.type])]

    def deck(serial: int) -> list[str]:
        rng.shuffle(pool)
        return [f"{c.code}#{serial}{i:03d}" for i, c in enumerate(pool[:30])]

    game = KipukasGame.__new__(KipukasGame)
    made = False
    for _ in range(steps):
        if not made or game.result is not None:
            game = new_game("kipukas", {"decks": {"red": deck(1), "blue": deck(2)}, "cycles": 40})  # type: ignore[assignment]
            made = True
        inner = game.game
        t0 = time.perf_counter()
        lines = game.legal_actions()
        t1 = time.perf_counter()
        action = kipukas_choose(Ctx(inner.state, inner.board, inner.catalog, inner.style), inner.legal_actions(), rng)
        t2 = time.perf_counter()
        game.apply(action.to_text())
        t3 = time.perf_counter()
        assert lines
        t.step_s += (t1 - t0) + (t3 - t2)
        t.apply_s += t3 - t2
        t.steps += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="random games per game and seat count")
    parser.add_argument("--cap", type=int, default=4000, help="cap on steps per game")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    setups: dict[str, tuple[Callable[[], TableGame], dict[str, float]]] = {
        "kaiju 2 seats": (lambda: new_game("kaiju", preconstructed(2)), KAIJU),
        "kaiju 4 seats": (lambda: new_game("kaiju", preconstructed(4)), KAIJU),
        "tilemap skirmish 2 seats": (lambda: new_game("tilemap", {"map": "skirmish", "seats": 2}), TILEMAP),
        "tilemap arena 4 seats": (lambda: new_game("tilemap", {"map": "arena", "seats": 4}), TILEMAP),
    }
    rng = random.Random(args.seed)
    tallies = {name: Tally() for name in setups}
    base = Tally()
    for _ in range(args.games):
        for name, (make, weights) in setups.items():
            before = tallies[name].steps
            play(make(), rng, args.cap, weights, tallies[name])
            kipukas_steps(rng, max(20, (tallies[name].steps - before) // 4), base)
    base_us = base.step_s / base.steps * 1e6
    print(f"baseline kipukas step (legal_actions + apply, adapter): {base_us:.0f} us over {base.steps} steps; "
          f"apply {base.apply_s / base.steps * 1e6:.0f} us")
    for name, t in tallies.items():
        step_us, apply_us = t.step_s / t.steps * 1e6, t.apply_s / t.steps * 1e6
        print(f"{name}: {t.games} games, mean {t.steps / t.games:.0f} steps; apply {apply_us:.0f} us "
              f"(x{apply_us / base_us:.2f} of a kipukas step); step {step_us:.0f} us (x{step_us / base_us:.2f}); "
              f"{t.games / t.wall_s:.2f} games/s; results {t.results}/{t.games}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
