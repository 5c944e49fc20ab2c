"""What speed12 cut from the stands' part of a full read, against the code it replaced, in the same process.

Seeded tables (bench_overhead's scenes, default pose, reference frame, its range of light, blur, noise and
JPEG) are each read by a fresh reader (a full read: every stand decided), once with the stand decision's
steps as shipped ("now") and once with the steps speed12 replaced put back ("before", the functions below),
alternating which goes first. It prints the median CPU time of the stands' part of a read (``_read_stand``
over the 18 stands, the frame's blur estimate it starts included) and of the whole read, each with its
ratio to a JPEG decode of the same frame and now / before; per table, both readers' observations must be
equal, stand by stand (state, owner, count, confidence, flipped, obstructed), and slots and under-mat areas
too (it exits 1 otherwise).

    PYTHONPATH=. .venv/bin/python bench/bench_stands.py --tables 12
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.board
import vision.stands
from bench.bench_overhead import PALETTE
from bench.same_process import PartTimer, default_table, swapped, table_frame
from rules.kipukas.identity import is_kipukas_payload
from vision.board import BoardReader
from vision.colour import F32, MIN_SUM, chroma_dist_to, saturation
from vision.stands import StandClassifier


def _percentile_numpy(values: np.ndarray, q: float) -> float:
    """Before (``vision.stands._flipped``): numpy's general percentile."""
    return float(np.percentile(values, q))


def owner_map_before(self: StandClassifier, c: F32, s: F32) -> np.ndarray:
    """Before (``StandClassifier.owner_map``): the nearest distance so far kept for every owner, the last
    too, and compared with a first distance known to be nearer (an array of inf)."""
    best = np.full(c.shape[:2], -1, dtype=np.int8)
    best_d = np.full(c.shape[:2], np.inf, dtype=np.float32)
    for i, (co, th) in enumerate(zip(self.chromas, self.thresholds, strict=True)):
        d = chroma_dist_to(c, co)
        win = (d < best_d) & (d < th)
        best[win] = i
        best_d[win] = d[win]
    best[(s <= MIN_SUM) | (saturation(c) <= 0.10)] = -1
    return best


def largest_before(mask: np.ndarray) -> np.ndarray:
    """Before (``vision.stand_shapes.largest``): labelled with statistics, empty masks too."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return np.zeros_like(mask)
    i = 1 + int(stats[1:, cv2.CC_STAT_AREA].argmax())
    return np.asarray(labels == i, dtype=np.uint8)


# (module or class, attribute, the code it replaced)
BEFORE: list[tuple[Any, str, Callable[..., Any]]] = [
    (vision.stands, "percentile", _percentile_numpy),
    (StandClassifier, "owner_map", owner_map_before),
    (vision.stands, "largest", largest_before),
]


def before() -> AbstractContextManager[None]:
    """The replaced steps in place of the shipped ones, for the duration."""
    return swapped(BEFORE)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=12)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    layout, pose, renderer, ref = default_table()
    rng = np.random.default_rng(args.seed)
    stands: dict[str, list[float]] = {"now": [], "before": []}
    fulls: dict[str, list[float]] = {"now": [], "before": []}
    decodes: list[float] = []
    for k in range(args.tables):
        frame, lores, decode = table_frame(layout, renderer, rng, k)
        decodes.append(decode)
        seen = {}
        for name in ("now", "before") if k % 2 else ("before", "now"):
            reader = BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload)
            with PartTimer("_read_stand") as timer:
                if name == "before":
                    with before():
                        t = time.process_time()
                        obs = reader.read(frame, lores=lores)
                        fulls[name].append(time.process_time() - t)
                else:
                    t = time.process_time()
                    obs = reader.read(frame, lores=lores)
                    fulls[name].append(time.process_time() - t)
            stands[name].append(timer.total)
            seen[name] = (obs.stands, obs.slots, obs.under)
        if seen["now"] != seen["before"]:
            print(f"table {k}: the shipped and the replaced steps read differently", file=sys.stderr)
            return 1
    base = statistics.median(decodes)
    print(f"stands bench: {args.tables} tables (seed {args.seed}), each read by a fresh reader with the shipped "
          "steps and with the replaced ones: the same observations both ways")
    for label, times in (("stands' part of a full read", stands), ("full read", fulls)):
        now, old = statistics.median(times["now"]), statistics.median(times["before"])
        print(f"{label} (CPU, one core, median of {args.tables}): now {now * 1e3:.2f} ms = {now / base:.2f}x a "
              f"JPEG decode ({base * 1e3:.1f} ms); before {old * 1e3:.2f} ms = {old / base:.2f}x; "
              f"now / before = {now / old:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
