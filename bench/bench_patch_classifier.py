"""Patch classifier benchmark: the shipped weights on fresh domain-randomised renders, and their cost.

Accuracy: scenes of ``training.patch_data`` with seeds ``seed*100000 + i`` (training uses seed 1, the
calibration set seed 2; the default here, 5, was never seen), every patch as the reader cuts it. Printed
per network: accuracy (upright and flipped soul tokens as one class, as the reader counts them), the share
the network is confident on (calibrated probability >= 0.9), the share of those that are wrong, and the
share of patches its veto (``verdict`` against the true reading, VETO / FLOOR) would wrongly turn unknown.

Cost: one 2028x1520 frame's 32 regions (18 stands, 14 slots) cut, normalised and classified in one batch
per network, against decoding the same frame from JPEG, in the same process (the ratio is what to compare
across machines). The reader classifies only the regions whose look changed, so an unchanged frame costs
nothing here. Forward pass: the two networks alone on 96 stand and 12 slot patches (the budget the issue
sets for a big map where every region changed), against the same JPEG decode.

Run: PYTHONPATH=. .venv/bin/python bench/bench_patch_classifier.py [--seed 5] [--scenes 8] [--repeat 30]
     [--weights DIR]
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

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from training.patch_data import build
from vision.light import channel_gains, shrink
from vision.patch_classifier import PatchClassifier, PatchNet, patch_input, verdict
from vision.regions import slot_regions, stand_regions
from vision.synth import Renderer, TableScene, Token

CONFIDENT = 0.9


def scores(net: PatchNet, x: np.ndarray, y: np.ndarray) -> str:
    raw = net.probs(x)
    truth = [net.classes[int(i)] for i in y]
    needless = float(np.mean([verdict(q, net.classes, "soul" if t == "soul flipped" else t) is not None
                              for q, t in zip(raw, truth, strict=True) if t != "unknown"]))
    p = raw.copy()
    if "soul flipped" in net.classes:
        up, down = net.classes.index("soul"), net.classes.index("soul flipped")
        p[:, up] += p[:, down]
        p[:, down] = 0.0
        y = np.where(y == down, up, y)
    pred, conf = p.argmax(1), p.max(1) >= CONFIDENT
    wrong = float((pred[conf] != y[conf]).mean()) if conf.any() else 0.0
    return (f"{len(y):6d} patches  accuracy {100 * float((pred == y).mean()):5.1f}%  confident "
            f"{100 * float(conf.mean()):5.1f}%  wrong when confident {100 * wrong:4.1f}%  "
            f"right reading vetoed {100 * needless:4.1f}%")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--scenes", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--weights", type=Path, help="a folder of other weights (default: the shipped ones)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    layout = table_layout(BoardMap.packaged())
    clf = PatchClassifier.load(args.weights)
    ps = build(layout, [args.seed * 100000 + i for i in range(args.scenes)], shots=2, views=1)
    print(f"patch classifier on fresh renders (seed {args.seed}, {args.scenes} scenes x 2 photos)")
    print("  stands:", scores(clf.stands, ps.stands, ps.stand_labels))
    print("  slots: ", scores(clf.slots, ps.slots, ps.slot_labels))

    pose = default_pose(layout)
    r = Renderer(layout, pose, {"red": (40, 40, 210), "blue": (200, 90, 30)})
    pieces = {"T1": Token("capital", "red"), layout.stands[-1].id: Token("soul", "blue")}
    frame = r.render(TableScene(pieces), seed=args.seed)
    ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    gains = channel_gains(shrink(frame), shrink(frame))
    stands, slots = stand_regions(layout, pose), slot_regions(layout, pose)

    def classify() -> None:
        clf.stands.probs([patch_input(frame, reg, gains) for reg in stands.values()])
        clf.slots.probs([patch_input(frame, reg, gains) for reg in slots.values()])

    decode, run = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
        t1 = time.perf_counter()
        classify()
        t2 = time.perf_counter()
        decode.append(t1 - t0)
        run.append(t2 - t1)
    d, c = statistics.median(decode), statistics.median(run)
    print(f"cost, all {len(stands) + len(slots)} regions of a 2028x1520 frame: {1000 * c:.2f} ms "
          f"= {c / d:.2f}x a JPEG decode of the frame ({1000 * d:.2f} ms), median of {args.repeat}, one thread")
    big_s, big_m = ps.stands[np.arange(96) % len(ps.stands)], ps.slots[np.arange(12) % len(ps.slots)]
    fwd = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        clf.stands.probs(big_s)
        clf.slots.probs(big_m)
        fwd.append(time.perf_counter() - t0)
    f = statistics.median(fwd)
    print(f"forward pass, 96 stand + 12 slot patches: {1000 * f:.2f} ms = {f / d:.2f}x the JPEG decode, "
          f"median of {args.repeat}, one thread")
    return 0


if __name__ == "__main__":
    sys.exit(main())
