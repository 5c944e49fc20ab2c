"""A fixed Kipukas workload for counting instructions, the speed figure a loaded machine cannot disturb.

Wall-clock timings on the shared machine swing 3x with load; the number of instructions a fixed workload
executes does not. This plays `GAMES` seeded random games (seed 11, the bench's progress player, `legal_actions`
+ `apply` every step) and nothing else, so two versions of the engine compare exactly:

    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null python bench/rules_instructions.py 3
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null python bench/rules_instructions.py 0

The difference of the two "I refs" totals is the games' own instructions (the second run counts start-up alone).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_rules import deck
from rules.kipukas.context import Ctx
from rules.kipukas.game import Game
from rules.kipukas.selfplay import choose


def main() -> int:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    rng = random.Random(11)
    steps = 0
    for i in range(games):
        g = Game.new({"red": deck(rng, 1), "blue": deck(rng, 2)}, style="domination", cycles=40)
        player = random.Random(i)
        while not g.result:
            g.apply(choose(Ctx(g.state, g.board, g.catalog), g.legal_actions(), player))
            steps += 1
    print(f"{games} games, {steps} steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
