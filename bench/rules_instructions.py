"""A fixed Kipukas workload for counting instructions, the speed figure a loaded machine cannot disturb.

Wall-clock timings on the shared machine swing 3x with load; the number of instructions a fixed workload
executes does not. This plays `GAMES` seeded random games (seed 11, the bench's progress player, `legal_actions`
+ `apply` every step) and nothing else, so two versions of the engine compare exactly:

    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        python bench/rules_instructions.py 3
    PYTHONHASHSEED=0 valgrind ... python bench/rules_instructions.py 0

The difference of the two "I refs" totals is the games' own instructions (the second run counts start-up alone;
a fixed hash seed keeps start-up's count the same from run to run). Optional arguments: the deck seed (11, the
reporting seed; 7 is the tuning seed), ``legal``, which calls `legal_actions` twice per step (the difference
to a plain run is what legal-action generation costs), ``loaded``, which loads the packaged catalog, map and
card pool before counting (without it the games' count includes that one-off load, ~22.8 M, which the
start-up run never does: count the start-up run with ``loaded`` too), ``freeze``, which runs the bench's
`start_up` first (it loads the same three, then freezes; count the start-up run with ``freeze`` too), and
``layout=N``, which keeps N small objects allocated before
anything else. The count of one tree is the same from run to run, but any edit (a docstring too) moves the
heap's layout and with it the count by up to ~1 M at seed 7 (docs/rules-engine.md, branch rules12): count a
change under a few layouts (``layout=0``, ``layout=37``, ``layout=211``, each minus its own start-up run).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_rules import _pool, deck, start_up
from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.context import Ctx
from rules.kipukas.game import Game
from rules.kipukas.selfplay import choose


def main() -> int:
    pads = [int(arg.split("=", 1)[1]) for arg in sys.argv[3:] if arg.startswith("layout=")]
    keep = [object() for _ in range(pads[0])] + [bytearray(8 * pads[0])] if pads else []  # shifts the heap
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 11)
    twice = "legal" in sys.argv[3:]
    if "freeze" in sys.argv[3:]:
        start_up()  # the start-up heap out of the collector's reach, as `bench_rules.py --freeze`
    elif "loaded" in sys.argv[3:]:
        Catalog.packaged(), BoardMap.packaged(), _pool()  # what the first Game.new would load, outside the count
    steps = 0
    for i in range(games):
        g = Game.new({"red": deck(rng, 1), "blue": deck(rng, 2)}, style="domination", cycles=40)
        player = random.Random(i)
        while not g.result:
            if twice:
                g.legal_actions()
            g.apply(choose(Ctx(g.state, g.board, g.catalog), g.legal_actions(), player))
            steps += 1
    print(f"{games} games, {steps} steps" + (f", layout {len(keep) - 1}" if keep else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
