"""The stand decision is resolution-independent: its sizes are in mm (``vision.stands``), so the same stand
decided at 2 px/mm (the reader's ``STAND_READ_PX_PER_MM``, about the frame's own resolution) and at 3 px/mm
(the patch classifier's, where the decision used to run) gives the same reading, and the same table seen
at 2028x1520 and at 1014x760 is read alike. Seeds are neither the stress bench's (7, 11) nor the other
stand tests'."""

from __future__ import annotations

import numpy as np

from calibration.camera import default_pose
from tests.overhead_support import PALETTE, layout, pose, random_tokens, reference, renderer, stand_tally
from vision.board import BoardReader
from vision.colour import chroma
from vision.regions import STAND_READ_PX_PER_MM, stand_regions
from vision.stand_shapes import kernel, px_area
from vision.stands import StandClassifier
from vision.synth import Renderer, TableScene
from vision.warp import extract


def test_sizes_in_mm_are_the_old_pixel_sizes_at_3_px_per_mm_and_scale_with_the_resolution() -> None:
    assert kernel(1.0 / 3.0, 3.0).shape == (3, 3) and kernel(2.0 / 3.0, 3.0).shape == (5, 5)
    assert kernel(1.0, 3.0).shape == (7, 7) and kernel(1.0, 2.0).shape == (5, 5)
    assert px_area(20.0 / 9.0, 3.0) == 20 and px_area(20.0 / 9.0, 2.0) == 9
    assert kernel(0.1, 1.0).shape == (3, 3)  # never less than one pixel each side


def test_each_stand_is_decided_alike_at_2_and_3_px_per_mm() -> None:
    rng = np.random.default_rng(41)
    tokens = random_tokens(rng)
    frame = renderer().render(TableScene(tokens), seed=41, blur=0.6, noise=1.5)
    cl = StandClassifier(PALETTE)
    read: dict[float, dict[str, tuple[str, str | None, bool]]] = {}
    for k in (STAND_READ_PX_PER_MM, 3.0):
        read[k] = {}
        for sid, reg in stand_regions(layout(), pose(), k).items():
            spec = layout().stand(sid)
            model = chroma(extract(reference(), reg.H, reg.size))
            r = cl.classify(extract(frame, reg.H, reg.size), spec.kind, spec.size_mm, k, model, strict=True)
            read[k][sid] = (r.state, r.owner, r.flipped) if r.confidence >= 0.5 and not r.obstructed else ("?", None,
                                                                                                             False)
    assert STAND_READ_PX_PER_MM < 3.0
    differ = {sid: (a, read[3.0][sid]) for sid, a in read[STAND_READ_PX_PER_MM].items() if a != read[3.0][sid]}
    assert not differ, differ
    for sid, (state, owner, flipped) in read[STAND_READ_PX_PER_MM].items():
        tok = tokens.get(sid)
        want = ("empty", None, False) if tok is None else (tok.kind, tok.owner, tok.flipped)
        assert (state, owner, flipped) == want, sid


def test_the_same_table_is_read_alike_at_2028x1520_and_1014x760() -> None:
    tokens = random_tokens(np.random.default_rng(43), fill=0.6)
    readings = []
    for size in ((2028, 1520), (1014, 760)):
        p = default_pose(layout(), image_size=size)
        r = Renderer(layout(), p, PALETTE)
        clean, _ = r.compose(TableScene(tokens), seed=43)
        reader = BoardReader(layout(), p, PALETTE, r.render(TableScene({}), seed=543))
        for i in range(3):
            obs = reader.read(r.finish(clean, seed=430 + i))
        right, wrong = stand_tally(obs.stands, tokens)
        assert wrong == 0 and right >= 0.9 * len(obs.stands), (size, right, wrong)
        readings.append({sid: (o.state, o.owner, o.flipped) for sid, o in obs.stands.items()
                         if not o.obstructed and o.confidence >= 0.5})
    both = set(readings[0]) & set(readings[1])
    assert len(both) >= 0.9 * len(layout().stands)
    assert {sid: readings[0][sid] for sid in both} == {sid: readings[1][sid] for sid in both}
