"""A knocked camera is noticed at once and re-posed without losing what the reader learned (issue 13/14).

The pose watch's quick look (``PoseTracker.moved``, every frame) fires on knocks of about a degree and a
few millimetres, and not on hands, sensor noise or a change of light; the reader re-posed in place
(``BoardReader.repose``) keeps the empty models it learned without a photo of the empty table, so every
stand reads confidently and right on the first frame after the knock, never worse than a reader built
anew (which, since the patch network was retrained in the seventh session, reads this table from the
network alone as well). Magnitudes and seeds here are not the stress bench's (which reports 1 deg/5 mm and
3 deg/20 mm on seeds 11 and 23)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import CameraPose, default_pose
from calibration.drift import PoseTracker
from calibration.procedure import drift_px
from rules.kipukas.board_map import BoardMap
from tests.overhead_support import PALETTE, layout, random_tokens
from tracker.overhead.layout import table_artworks
from vision.board import BoardReader
from vision.observation import BoardObservation
from vision.synth import Renderer, TableScene
from vision.synth.bump import bumped_pose
from vision.synth.scene import Token

SIZE = (2028, 1520)


def _tracker(p0: CameraPose) -> PoseTracker:
    ref = Renderer(layout(), p0, PALETTE).render(TableScene({}), seed=41)
    return PoseTracker(layout(), p0, ref, table_artworks(BoardMap.packaged(), layout()))


@pytest.mark.parametrize("degrees,mm", [(0.7, 4.0), (2.5, 15.0)])
def test_the_quick_look_notices_a_knock_of_the_camera(degrees: float, mm: float) -> None:
    p0 = default_pose(layout(), image_size=SIZE)
    tracker = _tracker(p0)
    rng = np.random.default_rng([43, int(degrees * 10)])
    for k in range(2):  # two random knocks of this size, over a played table with a hand in view
        p1 = bumped_pose(p0, degrees, mm, rng)
        assert drift_px(p0, p1, layout()) > 3 * tracker.tolerance
        frame = Renderer(layout(), p1, PALETTE).render(TableScene(random_tokens(rng), {}, hands=1), seed=44 + k)
        assert tracker.moved(frame), (degrees, mm, k)


def test_the_quick_look_ignores_hands_noise_and_light() -> None:
    p0 = default_pose(layout(), image_size=SIZE)
    tracker = _tracker(p0)
    rng = np.random.default_rng(47)
    renderer = Renderer(layout(), p0, PALETTE)
    for k, hands in enumerate((1, 2, 2)):  # pieces, one or two hands over the table
        frame = renderer.render(TableScene(random_tokens(rng), {}, hands=hands), seed=48 + k)
        assert not tracker.moved(frame), hands
    clean, _ = renderer.compose(TableScene(random_tokens(rng)), seed=51)
    for how in ({"kelvin": 2900.0}, {"kelvin": 7200.0}, {"lighting": 0.45}, {"noise": 4.0},
                {"shadow": 0.5}, {"glare": 5}):
        assert not tracker.moved(renderer.finish(clean, seed=52, **how)), how  # type: ignore[arg-type]


def _confident_right(obs: BoardObservation, tokens: dict[str, Token]) -> int:
    right = 0
    for s in layout().stands:
        o, t = obs.stands[s.id], tokens.get(s.id)
        want = ("empty", None) if t is None else (t.kind, t.owner)
        assert o.obstructed or o.confidence < 0.5 or (o.state, o.owner) == want, s.id  # never a wrong reading
        right += not o.obstructed and o.confidence >= 0.8 and (o.state, o.owner) == want
    return right


def test_a_reader_re_posed_in_place_keeps_what_it_learned() -> None:
    lay = layout()
    p0 = default_pose(lay, image_size=SIZE)
    rng = np.random.default_rng(53)
    tokens = random_tokens(rng, fill=0.3)
    before, _ = Renderer(lay, p0, PALETTE).compose(TableScene(tokens), seed=54)
    reader = BoardReader(lay, p0, PALETTE)  # as `run` builds it: no photo of the empty table
    renderer0 = Renderer(lay, p0, PALETTE)
    for i in range(5):
        reader.read(renderer0.finish(before, seed=55 + i))
    learned = dict(reader.models.models)
    assert len(learned) >= 5  # the empty stands' models, learned from the frames themselves

    p1 = bumped_pose(p0, 1.5, 10.0, rng)
    after, _ = Renderer(lay, p1, PALETTE).compose(TableScene(tokens), seed=54)
    frame = Renderer(lay, p1, PALETTE).finish(after, seed=61)
    reader.repose(p1)
    assert reader.pose is p1 and reader.stand_regions == reader.base_stands
    assert {rid: reader.models.models[rid] for rid in learned} == learned  # pose-independent: kept as they are
    kept = _confident_right(reader.read(frame), tokens)
    fresh = _confident_right(BoardReader(lay, p1, PALETTE).read(frame), tokens)
    assert kept == len(lay.stands) >= fresh
