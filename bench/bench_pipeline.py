"""Per-frame cost of the overhead pipeline on the demo table (one core).

Prints the median time to render a frame (test/demo only), to read every stand and slot of it, and to
run the whole table-loop step (read + stabilise + reconcile), each with a ratio against an in-process
baseline: one BGR->grey conversion of the same frame, so figures compare across machines.
"""

from __future__ import annotations

import statistics
import time

import cv2
import numpy as np

from tracker.runtime.demo import DemoFrames, DemoTable
from tracker.runtime.demo_script import demo_steps
from tracker.table.loop import OverheadLoop


def median_ms(fn: object, frames: list[np.ndarray]) -> float:
    times = []
    for frame in frames:
        t0 = time.process_time()
        fn(frame)  # type: ignore[operator]
        times.append((time.process_time() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    cv2.setNumThreads(1)
    demo = DemoTable(fps=None, repeat=False)
    t0 = time.process_time()
    frames = [f for _, _, _, f in DemoFrames(demo.renderer, demo_steps(), 1, 2).frames()]
    render_ms = (time.process_time() - t0) * 1000 / len(frames)
    baseline = median_ms(lambda f: cv2.cvtColor(f, cv2.COLOR_BGR2GRAY), frames)
    read = median_ms(demo.reader.read, frames)
    loop = OverheadLoop(demo.table, demo.reader)
    step = median_ms(loop.process, frames)
    h, w = frames[0].shape[:2]
    print(f"frames: {len(frames)} at {w}x{h}")
    print(f"baseline (BGR->grey): {baseline:.2f} ms")
    print(f"render (synthetic, mean): {render_ms:.1f} ms  ratio {render_ms / baseline:.0f}x")
    print(f"board read (median): {read:.1f} ms  ratio {read / baseline:.0f}x")
    print(f"table-loop step (median): {step:.1f} ms  ratio {step / baseline:.0f}x")


if __name__ == "__main__":
    main()
