"""A top larger than any piece's is no piece (issue 13, lies16): a die in the owner's colour on a stand.

Each player's dice are their colour (issue 21), so a die on a stand is no object to the obstruction finder and
its top, a square like a capital's, was read as that player's capital (the lead's probe: confidence 1.0). A
die of 18-20 mm shows a top larger than a capital's 16 mm square and its side wall can ever measure
(``vision.stands.LARGEST_TOP_MM2``): the stand is unknown. A 16 mm capital drawn the same way is still read.
"""

from __future__ import annotations

import cv2
import numpy as np

from tests.overhead_support import PALETTE, layout
from vision.colour import chroma
from vision.regions import STAND_PATCH_MM, STAND_READ_PX_PER_MM
from vision.stands import StandClassifier

K = STAND_READ_PX_PER_MM


def _stand(top_mm: float, angle: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(empty stand, the same with a flat square top of ``top_mm`` in red): a grey-green textured stand."""
    rng = np.random.default_rng(seed)
    n = round(STAND_PATCH_MM["territory"] * K)
    empty = np.clip(rng.normal((70, 140, 80), 6, (n, n, 3)), 0, 255).astype(np.uint8)
    box = cv2.boxPoints(((n / 2, n / 2), (top_mm * K, top_mm * K), angle))
    full = empty.copy()
    cv2.fillConvexPoly(full, np.round(box).astype(np.int32), PALETTE["red"], cv2.LINE_AA)
    return empty, full


def _read(top_mm: float, angle: float, seed: int) -> tuple[str, bool, float]:
    empty, full = _stand(top_mm, angle, seed)
    spec = next(s for s in layout().stands if s.kind == "territory")
    r = StandClassifier(PALETTE).classify(full, "territory", spec.size_mm, K, chroma(empty), strict=True)
    return r.state, r.obstructed, r.area


def test_a_top_larger_than_any_piece_is_unknown_and_a_capital_is_read() -> None:
    for seed, angle in enumerate((0.0, 17.0, 33.0)):
        for side in (18.5, 19.5):
            state, obstructed, area = _read(side, angle, seed)
            assert obstructed and state == "unknown", f"{side} mm at {angle} deg: {state} ({area:.0f} mm^2)"
        state, obstructed, area = _read(16.0, angle, seed)
        assert not obstructed and state == "capital", f"16 mm at {angle} deg: {state} ({area:.0f} mm^2)"
