"""One rectification a stand and frame (issue 14, speed14): the stand decision's patch is the patch
classifier's cut shrunk, never a second ``remap`` of the frame, and the classifier's inputs stay the very
pixels its own rectification gives (another engineer trains the network on them)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

import vision.patch_classifier
import vision.warp
from bench.bench_overhead import random_scene
from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from rules.kipukas.identity import is_kipukas_payload
from tests.overhead_support import PALETTE
from tracker.overhead.layout import table_layout
from tracker.sources.capture import simulated_lores
from vision.board import BoardReader
from vision.patch_classifier import patch_input
from vision.regions import STAND_PX_PER_MM, STAND_READ_PX_PER_MM, cut, moved, stand_regions
from vision.synth import Renderer, TableScene
from vision.warp import extract, one_frame, translate


@pytest.fixture(scope="module")
def table() -> tuple[Any, Any, np.ndarray, np.ndarray]:
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    ref = renderer.render(TableScene({}), seed=999)
    rng = np.random.default_rng(71)
    clean, _ = renderer.compose(random_scene(layout, rng, 0), seed=3)
    frame = renderer.finish(clean, seed=3, lighting=0.9, noise=1.5, blur=0.6, jpeg_quality=80)
    return layout, pose, ref, frame


def test_the_decisions_patch_is_the_classifiers_shrunk(table: tuple[Any, Any, np.ndarray, np.ndarray]) -> None:
    layout, pose, _, frame = table
    fine = stand_regions(layout, pose)
    coarse = stand_regions(layout, pose, STAND_READ_PX_PER_MM)
    for rid, reg in coarse.items():
        assert reg.source is not None and reg.source.px_per_mm == STAND_PX_PER_MM
        # the very homography the classifier cuts through: ``one_frame`` warps it once for both
        assert reg.source.H.tobytes() == fine[rid].H.tobytes() and reg.source.size == fine[rid].size
        got = cut(frame, reg)
        assert got.shape == (reg.size[1], reg.size[0], 3) and got.dtype == np.uint8
        want = cv2.resize(extract(frame, fine[rid].H, fine[rid].size), reg.size, interpolation=cv2.INTER_LINEAR)
        assert np.array_equal(got, want)
    assert all(r.source is None for r in fine.values())
    # a camera followed: the source moves with the region, still the classifier's moved cut
    shift = translate(3.5, -2.0)
    for rid, reg in coarse.items():
        m = moved(reg, shift)
        assert m.source is not None and m.source.H.tobytes() == moved(fine[rid], shift).H.tobytes()


def test_a_read_rectifies_each_stand_once(table: tuple[Any, Any, np.ndarray, np.ndarray],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    layout, pose, ref, frame = table
    reader = BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload)
    sizes: list[tuple[int, ...]] = []
    real = cv2.remap

    def counted(src: np.ndarray, *a: Any, **k: Any) -> Any:
        out = real(src, *a, **k)
        sizes.append(out.shape[:2])
        return out

    monkeypatch.setattr(vision.warp.cv2, "remap", counted)
    reader.read(frame, lores=simulated_lores(frame))
    decision = {(r.size[1], r.size[0]) for r in reader.stand_regions.values()}
    inputs = [(r.size[1], r.size[0]) for r in reader.input_regions.values()]
    assert not decision & set(sizes), "a stand was rectified at the decision's resolution too"
    assert sum(s in set(inputs) for s in sizes) == len(inputs)  # each classifier cut once, every stand read


def test_the_classifiers_inputs_are_its_own_rectification(table: tuple[Any, Any, np.ndarray, np.ndarray],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The inputs a read hands the network equal ``patch_input`` on a private copy of the frame, outside any
    shared frame and with no kept sampling map (``warpPerspective``): the decision's cut neither alters nor
    replaces them, and cutting the decision's patch first inside a shared frame changes nothing either."""
    layout, pose, ref, frame = table
    reader = BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload)
    assert reader.opinion is not None and reader.opinion.patches is not None
    seen: list[tuple[Any, np.ndarray, np.ndarray]] = []

    def kept(img: np.ndarray, reg: Any, gains: np.ndarray, H: Any = None) -> np.ndarray:
        out = patch_input(img, reg, gains, H)
        seen.append((reg, np.array(gains, copy=True), out.copy()))
        return out

    monkeypatch.setattr(vision.patch_classifier, "patch_input", kept)
    reader.read(frame, lores=simulated_lores(frame))
    assert len(seen) == len(reader.input_regions) > 0
    copy = frame.copy()
    vision.warp._MAPS.maps.clear()
    vision.warp._MAPS.seen.clear()
    for reg, gains, got in seen:
        assert np.array_equal(patch_input(copy, reg, gains), got)
    with one_frame(copy):
        for reg, gains, got in seen:
            cut(copy, reader.stand_regions[reg.id])
            assert np.array_equal(patch_input(copy, reg, gains), got)
