"""The stand decision's float passes computed once on a stack of all the stands a frame reads
(``vision.stand_stack``, issue 14) give every stand the very values its own passes gave: the chromaticity,
the owner map, the change against its model (mask and blur), and so the very same reading, confidence and
reason; a reader reading seeded tables with the stack reads every stand, slot and under-mat area as one
without it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vision.board
from bench.bench_overhead import random_scene
from bench.same_process import swapped
from rules.kipukas.identity import is_kipukas_payload
from tests.overhead_support import PALETTE, layout, pose, reference, renderer
from tracker.sources.capture import simulated_lores
from vision.board import BoardReader
from vision.colour import chroma
from vision.stand_change import MATCH_BLUR_MM, changed_matched, smoothed_patch
from vision.stand_stack import StandInput, StandPasses, stand_passes
from vision.stands import StandClassifier, StandReading

PIECES = [(40, 40, 210), (200, 90, 30), (60, 170, 60), (30, 30, 30), (230, 230, 230)]


def _stand(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded stand's empty look (a smooth map texture, some dark rows) and a frame of it: a piece (square
    or round, a player's colour or another), a shade over part of it, noise."""
    base = rng.integers(30, 230, (n // 6 + 1, n // 6 + 1, 3)).astype(np.float32)
    empty = np.asarray(np.kron(base, np.ones((6, 6, 1)))[:n, :n], np.float32)
    empty += rng.normal(0, 6, empty.shape)
    empty[: int(rng.integers(0, n // 6))] *= 0.15  # dark rows: their chromaticity is clamped
    frame = empty.copy()
    kind = int(rng.integers(0, 4))
    if kind:  # 0: the stand left empty
        r = int(rng.integers(n // 8, n // 3))
        cy, cx = (int(v) for v in rng.integers(n // 3, 2 * n // 3, 2))
        yy, xx = np.mgrid[0:n, 0:n]
        where = (np.abs(yy - cy) <= r) & (np.abs(xx - cx) <= r) if kind == 1 else np.hypot(yy - cy, xx - cx) <= r
        frame[where] = np.array(PIECES[int(rng.integers(0, len(PIECES)))], np.float32) * rng.uniform(0.7, 1.2)
    if rng.random() < 0.4:
        frame[:, : int(rng.integers(1, n))] *= rng.uniform(0.4, 0.9)  # a shade
    frame += rng.normal(0, rng.uniform(0.5, 4.0), frame.shape)
    return (np.clip(empty, 0, 255).astype(np.uint8), np.clip(frame, 0, 255).astype(np.uint8))


def _same_reading(a: StandReading, b: StandReading) -> bool:
    pa, pb = a.piece, b.piece
    same_piece = (pa is None and pb is None) or (pa is not None and pb is not None and np.array_equal(pa, pb))
    return same_piece and (a.state, a.owner, a.count, a.confidence, a.obstructed, a.flipped, a.reason, a.area,
                           a.alternatives) == (b.state, b.owner, b.count, b.confidence, b.obstructed, b.flipped,
                                               b.reason, b.area, b.alternatives)


@pytest.mark.parametrize("seed", range(4))
def test_each_stands_passes_and_reading_are_its_own(seed: int) -> None:
    rng = np.random.default_rng(1600 + seed)
    sc = StandClassifier(PALETTE if seed % 2 else {**PALETTE, "green": (60, 170, 60)})
    inputs: dict[str, StandInput] = {}
    kinds: dict[str, tuple[str, tuple[float, float]]] = {}
    looks: dict[str, Any] = {}
    for i in range(30):
        n, k = ((60, 2.0), (52, 2.0), (90, 3.0))[i % 3]
        empty, frame = _stand(rng, n)
        ref = chroma(empty)
        case = i % 5  # a model and the frame's blur (with and without the estimate's smoothed patch), a look,
        blur = float(MATCH_BLUR_MM[int(rng.integers(0, len(MATCH_BLUR_MM)))])  # a model matched alone, neither
        smooth = smoothed_patch(frame, k) if case == 1 else None
        inputs[f"S{i}"] = StandInput(frame, k, None if case == 4 else ref, None if case in (3, 4) else blur, smooth)
        kinds[f"S{i}"] = ("territory", (16.0, 16.0)) if i % 2 else ("movement", (14.0, 14.0))
        if case == 2:
            looks[f"S{i}"] = (ref[0], ref[1], np.zeros(ref[1].shape, bool))
    got = stand_passes(sc.owner_map, inputs)
    assert set(got) == set(inputs)
    for rid, x in inputs.items():
        p = got[rid]
        assert isinstance(p, StandPasses)
        c, s = chroma(x.patch)
        assert np.array_equal(p.cs[0], c) and np.array_equal(p.cs[1], s) and p.cs[0].dtype == c.dtype
        assert np.array_equal(p.owners, sc.owner_map(c, s)) and p.owners.dtype == np.int8
        if x.ref is None:
            assert p.change is None  # nothing to compare with: the decision's own tests decide
        else:
            mask, extra = changed_matched(x.patch, x.ref, x.px_per_mm, x.blur_mm, x.smooth)
            assert p.change is not None and np.array_equal(p.change[0], mask) and p.change[1] == extra
        kind, size = kinds[rid]
        look = looks.get(rid)
        model = None if look is not None else x.ref
        plain = sc.classify(x.patch, kind, size, x.px_per_mm, model, look, True, blur_mm=x.blur_mm, smooth=x.smooth)
        stacked = sc.classify(x.patch, kind, size, x.px_per_mm, model, look, True, blur_mm=x.blur_mm,
                              smooth=x.smooth, passes=p)
        assert _same_reading(plain, stacked), rid


def _no_stack(*args: Any) -> dict[str, Any]:
    return {}  # every stand's passes computed by its own decision, as before the stack


@pytest.mark.parametrize("with_reference", [True, False])
def test_a_reader_reads_every_region_as_without_the_stack(with_reference: bool) -> None:
    rng = np.random.default_rng(1616)
    frames = []
    for k in range(3):
        clean, _ = renderer().compose(random_scene(layout(), rng, k), seed=40 + k)
        frames.append(renderer().finish(clean, seed=40 + k, lighting=float(rng.uniform(0.8, 1.2)),
                                        noise=1.5, blur=float(rng.uniform(0.0, 1.2)), jpeg_quality=80))
    # the same table several frames running, then another: without a reference the stands learn looks
    sequence = [frames[0]] * 4 + [frames[1], frames[2], frames[2]]
    ref = reference() if with_reference else None
    reads: dict[str, list[Any]] = {}
    stacked = 0
    for name in ("stack", "plain"):
        reader = BoardReader(layout(), pose(), PALETTE, ref, accept=is_kipukas_payload)
        got = reads.setdefault(name, [])
        for frame in sequence:
            if name == "plain":
                with swapped([(vision.board, "stand_passes", _no_stack)]):
                    obs = reader.read(frame, lores=simulated_lores(frame))
            else:
                obs = reader.read(frame, lores=simulated_lores(frame))
                stacked += sum(p.change is not None for p in reader._passes.values())
            got.append((obs.stands, obs.slots, obs.under))
    assert stacked > 0  # the stacked change test was used, not only the owner map
    assert reads["stack"] == reads["plain"]
