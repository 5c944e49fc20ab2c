"""What speed16 saved by computing the stand decision's float passes once on a stack of all the stands a frame
reads (``vision.stand_stack``) instead of stand by stand, against the per-stand passes, in the same process.

"Before" puts the per-stand passes back (``vision.board.stand_passes`` gives no stack, so each stand's
``StandClassifier.classify`` computes its chromaticity, owner map and change test itself, as before). Seeded
tables (bench_overhead's scenes, default pose, reference frame, its range of light, blur, noise and JPEG) are
read by a fresh reader each way, ``--repeats`` times per table, alternating which goes first (``--steady``:
one reader each way reads the tables in turn, as the appliance does). It prints the median CPU time of the
whole read and of its stands (``BoardReader._stack_stands``, which takes the frame's blur estimate, and every
``_read_stand``), each with its ratio to a JPEG decode of the same frame and now / before, and exits 1 if any
stand, slot or under-mat reading differs between the two.

    PYTHONPATH=. .venv/bin/python bench/bench_stand_stack.py --tables 8
    PYTHONPATH=. .venv/bin/python bench/bench_stand_stack.py --tables 24 --steady
"""

from __future__ import annotations

import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.board
from bench.bench_overhead import PALETTE
from bench.same_process import PartTimer, default_table, paired_order, paired_parser, print_paired, swapped, table_frame
from rules.kipukas.identity import is_kipukas_payload
from tracker.runtime.allocator import keep_freed_memory
from vision.board import BoardReader


def no_stack(*args: Any) -> dict[str, Any]:
    """Before: no stacked passes; every stand's decision computes its own."""
    return {}


def main() -> int:
    ap = paired_parser(__doc__)
    ap.add_argument("--steady", action="store_true",
                    help="one reader each way reads the tables in turn (the appliance's steady state: regions "
                         "unchanged since the last table repeat their reading) instead of a fresh reader a read")
    args = ap.parse_args()
    keep_freed_memory()  # as the appliance does at start-up (``tracker.cli.main``)
    cv2.setNumThreads(1)
    layout, pose, renderer, ref = default_table()
    rng = np.random.default_rng(args.seed)
    parts = ("full read", "stands")
    times: dict[str, dict[str, list[float]]] = {p: {"now": [], "before": []} for p in parts}
    decodes: list[float] = []
    kept_readers: dict[str, BoardReader] = {}
    for k in range(args.tables):
        frame, lores, decode = table_frame(layout, renderer, rng, k)
        decodes.append(decode)
        seen: dict[str, Any] = {}
        for r in range(1 if args.steady else args.repeats):
            for name in paired_order(k, r):
                with ExitStack() as stack:
                    if name == "before":
                        stack.enter_context(swapped([(vision.board, "stand_passes", no_stack)]))
                    reader = BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload) if not args.steady \
                        else kept_readers.setdefault(name, BoardReader(layout, pose, PALETTE, ref,
                                                                       accept=is_kipukas_payload))
                    timers = {part: [stack.enter_context(PartTimer(method)) for method in names]
                              for part, names in (("stands", ("_read_stand", "_stack_stands")),)}
                    t = time.process_time()
                    obs = reader.read(frame, lores=lores)
                    times["full read"][name].append(time.process_time() - t)
                for part, kept in timers.items():
                    times[part][name].append(sum(timer.total for timer in kept))
                got = (obs.stands, obs.slots, obs.under)
                if seen.setdefault(name, got) != got:
                    print(f"table {k}: a fresh reader read the same frame differently", file=sys.stderr)
                    return 1
        if seen["now"] != seen["before"]:
            print(f"table {k}: the stacked passes read differently from the per-stand ones", file=sys.stderr)
            return 1
    n = args.tables * (1 if args.steady else args.repeats)
    how = "read in turn by one reader each way" if args.steady else f"x {args.repeats}, each read by a fresh reader"
    print(f"stand stack bench: {args.tables} tables (seed {args.seed}) {how} with the stacked passes and with "
          f"the per-stand ones; every stand, slot and under-mat "
          f"reading identical")
    print_paired(times, decodes, n, digits=3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
