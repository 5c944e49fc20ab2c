"""`bench/rules_lines.py`'s inclusive counts: the figure that bounds a planned speed pass must add up."""

from __future__ import annotations

from bench.rules_lines import play


def test_inclusive_counts_add_up_to_the_sides_and_cover_the_callees() -> None:
    wanted = frozenset({"game.py:legal_actions", "game.py:apply", "turns.py:finish", "turns.py:settle_claims"})
    counter, sides, steps = play(1, 7, wanted)
    assert steps > 100
    # every traced line runs inside one of the two entry points, so their inclusive counts are the sides
    assert counter.inclusive["game.py:legal_actions"] == sides["legal_actions"]
    assert counter.inclusive["game.py:apply"] == sides["apply"]
    # a function's inclusive count holds its own lines and its callees' (settle_claims calls `_claim`, `put`)
    own = counter.lines[("turns.py", "settle_claims")]
    assert counter.inclusive["turns.py:settle_claims"] > own > 0
    assert counter.inclusive["turns.py:finish"] > counter.inclusive["turns.py:settle_claims"]
    assert counter.inclusive["turns.py:finish"] < sides["apply"]
