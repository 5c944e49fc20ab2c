"""What speed13 cut from the small per-region passes of a full read, against the code it replaced, in the
same process.

Every stand, slot and under-mat area of a full read goes through the same few helpers on its small arrays:
``vision.colour.chroma_f`` (chromaticity), ``chroma_dist`` (the change tests, the blur ladder) and the share of
a mask's pixels that are set (``share``, ~200 calls a read). speed13 made each give the same values with less
overhead; this bench puts the replaced code back ("before", the functions below) and reads seeded tables
(bench_overhead's scenes, default pose, reference frame, its range of light, blur, noise and JPEG) with a
fresh reader each way, ``--repeats`` times per table, alternating which goes first. It prints the median CPU
time of the whole read and of its stands, slots and under-mat areas (``BoardReader._read_stand``,
``_read_slot``, ``_read_under``, summed over one read), each with its ratio to a JPEG decode of the same frame
and now / before. Per table, both readers' observations must be equal (it exits 1 otherwise).

    PYTHONPATH=. .venv/bin/python bench/bench_region_passes.py --tables 8
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.board
import vision.colour
import vision.obstruction
import vision.slots
import vision.stand_change
import vision.stand_stack
import vision.stands
import vision.under_mat
from bench.bench_overhead import PALETTE
from bench.same_process import PartTimer, default_table, paired_args, paired_order, print_paired, swapped, table_frame
from rules.kipukas.identity import is_kipukas_payload
from vision.board import BoardReader
from vision.colour import F32


def chroma_f_before(f: F32) -> tuple[F32, F32]:
    """Before (``vision.colour.chroma_f``): the three-channel 1 / sum by ``cv2.merge``, a new sum matrix."""
    s = np.asarray(cv2.transform(f, np.ones((1, 3), np.float32)), np.float32).reshape(f.shape[:2])
    inv = np.float32(1.0) / np.maximum(s, np.float32(1.0))
    c = np.asarray(cv2.multiply(f, cv2.merge((inv, inv, inv))), np.float32)
    return c, s


def chroma_dist_before(a: F32, b: F32) -> F32:
    """Before (``vision.colour.chroma_dist``): the difference, square and root by numpy."""
    d = a - b
    return np.sqrt(np.asarray(cv2.transform(d * d, np.ones((1, 3), np.float32)), np.float32).reshape(a.shape[:2]))


def share_before(mask: np.ndarray) -> float:
    """Before (``vision.colour.share``): numpy's mean."""
    return float(mask.mean())


# (module, attribute, the code it replaced)
BEFORE: list[tuple[Any, str, Callable[..., Any]]] = [
    (vision.colour, "chroma_f", chroma_f_before),
    *((mod, "chroma_dist", chroma_dist_before)
      for mod in (vision.colour, vision.slots, vision.stand_change, vision.stand_stack, vision.obstruction)),
    *((mod, "share", share_before) for mod in (vision.colour, vision.slots, vision.stands, vision.under_mat)),
]


def before() -> AbstractContextManager[None]:
    """The replaced steps in place of the shipped ones, for the duration."""
    return swapped(BEFORE)


PARTS = {"stands": "_read_stand", "slots": "_read_slot", "under-mat areas": "_read_under"}


def main() -> int:
    args = paired_args(__doc__)
    cv2.setNumThreads(1)
    layout, pose, renderer, ref = default_table()
    rng = np.random.default_rng(args.seed)
    times: dict[str, dict[str, list[float]]] = {p: {"now": [], "before": []} for p in ("full read", *PARTS)}
    decodes: list[float] = []
    for k in range(args.tables):
        frame, lores, decode = table_frame(layout, renderer, rng, k)
        decodes.append(decode)
        seen: dict[str, Any] = {}
        for r in range(args.repeats):
            for name in paired_order(k, r):
                reader = BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload)
                with ExitStack() as stack:
                    timers = {p: stack.enter_context(PartTimer(m)) for p, m in PARTS.items()}
                    if name == "before":
                        stack.enter_context(before())
                    t = time.process_time()
                    obs = reader.read(frame, lores=lores)
                    times["full read"][name].append(time.process_time() - t)
                for p, timer in timers.items():
                    times[p][name].append(timer.total)
                got = (obs.stands, obs.slots, obs.under)
                if seen.setdefault(name, got) != got:
                    print(f"table {k}: a fresh reader read the same frame differently", file=sys.stderr)
                    return 1
        if seen["now"] != seen["before"]:
            print(f"table {k}: the shipped and the replaced steps read differently", file=sys.stderr)
            return 1
    print(f"region passes bench: {args.tables} tables (seed {args.seed}) x {args.repeats}, each read by a fresh "
          "reader with the shipped steps and with the replaced ones: the same observations both ways")
    n = args.tables * args.repeats
    print_paired(times, decodes, n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
