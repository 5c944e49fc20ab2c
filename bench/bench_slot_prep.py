"""What speed11 cut from a slot's preparation, each against what it replaced in the same process: the
near-clipped values of tables lit brighter than their model, the face-down code window, the slot's light.

1. Full reads of tables lit brighter than their empty model: the near-clipped values put back in
whole-patch passes (now) against gathered one by one (before).

Under a brighter lamp than the table's photo (the light's gains over 1.02) ``vision.light.normalise`` puts
the model's value where the new light clips; on the mat's pale slots most values are near-clipped. The
bench reads seeded tables (bench_overhead's scenes, default pose, reference frame) lit ``--lighting``
times the reference, each by a fresh reader (a full read), once with ``vision.light.DENSE`` as shipped and
once with it 0 (every patch gathered, as before speed11), alternating, and prints the median CPU time of
each with its ratio to a JPEG decode of the same frame and to the other. The observations of both must be
equal (it exits 1 otherwise).

2. The code window of every slot of those tables and of tables at the bench's usual light (``--lighting``
0.9): turned grey in the frame's box before a one-channel ``remap`` (``vision.warp.extract_grey``, now)
against resampled in BGR and turned grey after (before); the codes the plain decoders read from each.

3. The slot decision's light-normalised patch from the patch classifier's (``normalise(..., lit=)``, now)
against its own lookup (before), per full read (14 slots), at both lights.

    PYTHONPATH=. .venv/bin/python bench/bench_slot_prep.py --tables 6
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.light
from bench.bench_overhead import PALETTE, random_scene
from bench.same_process import default_table
from rules.kipukas.identity import is_kipukas_payload
from tracker.sources.capture import simulated_lores
from vision.board import BoardReader
from vision.light import normalise
from vision.slots import decode_qr, qr_homography
from vision.warp import extract, extract_grey


def _cpu(fn: Callable[[], object], n: int = 20) -> float:
    """Median CPU time of ``fn`` over ``n`` calls."""
    out = []
    for _ in range(n):
        t = time.process_time()
        fn()
        out.append(time.process_time() - t)
    return statistics.median(out)


def slot_steps(reader: BoardReader, frame: np.ndarray,
               gains: np.ndarray) -> tuple[float, float, float, float, int, int]:
    """(code windows before, now; slot light before, now) in s summed over the slots, codes read before, now."""
    card = reader.layout.card_size_mm
    win_old = win_new = lit_old = lit_new = 0.0
    read_old = read_new = 0
    for sid, reg in reader.slot_regions.items():
        Hq, n = qr_homography(reg.H, reg.px_per_mm, reg.size, card)
        old = np.asarray(cv2.cvtColor(extract(frame, Hq, (n, n)), cv2.COLOR_BGR2GRAY), np.uint8)
        win_old += _cpu(lambda: cv2.cvtColor(extract(frame, Hq, (n, n)), cv2.COLOR_BGR2GRAY))  # noqa: B023
        win_new += _cpu(lambda: extract_grey(frame, Hq, (n, n)))  # noqa: B023
        read_old += decode_qr(old) is not None
        read_new += decode_qr(extract_grey(frame, Hq, (n, n))) is not None
        raw = extract(frame, reg.H, reg.size)
        model = reader._bgr_of(reader.models.get(sid) or reader._mat_slots[sid])
        lit = normalise(raw, gains)
        lit_old += _cpu(lambda: normalise(raw, gains, model))  # noqa: B023
        lit_new += _cpu(lambda: normalise(raw, gains, model, lit=lit))  # noqa: B023
    return win_old, win_new, lit_old, lit_new, read_old, read_new


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=6)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--lighting", type=float, default=1.35, help="the frames' light, the reference's being 1")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    layout, pose, renderer, ref = default_table()
    rng = np.random.default_rng(args.seed)
    shipped = vision.light.DENSE
    times: dict[str, list[float]] = {"whole": [], "gather": []}
    decodes: list[float] = []
    bright = 0
    steps = {light: np.zeros(6) for light in (args.lighting, 0.9)}
    for k in range(args.tables):
        scene = random_scene(layout, rng, k)
        clean, _ = renderer.compose(scene, seed=k)
        frame = renderer.finish(clean, seed=k, lighting=args.lighting, noise=1.0, blur=0.5, jpeg_quality=90)
        lores = simulated_lores(frame)
        _, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
        t = time.process_time()
        cv2.imdecode(buf, cv2.IMREAD_COLOR)
        decodes.append(time.process_time() - t)
        seen = {}
        for name, dense in (("gather", 0), ("whole", shipped)) if k % 2 else (("whole", shipped), ("gather", 0)):
            vision.light.DENSE = dense
            reader = BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload)
            t = time.process_time()
            obs = reader.read(frame, lores=lores)
            times[name].append(time.process_time() - t)
            seen[name] = (obs.stands, obs.slots, obs.under)
            if name == "whole":
                assert reader._blur is not None
                bright += bool((reader._blur.gains > 1.02).any())
            if name == "whole":
                for light in steps:
                    lit_frame = frame if light == args.lighting else renderer.finish(
                        clean, seed=k, lighting=light, noise=1.0, blur=0.5, jpeg_quality=90)
                    gains = reader.light.measure(reader.motion.align(simulated_lores(lit_frame)))[0] \
                        if reader.light is not None and reader.motion is not None else np.ones(3, np.float32)
                    steps[light] += np.array(slot_steps(reader, lit_frame, gains))
        vision.light.DENSE = shipped
        if seen["whole"] != seen["gather"]:
            print(f"table {k}: the two fixes read differently", file=sys.stderr)
            return 1
    base = statistics.median(decodes)
    whole, gather = statistics.median(times["whole"]), statistics.median(times["gather"])
    print(f"slot preparation bench: {args.tables} tables lit {args.lighting}x the reference (seed {args.seed}), "
          f"{bright} of them brighter than the models (a gain over 1.02); the same observations both ways")
    print(f"CPU time of a full read, one core (median of {args.tables}): near-clipped values in whole-patch "
          f"passes {whole * 1e3:.1f} ms = {whole / base:.2f}x a JPEG decode ({base * 1e3:.1f} ms); gathered one "
          f"by one {gather * 1e3:.1f} ms = {gather / base:.2f}x; whole / gathered = {whole / gather:.2f}")
    for light, (w_old, w_new, l_old, l_new, r_old, r_new) in steps.items():
        w_old, w_new, l_old, l_new = (v / args.tables for v in (w_old, w_new, l_old, l_new))
        print(f"lit {light}x: code windows of a full read's slots (median CPU per window, summed): BGR then grey "
              f"{w_old * 1e3:.2f} ms = {w_old / base:.3f}x a decode, grey then resampled {w_new * 1e3:.2f} ms = "
              f"{w_new / base:.3f}x ({w_new / w_old:.2f} of it); codes the plain decoders read: {int(r_old)} / "
              f"{int(r_new)}. The slots' light: own lookup {l_old * 1e3:.2f} ms, from the batch's "
              f"{l_new * 1e3:.2f} ms ({l_new / l_old:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
