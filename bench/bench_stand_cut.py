"""What speed14 saved by cutting each stand once a frame, against the two rectifications it replaced, in the
same process.

The stand decision reads a stand at ``STAND_READ_PX_PER_MM`` and the patch classifier at ``STAND_PX_PER_MM``;
each was a ``cv2.remap`` of the frame. Now the decision's patch is the classifier's (cut once a frame inside
``vision.warp.one_frame``) shrunk bilinearly (``vision.regions.cut``). This bench puts the separate
rectification back ("before": ``extract`` through the decision's own homography, its sampling maps prepared
as the reader did) and reads seeded tables (bench_overhead's scenes, default pose, reference frame, its range
of light, blur, noise and JPEG) with a fresh reader each way, ``--repeats`` times per table, alternating which
goes first. It prints the median CPU time of the whole read and of its stands (``BoardReader._read_stand``,
the frame's blur estimate included), each with its ratio to a JPEG decode of the same frame and now /
before, the CPU time of one stand's cut each way, and how many stand readings differ between the two (the
patches differ by rounding: the stress bench judges whether readings move the wrong way).

    PYTHONPATH=. .venv/bin/python bench/bench_stand_cut.py --tables 8
"""

from __future__ import annotations

import statistics
import sys
import time
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.adapt
import vision.board
import vision.frame_blur
from bench.bench_overhead import PALETTE
from bench.same_process import PartTimer, default_table, paired_args, paired_order, print_paired, swapped, table_frame
from rules.kipukas.identity import is_kipukas_payload
from vision.board import BoardReader
from vision.regions import Region, cut
from vision.warp import Image, extract, one_frame, prepare

USERS = (vision.board, vision.frame_blur, vision.adapt)


def cut_before(img: Image, reg: Region) -> Image:
    """Before (``vision.regions.cut``): every region rectified through its own homography."""
    return extract(img, reg.H, reg.size)


def before() -> AbstractContextManager[None]:
    """The separate rectification in place of the shared cut, for the duration."""
    return swapped([(mod, "cut", cut_before) for mod in USERS])


def _what(obs: Any) -> tuple[Any, ...]:
    return (obs.state, obs.owner, obs.count, obs.obstructed)


def cut_cost(frame: Image, regs: list[Region], repeats: int = 50) -> tuple[float, float]:
    """CPU time of one stand's decision patch each way (now: the classifier's cut is there already)."""
    for reg in regs:
        prepare(reg.H, reg.size, frame.shape)
    with one_frame(frame):
        for reg in regs:
            assert reg.source is not None
            extract(frame, reg.source.H, reg.source.size)
        t = time.process_time()
        for _ in range(repeats):
            for reg in regs:
                cut(frame, reg)
        now = (time.process_time() - t) / (repeats * len(regs))
    t = time.process_time()
    for _ in range(repeats):
        for reg in regs:
            extract(frame, reg.H, reg.size)
    return now, (time.process_time() - t) / (repeats * len(regs))


def main() -> int:
    args = paired_args(__doc__)
    cv2.setNumThreads(1)
    layout, pose, renderer, ref = default_table()
    rng = np.random.default_rng(args.seed)
    times: dict[str, dict[str, list[float]]] = {p: {"now": [], "before": []} for p in ("full read", "stands")}
    decodes: list[float] = []
    cuts: list[tuple[float, float]] = []
    differ = moved = total = 0
    for k in range(args.tables):
        frame, lores, decode = table_frame(layout, renderer, rng, k)
        decodes.append(decode)
        seen: dict[str, Any] = {}
        for r in range(args.repeats):
            for name in paired_order(k, r):
                with ExitStack() as stack:
                    if name == "before":
                        stack.enter_context(before())
                    reader = BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload)
                    if name == "before":
                        for reg in reader.stand_regions.values():
                            prepare(reg.H, reg.size, frame.shape)
                    timers = {"stands": stack.enter_context(PartTimer("_read_stand"))}
                    t = time.process_time()
                    obs = reader.read(frame, lores=lores)
                    times["full read"][name].append(time.process_time() - t)
                times["stands"][name].append(timers["stands"].total)
                if seen.setdefault(name, obs.stands) != obs.stands:
                    print(f"table {k}: a fresh reader read the same frame differently", file=sys.stderr)
                    return 1
        differ += sum(seen["now"][sid] != seen["before"][sid] for sid in seen["now"])
        moved += sum(_what(seen["now"][sid]) != _what(seen["before"][sid]) for sid in seen["now"])
        total += len(seen["now"])
        cuts.append(cut_cost(frame, list(BoardReader(layout, pose, PALETTE, ref).stand_regions.values())))
    print(f"stand cut bench: {args.tables} tables (seed {args.seed}) x {args.repeats}, each read by a fresh reader "
          f"with the shared cut and with the separate one; stand observations differing: {differ} of {total}, "
          f"{moved} of them in what they read (state, owner, count, flagged), the rest in confidence alone")
    n = args.tables * args.repeats
    print_paired(times, decodes, n)
    now_cut, old_cut = statistics.median(c[0] for c in cuts), statistics.median(c[1] for c in cuts)
    print(f"one stand's decision patch (CPU, median over tables of 50 x 18): now {now_cut * 1e6:.1f} us, before "
          f"{old_cut * 1e6:.1f} us; now / before = {now_cut / old_cut:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
