"""Where a Kipukas step's work goes, per Python function, counted in lines executed (a figure load cannot move).

cachegrind counts a workload's instructions exactly but names C functions (the interpreter's loop, dict
lookups, the allocator), not the engine's; cProfile names the engine's functions but charges each call its
own overhead, so it overstates small, call-heavy code. This plays the same seeded games as
`bench/rules_instructions.py` (the bench's progress player, `legal_actions` + `apply` every step) and counts the
line events `sys.settrace` sees in `rules/` during `legal_actions` and during `apply` (the random player is not
traced), then prints lines per step for each side and the functions that run the most lines:

    python bench/rules_lines.py [GAMES] [SEED] [TOP] [FILE:FUNCTION ...]   # 3 games of seed 7, top 40

Each FILE:FUNCTION named (e.g. `turns.py:settle_claims`) is also counted inclusively: the lines run while one
of its calls is open, its callees' included. That is the most a pass removing the function's work can save,
so it bounds a planned pass before it is written. A function that calls itself is counted once per open call.

The counts are the same from run to run for one tree, and a change that runs fewer lines for every position of
a kind shows here before it is worth a cachegrind count. A line is not a fixed cost: on this interpreter one
executed line of the engine is ~500 instructions on average (attribute and dict lookups, calls, allocation),
so compare lines of the same function before and after, and count instructions before keeping a change.
Lines are counted on the interpreted engine (`sys.settrace` sees no line of the modules mypyc compiles), so this
sets ``KIPUKAS_INTERPRETED=1`` before the engine is imported (rules/kipukas/compiled.py).
"""

from __future__ import annotations

import os
import random
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["KIPUKAS_INTERPRETED"] = "1"  # settrace sees the interpreted engine's lines only

from bench.bench_rules import deck
from rules.kipukas.context import Ctx
from rules.kipukas.game import Game
from rules.kipukas.selfplay import choose

RULES = str(Path(__file__).resolve().parent.parent / "rules")

Tracer = Any  # sys.settrace's callback type, which typeshed spells privately


class LineCounter:
    """Line events of code under `rules/`, per (file, function), while `on()` is in effect."""

    def __init__(self, inclusive: frozenset[str] = frozenset()) -> None:
        self.lines: Counter[tuple[str, str]] = Counter()
        self.inclusive: Counter[str] = Counter()
        self._wanted = inclusive
        self._open: dict[int, tuple[str, int]] = {}  # frame id -> (FILE:FUNCTION, line count at its call)
        self._count = 0

    def _call(self, frame: FrameType, event: str, arg: object) -> Tracer:
        code = frame.f_code
        if not code.co_filename.startswith(RULES):
            return None
        if self._wanted:
            key = f"{Path(code.co_filename).name}:{code.co_name}"
            if key in self._wanted:
                self._open[id(frame)] = (key, self._count)
        return self._line

    def _line(self, frame: FrameType, event: str, arg: object) -> Tracer:
        if event == "line":
            code = frame.f_code
            self.lines[(Path(code.co_filename).name, code.co_name)] += 1
            self._count += 1
        elif event == "return" and self._open:
            opened = self._open.pop(id(frame), None)
            if opened is not None:
                self.inclusive[opened[0]] += self._count - opened[1]
        return self._line

    def on(self) -> None:
        sys.settrace(self._call)

    @staticmethod
    def off() -> None:
        sys.settrace(None)

    def total(self) -> int:
        return sum(self.lines.values())


def play(games: int, seed: int, wanted: frozenset[str] = frozenset()) -> tuple[LineCounter, Counter[str], int]:
    """The counter, the lines run by each side (`legal_actions`, `apply`) and the steps of `games` games of
    `seed` (the games of `rules_instructions.py`)."""
    rng = random.Random(seed)
    counter = LineCounter(wanted)
    sides: Counter[str] = Counter()
    steps = 0
    for i in range(games):
        g = Game.new({"red": deck(rng, 1), "blue": deck(rng, 2)}, style="domination", cycles=40)
        player = random.Random(i)  # the same player as rules_instructions.py: the same games
        while not g.result:
            before = counter.total()
            counter.on()
            actions = g.legal_actions()
            counter.off()
            middle = counter.total()
            action = choose(Ctx(g.state, g.board, g.catalog), actions, player)
            counter.on()
            g.apply(action)
            counter.off()
            sides["legal_actions"] += middle - before
            sides["apply"] += counter.total() - middle
            steps += 1
    return counter, sides, steps


def main() -> int:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    wanted = sys.argv[4:]
    counter, sides, steps = play(games, seed, frozenset(wanted))
    total = counter.total()
    print(f"{games} games, {steps} steps: {total / steps:.1f} lines a step (legal_actions "
          f"{sides['legal_actions'] / steps:.1f}, apply {sides['apply'] / steps:.1f})")
    for (file, function), n in counter.lines.most_common(top):
        print(f"{n / steps:8.1f} {n / total:6.1%}  {file}:{function}")
    for key in wanted:
        n = counter.inclusive[key]
        print(f"inclusive {n / steps:8.1f} {n / total:6.1%}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
