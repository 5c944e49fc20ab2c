"""Where the patch classifier's batch of a full read spends its time, and what each runtime's forward pass costs.

On seeded rendered tables (default pose, the bench's mix of light, noise, blur and JPEG), cuts every stand
and slot's classifier input as the reader does and times, per network, on one core (CPU time of this
process): the rectification (``remap`` through the maps made at calibration), the light normalisation, the
shrink to 32x32, and the forward pass of the whole batch in OpenCV's DNN module (the baseline, in the same
process) and in onnxruntime (one thread; basic and all graph optimisations), one batch and one patch at a
time. Prints each as ms per frame and as a ratio to the OpenCV batch, and the largest difference of the
calibrated probabilities between the runtimes.

Run: PYTHONPATH=. .venv/bin/python bench/bench_patch_runtime.py [--tables 6] [--seed 3] [--repeat 20]
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_overhead import PALETTE, random_scene
from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.board import BoardReader
from vision.light import normalise
from vision.patch_classifier import INPUT, PatchClassifier, PatchNet, Weights, to_blob
from vision.patch_runtime import OrtForward, available
from vision.regions import Region
from vision.synth import Renderer, TableScene
from vision.warp import extract


def cpu_ms(fn: Callable[[], object], repeat: int) -> float:
    fn()
    t = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - t) / repeat * 1e3


def measure(frame: np.ndarray, regs: list[Region], gains: np.ndarray, weights: Weights, ort: Any,
            repeat: int) -> dict[str, float]:
    """CPU ms of each step of one network's batch on one frame, and the runtimes' largest difference."""
    patches = [extract(frame, g.H, g.size) for g in regs]
    lit = [normalise(p, gains) for p in patches]
    blob = to_blob(np.asarray([cv2.resize(p, (INPUT, INPUT), interpolation=cv2.INTER_AREA) for p in lit]))
    ocv = PatchNet(weights, runtime="opencv")
    timed: dict[str, Callable[[], object]] = {
        "rectify (remap)": lambda: [extract(frame, g.H, g.size) for g in regs],
        "light": lambda: [normalise(p, gains) for p in patches],
        "shrink to 32x32": lambda: [cv2.resize(p, (INPUT, INPUT), interpolation=cv2.INTER_AREA) for p in lit],
        "OpenCV DNN, one batch (baseline)": lambda: ocv.body(blob),
        "OpenCV DNN, one patch at a time": lambda: [ocv.body(blob[i:i + 1]) for i in range(len(blob))]}
    out: dict[str, float] = {}
    if ort is not None:
        basic = OrtForward(weights.body, ort)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        basic.session = ort.InferenceSession(weights.body, opts, providers=["CPUExecutionProvider"])
        full = OrtForward(weights.body, ort)
        timed["onnxruntime 1 thread, ORT_ENABLE_BASIC, one batch"] = lambda: basic(blob)
        timed["onnxruntime 1 thread, ORT_ENABLE_ALL, one batch"] = lambda: full(blob)
        timed["onnxruntime 1 thread, ORT_ENABLE_ALL, one patch at a time"] = \
            lambda: [full(blob[i:i + 1]) for i in range(len(blob))]
        p_ocv = weights.head.probs(ocv.body(blob).reshape(len(blob), -1))
        p_ort = weights.head.probs(full(blob).reshape(len(blob), -1))
        out["probability difference"] = float(np.abs(p_ocv - p_ort).max())
    for label, fn in timed.items():
        out[label] = cpu_ms(fn, repeat)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=6)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    r = Renderer(layout, pose, PALETTE)
    rng = np.random.default_rng(args.seed)
    reader = BoardReader(layout, pose, PALETTE, r.render(TableScene({}), seed=999))
    shipped = PatchClassifier.load()
    ort: Any = importlib.import_module("onnxruntime") if "onnxruntime" in available() else None
    rows: dict[str, list[float]] = {}
    worst = 0.0
    for k in range(args.tables):
        clean, _ = r.compose(random_scene(layout, rng, k), seed=k)
        frame = r.finish(clean, seed=k, lighting=float(rng.uniform(0.75, 1.25)), noise=float(rng.uniform(0.5, 2.0)),
                         blur=float(rng.uniform(0.0, 1.2)), jpeg_quality=int(rng.integers(70, 96)))
        gains = np.asarray(rng.uniform(0.9, 1.1, 3), np.float32)
        for kind, regions, weights in (("stands", reader.input_regions, shipped.weights[0]),
                                       ("slots", reader.slot_regions, shipped.weights[1])):
            for label, ms in measure(frame, list(regions.values()), gains, weights, ort, args.repeat).items():
                if label == "probability difference":
                    worst = max(worst, ms)
                else:
                    rows.setdefault(f"{kind}: {label}", []).append(ms)
    print(f"patch classifier batch, {args.tables} tables (seed {args.seed}), CPU ms per frame on one core "
          f"(median over tables; {len(reader.input_regions)} stands, {len(reader.slot_regions)} slots)")
    for kind in ("stands", "slots"):
        base = statistics.median(rows[f"{kind}: OpenCV DNN, one batch (baseline)"])
        for label, v in rows.items():
            if label.startswith(kind):
                m = statistics.median(v)
                print(f"  {label:<70}{m:7.2f} ms  {m / base:5.2f}x the OpenCV batch")
    if ort is None:
        print("onnxruntime is not installed: only OpenCV's DNN measured")
    else:
        print(f"largest difference of the calibrated probabilities, onnxruntime vs OpenCV: {worst:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
