"""What the before/after benches of the overhead reader share: the replaced code put back for a while, a CPU
timer on one step of a read, and the seeded random table frames they time both versions on, with a JPEG
decode of each as the baseline."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import cv2
import numpy as np

import vision.board
from bench.bench_overhead import PALETTE, random_scene
from calibration.camera import CameraPose, default_pose
from calibration.layout import TableLayout
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from tracker.sources.capture import simulated_lores
from vision.board import BoardReader
from vision.synth import Renderer, TableScene
from vision.warp import Image


@contextmanager
def swapped(replaced: Sequence[tuple[Any, str, Any]]) -> Iterator[None]:
    """Each ``(owner, name, old)``'s attribute set to ``old`` for the duration, then the shipped one again."""
    kept = [(owner, name, getattr(owner, name)) for owner, name, _ in replaced]
    for owner, name, old in replaced:
        setattr(owner, name, old)
    try:
        yield
    finally:
        for owner, name, now in kept:
            setattr(owner, name, now)


def default_table() -> tuple[TableLayout, CameraPose, Renderer, Image]:
    """The packaged map's table under the default camera pose: its layout, the pose, a renderer in the
    benches' palette and the empty table's photo (seed 999) the readers are built with."""
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    return layout, pose, renderer, renderer.render(TableScene({}), seed=999)


def table_frame(layout: TableLayout, renderer: Renderer, rng: np.random.Generator,
                k: int) -> tuple[Image, Image, float]:
    """The ``k``-th random table (``bench_overhead.random_scene``) under random light, noise, blur and JPEG:
    its frame, its simulated low-resolution stream and the CPU seconds a JPEG decode of the frame takes."""
    scene = random_scene(layout, rng, k)
    clean, _ = renderer.compose(scene, seed=k)
    frame = renderer.finish(clean, seed=k, lighting=float(rng.uniform(0.75, 1.25)),
                            noise=float(rng.uniform(0.5, 2.0)), blur=float(rng.uniform(0.0, 1.2)),
                            jpeg_quality=int(rng.integers(70, 96)))
    _, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    t = time.process_time()
    cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return frame, simulated_lores(frame), time.process_time() - t


class PartTimer:
    """CPU time of one ``BoardReader`` method summed over one read."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.total = 0.0
        self.plain = getattr(vision.board.BoardReader, name)

    def __enter__(self) -> PartTimer:
        plain = self.plain

        def timed(reader: BoardReader, *a: Any, **k: Any) -> Any:
            t = time.process_time()
            try:
                return plain(reader, *a, **k)
            finally:
                self.total += time.process_time() - t

        setattr(vision.board.BoardReader, self.name, timed)
        return self

    def __exit__(self, *exc: object) -> None:
        setattr(vision.board.BoardReader, self.name, self.plain)


def paired_parser(doc: str | None) -> argparse.ArgumentParser:
    """The paired benches' command line: how many seeded tables, reads of each per version, and the seed."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=3)
    return ap


def paired_args(doc: str | None) -> argparse.Namespace:
    """`paired_parser`'s arguments, parsed."""
    return paired_parser(doc).parse_args()


def paired_order(k: int, r: int) -> tuple[str, str]:
    """Which version reads first on table ``k``'s ``r``-th repeat: alternated, so neither always warms the
    caches for the other."""
    return ("now", "before") if (k + r) % 2 else ("before", "now")


def print_paired(times: dict[str, dict[str, list[float]]], decodes: list[float], n: int, digits: int = 2) -> None:
    """One line per timed part: the median CPU time of each version, its ratio to the median JPEG decode of
    the same frames, and now / before."""
    base = statistics.median(decodes)
    for label, got in times.items():
        now, old = statistics.median(got["now"]), statistics.median(got["before"])
        print(f"{label} (CPU, one core, median of {n}): now {now * 1e3:.2f} ms = {now / base:.{digits}f}x a JPEG "
              f"decode ({base * 1e3:.1f} ms); before {old * 1e3:.2f} ms = {old / base:.{digits}f}x; now / before = "
              f"{now / old:.3f}")
