"""The pose watch's every-frame quick look reads the camera's low-resolution stream (issue 14 item 5).

``PoseTracker.moved(frame, lores=...)`` correlates the lores image (the same view, scaled by the camera's
ISP) instead of resizing the whole frame. It must decide as the full-frame look does: knocks of about a
degree are noticed, hands, noise and light are not; a lores of the ISP's even-size rounding (508x380
beside 2028x1520) is the same view; a lores of another view (another aspect ratio) is not used. Seeds and
knock sizes differ from ``tests/test_pose_knock.py``'s."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import CameraPose, default_pose
from calibration.drift import PoseTracker
from calibration.procedure import drift_px
from rules.kipukas.board_map import BoardMap
from tests.overhead_support import PALETTE, layout, random_tokens
from tracker.overhead.layout import table_artworks
from tracker.overhead.pose_watch import PoseWatch
from tracker.sources.capture import simulated_lores
from vision.synth import Renderer, TableScene
from vision.synth.bump import bumped_pose

SIZE = (2028, 1520)


def _isp(frame: np.ndarray) -> np.ndarray:
    """The ISP's lores stream: 508x380 (YUV420 wants even sizes), area-scaled in hardware."""
    return np.asarray(cv2.resize(frame, (508, 380), interpolation=cv2.INTER_AREA), np.uint8)


def _tracker(p0: CameraPose) -> PoseTracker:
    ref = Renderer(layout(), p0, PALETTE).render(TableScene({}), seed=71)
    return PoseTracker(layout(), p0, ref, table_artworks(BoardMap.packaged(), layout()))


def test_the_quick_look_on_the_lores_stream_notices_knocks_and_ignores_play() -> None:
    p0 = default_pose(layout(), image_size=SIZE)
    tracker = _tracker(p0)
    rng = np.random.default_rng(72)
    for k, (degrees, mm) in enumerate(((0.8, 5.0), (2.0, 12.0))):
        p1 = bumped_pose(p0, degrees, mm, rng)
        assert drift_px(p0, p1, layout()) > 3 * tracker.tolerance
        frame = Renderer(layout(), p1, PALETTE).render(TableScene(random_tokens(rng), {}, hands=1), seed=73 + k)
        for lores in (simulated_lores(frame), _isp(frame)):
            assert tracker.moved(frame, lores=lores), (degrees, mm, lores.shape)
    renderer = Renderer(layout(), p0, PALETTE)
    clean, _ = renderer.compose(TableScene(random_tokens(rng), {}, hands=2), seed=75)
    for how in ({}, {"kelvin": 3000.0}, {"lighting": 0.5}, {"noise": 4.0}, {"shadow": 0.5}):
        frame = renderer.finish(clean, seed=76, **how)  # type: ignore[arg-type]
        for lores in (simulated_lores(frame), _isp(frame)):
            assert not tracker.moved(frame, lores=lores), (how, lores.shape)


def test_a_lores_of_another_view_is_not_used() -> None:
    p0 = default_pose(layout(), image_size=SIZE)
    tracker = _tracker(p0)
    rng = np.random.default_rng(77)
    p1 = bumped_pose(p0, 2.0, 12.0, rng)
    knocked = Renderer(layout(), p1, PALETTE).render(TableScene({}, {}, hands=1), seed=78)
    still = Renderer(layout(), p0, PALETTE).render(TableScene({}, {}, hands=1), seed=79)
    # 16:9 copies, not this 4:3 view: ignored both ways, the frame itself is looked at
    assert tracker.moved(knocked, lores=np.asarray(cv2.resize(still, (640, 360)), np.uint8))
    assert not tracker.moved(still, lores=np.asarray(cv2.resize(knocked, (640, 360)), np.uint8))


def test_the_watch_passes_the_lores_to_its_quick_look() -> None:
    lay = layout()
    p0 = default_pose(lay, image_size=SIZE)
    warnings: list[str] = []
    watch = PoseWatch(lay, p0, table_artworks(BoardMap.packaged(), lay), warnings.append)
    ref = Renderer(lay, p0, PALETTE).render(TableScene({}), seed=81)
    watch.reset(p0, ref)
    watch.next_check = 10.0
    rng = np.random.default_rng(82)
    still = Renderer(lay, p0, PALETTE).render(TableScene(random_tokens(rng), {}, hands=1), seed=83)
    # a lores showing the knocked view beside an unmoved frame: the look that fires is the lores one
    knocked = Renderer(lay, bumped_pose(p0, 2.0, 12.0, rng), PALETTE).render(TableScene({}), seed=84)
    assert watch.tracker is not None
    assert not watch.tracker.moved(still, lores=simulated_lores(still))
    assert watch.tracker.moved(still, lores=simulated_lores(knocked))
    assert watch.process(still, now=1.0, lores=simulated_lores(still)).readable
    assert watch.next_check == 10.0  # no full check: the quick look saw nothing
    watch.process(still, now=2.0, lores=simulated_lores(knocked))
    assert watch.next_check == 2.0 + watch.interval_s  # the quick look fired a full check at once
