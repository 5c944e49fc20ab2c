"""`bench/rules_lines.py`'s inclusive counts: the figure that bounds a planned speed pass must add up.

The counts are taken in another process, which runs the interpreted engine (line tracing sees no compiled
module, and this process may have loaded the compiled build)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

COUNT = """
import json
from bench.rules_lines import play
from rules.kipukas import game
wanted = frozenset({"game.py:legal_actions", "game.py:apply", "turns.py:finish", "turns.py:settle_claims"})
counter, sides, steps = play(1, 7, wanted)
print(json.dumps({"module": game.__file__, "inclusive": counter.inclusive, "sides": sides, "steps": steps,
                  "settle_own": counter.lines[("turns.py", "settle_claims")]}))
"""


def test_inclusive_counts_add_up_to_the_sides_and_cover_the_callees() -> None:
    env = {k: v for k, v in os.environ.items() if k != "KIPUKAS_INTERPRETED"}  # the tool must set it itself
    done = subprocess.run([sys.executable, "-c", COUNT], cwd=Path(__file__).resolve().parents[1], env=env,
                          capture_output=True, text=True, timeout=600, check=True)
    found = json.loads(done.stdout)
    assert found["module"].endswith(".py")  # the interpreted engine, whose lines the tracer sees
    inclusive, sides = found["inclusive"], found["sides"]
    assert found["steps"] > 100
    # every traced line runs inside one of the two entry points, so their inclusive counts are the sides
    assert inclusive["game.py:legal_actions"] == sides["legal_actions"]
    assert inclusive["game.py:apply"] == sides["apply"]
    # a function's inclusive count holds its own lines and its callees' (settle_claims calls `_claim`, `put`)
    own = found["settle_own"]
    assert inclusive["turns.py:settle_claims"] > own > 0
    assert inclusive["turns.py:finish"] > inclusive["turns.py:settle_claims"]
    assert inclusive["turns.py:finish"] < sides["apply"]
