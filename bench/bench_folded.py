"""What speed15 saved by folding a read's small passes into fewer, against the code each replaced, in the
same process.

Folded (each the same values: ``tests/test_ladder_same.py``): the frame's blur estimate scores the four
levels of the ladder in one pass per sampled stand (``vision.stands.ladder_scores``) instead of one
``match_score`` per level. This bench puts the replaced code back ("before") and reads seeded tables
(bench_overhead's scenes, default pose, reference frame, its range of light, blur, noise and JPEG) with a
fresh reader each way, ``--repeats`` times per table, alternating which goes first. It prints the median CPU
time of the whole read, of its stands (``BoardReader._read_stand``, the estimate included) and of the
estimate alone (``FrameBlur._pooled``), each with its ratio to a JPEG decode of the same frame and now /
before, and exits 1 if any stand, slot or under-mat reading differs between the two.

    PYTHONPATH=. .venv/bin/python bench/bench_folded.py --tables 8
"""

from __future__ import annotations

import sys
import time
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.frame_blur
from bench.bench_overhead import PALETTE
from bench.same_process import PartTimer, default_table, paired_args, paired_order, print_paired, swapped, table_frame
from rules.kipukas.identity import is_kipukas_payload
from vision.board import BoardReader
from vision.colour import F32
from vision.stands import MATCH_BLUR_MM, match_score, match_step, smoothed_model


def ladder_before(c: F32, ref: tuple[F32, F32], px_per_mm: float) -> NDArray[np.float64]:
    """Before (``vision.stands.ladder_scores``): one ``match_score`` per level of the ladder."""
    k = px_per_mm
    return np.array([match_score(c, smoothed_model(ref, round(level * k, 1), k)[0], match_step(k))
                     for level in MATCH_BLUR_MM], np.float64)


def before() -> AbstractContextManager[None]:
    """The replaced code in place of the folded passes, for the duration."""
    return swapped([(vision.frame_blur, "ladder_scores", ladder_before)])


class MethodTimer:
    """CPU time of one method of ``owner`` summed while inside."""

    def __init__(self, owner: Any, name: str) -> None:
        self.owner, self.name, self.total = owner, name, 0.0
        self.plain = getattr(owner, name)

    def __enter__(self) -> MethodTimer:
        plain = self.plain

        def timed(*a: Any, **k: Any) -> Any:
            t = time.process_time()
            try:
                return plain(*a, **k)
            finally:
                self.total += time.process_time() - t

        setattr(self.owner, self.name, timed)
        return self

    def __exit__(self, *exc: object) -> None:
        setattr(self.owner, self.name, self.plain)


def main() -> int:
    args = paired_args(__doc__)
    cv2.setNumThreads(1)
    layout, pose, renderer, ref = default_table()
    rng = np.random.default_rng(args.seed)
    parts = ("full read", "stands", "blur estimate")
    times: dict[str, dict[str, list[float]]] = {p: {"now": [], "before": []} for p in parts}
    decodes: list[float] = []
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
                    stands = stack.enter_context(PartTimer("_read_stand"))
                    pooled = stack.enter_context(MethodTimer(vision.frame_blur.FrameBlur, "_pooled"))
                    t = time.process_time()
                    obs = reader.read(frame, lores=lores)
                    times["full read"][name].append(time.process_time() - t)
                times["stands"][name].append(stands.total)
                times["blur estimate"][name].append(pooled.total)
                got = (obs.stands, obs.slots, obs.under)
                if seen.setdefault(name, got) != got:
                    print(f"table {k}: a fresh reader read the same frame differently", file=sys.stderr)
                    return 1
        if seen["now"] != seen["before"]:
            print(f"table {k}: the folded passes read differently from the code they replaced", file=sys.stderr)
            return 1
    n = args.tables * args.repeats
    print(f"folded passes bench: {args.tables} tables (seed {args.seed}) x {args.repeats}, each read by a fresh "
          f"reader with the folded passes and with the code they replaced; every stand, slot and under-mat "
          f"reading identical")
    print_paired(times, decodes, n, digits=3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
