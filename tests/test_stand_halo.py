"""A piece's JPEG halo in a sharp frame is the piece's own edge, not an object (issue 13, branch lies10).

At 2 px/mm (``vision.regions.STAND_READ_PX_PER_MM``) JPEG quality 25 shrinks a soul token's measured top by
~8 mm^2 and bleeds its colour just past the zone the piece explains, into a free core that at 3 px/mm was
too small to test: the rule called it "unexplained object" though the frame is sharp and nothing is there.
A change that is one blob, all of it within ``HALO_MM`` of the piece's zone and on no more of the core's rim
than an uncovered piece's edge, is now unsure (``HALO_UNSURE``), for the patch classifier to confirm; the
rule alone never makes it confident. Seed 20 is neither a bench tuning (7) nor reporting seed (11, 67, 131):
of test seeds 20-31 it is the one where the halo rule fires most (twice; before it 70 of 72 readings, none
wrong). Objects beside a piece stay flagged: ``test_phone_beside_stand.py``, ``test_overhead_never_lies.py``.
"""

from __future__ import annotations

import numpy as np

from tests.overhead_support import PALETTE, layout, pose, random_tokens, renderer, stand_tally
from vision import stands
from vision.board import BoardReader
from vision.synth import TableScene

SEED = 20


def test_jpeg_q25_halo_leaves_a_soul_read_not_unknown_and_none_wrong() -> None:
    r = renderer()
    tokens = random_tokens(np.random.default_rng(SEED), fill=0.8)
    clean, _ = r.compose(TableScene(tokens), seed=SEED)
    reader = BoardReader(layout(), pose(), PALETTE, r.render(TableScene({}), seed=SEED + 500))
    for i in range(3):
        reader.read(r.finish(clean, seed=SEED * 10 + i))
    right = wrong = n = 0
    reasons: list[str | None] = []
    for i in range(4):
        obs = reader.read(r.finish(clean, seed=SEED * 10 + 5 + i, jpeg_quality=25))
        ok, bad = stand_tally(obs.stands, tokens)
        right, wrong, n = right + ok, wrong + bad, n + len(obs.stands)
        reasons += [o.reason for o in obs.stands.values() if o.obstructed]
    assert wrong == 0
    assert right == n, f"{right} of {n} stand readings (before the halo rule: 70 of 72); flagged: {reasons}"


def test_a_halo_is_one_blob_near_the_piece_and_an_object_from_outside_is_not() -> None:
    k, n = 2.0, 60
    yy, xx = np.mgrid[0:n, 0:n] - n / 2.0
    core = np.hypot(xx, yy) <= 20.0
    explained = (np.hypot(xx, yy) <= 12.0).astype(np.uint8)
    ring = (np.hypot(xx, yy) > 12.0) & (np.hypot(xx, yy) <= 14.0) & (xx > 0)
    assert stands._halo(ring, explained, core, k)
    far = ring | ((np.hypot(xx, yy) > 17.0) & core & (yy > 0) & (xx < 0))  # a second blob reaching the rim
    assert not stands._halo(far, explained, core, k)
    wide = (np.hypot(xx, yy) > 12.0) & core & (xx > 0)  # one blob from the piece out to the rim: an object
    assert not stands._halo(wide, explained, core, k)
    assert not stands._halo(ring, np.zeros_like(explained), core, k)  # no piece: nothing explains a halo
