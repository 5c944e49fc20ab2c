"""A phone lying beside a stand: the obstruction blob (change from the empty-table photo) runs on over the
stand's own piece, which differs from the empty table too. That part of the blob is the piece, explained by
the stand's reading (``vision.obstruction.ObstructionFinder.beyond_piece``); the stands the phone covers stay
flagged. The table is the stress bench's seed-7 table 7 with the phone (its tuning seed), where the soul on
M9 was flagged "covered" though nothing of the phone covers it."""

from __future__ import annotations

import numpy as np

from calibration.camera import default_pose
from tests.overhead_support import PALETTE, layout
from tests.test_overhead_never_lies import stress_bench
from vision.synth import Renderer, TableScene

SEED, TABLE = 7, 7


def test_a_stand_beside_the_phone_is_read_and_the_covered_ones_stay_flagged() -> None:
    bench = stress_bench()
    cond = next(c for c in bench.CONDITIONS if c.name == "phone on map")
    lay = layout()
    base = default_pose(lay, image_size=(2028, 1520))
    setup = Renderer(lay, base, PALETTE)
    reference = setup.render(TableScene({}), seed=SEED * 1000 + 999)
    tag = SEED * 1000 + TABLE
    rng = np.random.default_rng([SEED, TABLE, len(cond.name)])  # as the bench draws this table
    scene = bench.random_scene(lay, rng, PALETTE, tag)
    clean, _ = setup.compose(scene, seed=tag)
    warm = [setup.finish(clean, seed=tag * 10 + i, lighting=float(rng.uniform(0.9, 1.1))) for i in range(3)]
    staged = TableScene(scene.tokens, scene.slots, 0, cond.clutter(lay, rng))
    composed, truth = setup.compose(staged, seed=tag)
    reader = bench.make_reader(lay, base, PALETTE, reference, False)
    for f in warm:
        reader.read(f)
    obs = reader.read(setup.finish(composed, seed=tag * 10 + 5))

    beside = obs.stands["M9"]
    tok = scene.tokens["M9"]
    assert truth.occluded.get("M9", 0.0) == 0.0
    assert not beside.obstructed, beside.reason
    assert (beside.state, beside.owner) == (tok.kind, tok.owner)
    covered = [sid for sid, occ in truth.occluded.items() if sid in obs.stands and occ >= bench.COVERED]
    assert len(covered) >= 3
    for sid in covered:
        assert obs.stands[sid].obstructed and obs.stands[sid].confidence == 0.0, sid
    for sid, o in obs.stands.items():  # whatever is read, under the phone's edge or not, is right
        t = scene.tokens.get(sid)
        if not o.obstructed:
            assert (o.state, o.owner) == (("empty", None) if t is None else (t.kind, t.owner)), sid
