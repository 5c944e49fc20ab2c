"""Where a Kipukas step's work goes, per Python function, counted in lines executed (a figure load cannot move).

cachegrind counts a workload's instructions exactly but names C functions (the interpreter's loop, dict
lookups, the allocator), not the engine's; cProfile names the engine's functions but charges each call its
own overhead, so it overstates small, call-heavy code. This plays the same seeded games as
`bench/rules_instructions.py` (the bench's progress player, `legal_actions` + `apply` every step) and counts the
line events `sys.settrace` sees in `rules/` during `legal_actions` and during `apply` (the random player is not
traced), then prints lines per step for each side and the functions that run the most lines:

    python bench/rules_lines.py [GAMES] [SEED] [TOP]      # 3 games of seed 7 (the tuning seed), top 40

The counts are the same from run to run for one tree, and a change that runs fewer lines for every position of
a kind shows here before it is worth a cachegrind count. A line is not a fixed cost: on this interpreter one
executed line of the engine is ~500 instructions on average (attribute and dict lookups, calls, allocation),
so compare lines of the same function before and after, and count instructions before keeping a change.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_rules import deck
from rules.kipukas.context import Ctx
from rules.kipukas.game import Game
from rules.kipukas.selfplay import choose

RULES = str(Path(__file__).resolve().parent.parent / "rules")

Tracer = Any  # sys.settrace's callback type, which typeshed spells privately


class LineCounter:
    """Line events of code under `rules/`, per (file, function), while `on()` is in effect."""

    def __init__(self) -> None:
        self.lines: Counter[tuple[str, str]] = Counter()

    def _call(self, frame: FrameType, event: str, arg: object) -> Tracer:
        return self._line if frame.f_code.co_filename.startswith(RULES) else None

    def _line(self, frame: FrameType, event: str, arg: object) -> Tracer:
        if event == "line":
            code = frame.f_code
            self.lines[(Path(code.co_filename).name, code.co_name)] += 1
        return self._line

    def on(self) -> None:
        sys.settrace(self._call)

    @staticmethod
    def off() -> None:
        sys.settrace(None)

    def total(self) -> int:
        return sum(self.lines.values())


def main() -> int:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    counter = LineCounter()
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
    total = counter.total()
    print(f"{games} games, {steps} steps: {total / steps:.1f} lines a step (legal_actions "
          f"{sides['legal_actions'] / steps:.1f}, apply {sides['apply'] / steps:.1f})")
    for (file, function), n in counter.lines.most_common(top):
        print(f"{n / steps:8.1f} {n / total:6.1%}  {file}:{function}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
