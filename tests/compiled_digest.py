"""Prints which build of the rules engine this process runs and a digest of what it does, for
tests/test_rules_compiled.py to compare the compiled and the interpreted engine in two processes.

The digest covers every golden game file as the engine replays it, the perft-like counts of the golden
positions 1-3 deep, and the fingerprints of seeded random self-play (`bench/rules_hashes.py`: every legal
list, verdict, state text and undo) with two seats at seeds 7 and 11 and three seats at seed 11.

    python -m tests.compiled_digest [GAMES]      # GAMES random games per two-seat workload (default 4)
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from bench.rules_hashes import fingerprint
from rules.kipukas import game as game_module
from tests.golden_runner import render
from tests.perft_positions import GOLDEN_PERFT, perft, position

GOLDEN = sorted((Path(__file__).resolve().parent / "golden").glob("*.game"))


def build() -> str:
    """"compiled" when the engine's modules are mypyc's C extensions, else "interpreted"."""
    return "interpreted" if str(game_module.__file__).endswith(".py") else "compiled"


def main() -> int:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    print(build(), flush=True)
    for path in GOLDEN:
        print(f"golden {path.stem}: {hashlib.sha256(render(path).encode()).hexdigest()[:16]}", flush=True)
    for name, n in sorted(GOLDEN_PERFT):
        g = position(name, n)
        print(f"perft {name} {n}: {[perft(g, d) for d in (1, 2, 3)]}", flush=True)
    for seed, seats, n in ((7, 2, games), (11, 2, games), (11, 3, 1)):
        print(f"self-play seed {seed} seats {seats} games {n}: {fingerprint(seed, seats, n)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
