"""Full reads of tables lit brighter than their empty model: the near-clipped values put back in whole-patch
passes (now) against gathered one by one (before), in the same process.

Under a brighter lamp than the table's photo (the light's gains over 1.02) ``vision.light.normalise`` puts
the model's value where the new light clips; on the mat's pale slots most values are near-clipped. The
bench reads seeded tables (bench_overhead's scenes, default pose, reference frame) lit ``--lighting``
times the reference, each by a fresh reader (a full read), once with ``vision.light.DENSE`` as shipped and
once with it 0 (every patch gathered, as before speed11), alternating, and prints the median CPU time of
each with its ratio to a JPEG decode of the same frame and to the other. The observations of both must be
equal (it exits 1 otherwise).

    PYTHONPATH=. .venv/bin/python bench/bench_slot_light.py --tables 6
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.light
from bench.bench_overhead import PALETTE, random_scene
from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from rules.kipukas.identity import is_kipukas_payload
from tracker.overhead.layout import table_layout
from tracker.sources.capture import simulated_lores
from vision.board import BoardReader
from vision.synth import Renderer, TableScene


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=6)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--lighting", type=float, default=1.35, help="the frames' light, the reference's being 1")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    ref = renderer.render(TableScene({}), seed=999)
    rng = np.random.default_rng(args.seed)
    shipped = vision.light.DENSE
    times: dict[str, list[float]] = {"whole": [], "gather": []}
    decodes: list[float] = []
    bright = 0
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
        vision.light.DENSE = shipped
        if seen["whole"] != seen["gather"]:
            print(f"table {k}: the two fixes read differently", file=sys.stderr)
            return 1
    base = statistics.median(decodes)
    whole, gather = statistics.median(times["whole"]), statistics.median(times["gather"])
    print(f"slot light bench: {args.tables} tables lit {args.lighting}x the reference (seed {args.seed}), "
          f"{bright} of them brighter than the models (a gain over 1.02); the same observations both ways")
    print(f"CPU time of a full read, one core (median of {args.tables}): near-clipped values in whole-patch "
          f"passes {whole * 1e3:.1f} ms = {whole / base:.2f}x a JPEG decode ({base * 1e3:.1f} ms); gathered one "
          f"by one {gather * 1e3:.1f} ms = {gather / base:.2f}x; whole / gathered = {whole / gather:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
