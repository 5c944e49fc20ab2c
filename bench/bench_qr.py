"""Benchmark: card QR reading on the real dev photos (and the seeded synthetic set), one core.

Prints, for the project's reader, plain pyzbar on the grey frame and plain zxing-cpp on the grey frame,
all in this one run: the rate of photos read completely and correctly, wrong/non-Kipukas payloads
reported, and the median and 90th-percentile decode time per frame (process CPU time, the frame already
loaded, median of a few repetitions per image), then the time ratios against plain pyzbar. Then, for the
synthetic conditions of `vision.qr_synth`, the reader's rate and times per condition.

Run: `.venv/bin/python bench/bench_qr.py [--reps N] [--synth N]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.identity import is_kipukas_payload  # noqa: E402
from vision.card_reader import CardReader  # noqa: E402
from vision.qr_decoders import decode_zbar, decode_zxing  # noqa: E402

Frame = npt.NDArray[np.uint8]
DEV = ROOT.parent / "shared" / "kipukas" / "qr-photos-dev"

Method = Callable[[Frame], set[str]]


def methods() -> dict[str, Method]:
    reader = CardReader(accept=is_kipukas_payload)

    def ours(frame: Frame) -> set[str]:
        return {r.raw for r in reader.read(frame)}

    def zbar(frame: Frame) -> set[str]:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        return {d.text for d in decode_zbar(grey) if is_kipukas_payload(d.text)}

    def zxing(frame: Frame) -> set[str]:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        return {d.text for d in decode_zxing(grey) if is_kipukas_payload(d.text)}

    return {"reader": ours, "pyzbar-grey": zbar, "zxing-grey": zxing}


def measure(method: Method, frames: list[tuple[Frame, set[str]]], reps: int) -> dict[str, float]:
    ok = wrong = 0
    times: list[float] = []
    for frame, truth in frames:
        per: list[float] = []
        got: set[str] = set()
        for _ in range(reps):
            start = time.process_time()
            got = method(frame)
            per.append(time.process_time() - start)
        times.append(statistics.median(per) * 1000)
        ok += got == truth
        wrong += len(got - truth)
    return {
        "read": ok, "n": len(frames), "wrong": wrong,
        "median_ms": float(np.median(times)), "p90_ms": float(np.percentile(times, 90)),
    }


def report(title: str, rows: dict[str, dict[str, float]], baseline: str | None) -> None:
    print(f"== {title}")
    print(f"{'method':<22} {'read':>7} {'rate':>6} {'wrong':>5} {'median ms':>10} {'p90 ms':>8} {'x baseline':>10}")
    base = rows[baseline]["median_ms"] if baseline else None
    for name, r in rows.items():
        ratio = f"{r['median_ms'] / base:.2f}" if base else "-"
        print(
            f"{name:<22} {int(r['read']):>3}/{int(r['n']):<3} {r['read'] / r['n']:>6.0%} {int(r['wrong']):>5} "
            f"{r['median_ms']:>10.1f} {r['p90_ms']:>8.1f} {ratio:>10}"
        )


def dev_frames() -> list[tuple[Frame, set[str]]]:
    truth = json.loads((DEV / "truth.json").read_text(encoding="utf-8"))["images"]
    frames = []
    for name, entry in sorted(truth.items()):
        frame = cv2.imread(str(DEV / name))
        if frame is None:
            raise SystemExit(f"bench_qr: {DEV / name}: not a readable image")
        frames.append((np.asarray(frame, dtype=np.uint8), set(entry["cards"])))
    return frames


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="repetitions per image (median taken)")
    parser.add_argument("--synth", type=int, default=12, help="synthetic images per condition (0: skip)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    ms = methods()
    frames = dev_frames()
    for method in ms.values():  # warm-up: first calls load libraries and allocate
        method(frames[0][0])
    rows = {name: measure(method, frames, args.reps) for name, method in ms.items()}
    report(f"dev photos ({DEV.name}, {len(frames)} real 1280x720 photos), one core", rows, "pyzbar-grey")
    if args.synth:
        from vision.synth.qr import CONDITIONS, SynthSet

        synth = SynthSet(seed=2026)
        srows: dict[str, dict[str, float]] = {}
        for condition in CONDITIONS:
            sframes = [(s.frame, set(s.payloads)) for s in synth.samples(condition, args.synth)]
            for name in ("reader", "pyzbar-grey"):
                srows[f"{condition}/{name}"] = measure(ms[name], sframes, 1)
        report(f"synthetic card backs ({args.synth} per condition, seed 2026), one core", srows, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
