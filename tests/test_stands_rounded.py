"""A soul-shaped top is never offered to the network as a square piece (issue 13, lies16, undoing lies11's rule A).

lies11's rule A kept a base camp or capital as a candidate for the network whenever the rule read a top
soul-shaped no larger than that piece: at 1014x760 q25 JPEG's blocks round a square's corners. But they round
a die's top alike: on seed 7 of the stress bench (``--tuning``, "1014x760 q25 die") a die in a colour near
blue on an empty stand was read soul-shaped, rule A offered the capital, the network confirmed it at 0.97-0.98
and the stabiliser accepted "blue capital" for an empty stand. Without rule A that stand is flagged and no
reading is wrong; the cost is the stands rule A won back (seed 206 below: 72 -> 68 of 72 readings, the other
4 flagged unknown, none wrong; seeds 59 and 89 of the bench, docs/overhead.md, branch ``lies16``).
"""

from __future__ import annotations

import argparse
from typing import Any

from tests.overhead_support import half_resolution_table, layout, stand_tally
from tests.test_overhead_never_lies import stress_bench
from vision.synth import Renderer

SEED = 206


def _read(photo: bool) -> tuple[int, int, int]:
    reader, r, clean, tokens = half_resolution_table(SEED, photo)
    right = wrong = n = 0
    for i in range(4):
        obs = reader.read(r.finish(clean, seed=SEED * 10 + 5 + i, jpeg_quality=25))
        ok, bad = stand_tally(obs.stands, tokens)
        right, wrong, n = right + ok, wrong + bad, n + len(obs.stands)
    return right, wrong, n


def test_q25_half_resolution_square_pieces_are_read_or_flagged_never_wrong() -> None:
    for photo in (True, False):
        right, wrong, n = _read(photo)
        assert wrong == 0
        # what rule A gave and this branch gives back (72 of 72 with it): the rest are flagged, not read
        assert right >= 0.9 * n, f"photo={photo}: {right} of {n} stand readings"


def test_a_die_whose_top_jpeg_rounds_is_not_accepted_as_a_capital() -> None:
    bench = stress_bench()
    cond = next(c for c in bench.TUNING_CONDITIONS if c.name == "1014x760 q25 die")
    args = argparse.Namespace(tables=1, frames=4, warmup=3, seed=7, before=False, qr_budget=bench.QR_BUDGET_S)
    renderers: dict[Any, Renderer] = {}
    for mode, t in bench.run_condition(cond, layout(), args, renderers).items():
        assert t.wrong_accepted == 0, f"{mode}: {[m for m in t.misses if 'ACCEPTED' in m]}"
        assert t.covered_flagged == t.covered_n, f"{mode}: a stand under the die was read"
