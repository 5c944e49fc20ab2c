"""The frame's blur estimate scores every level of the ladder in one pass (``vision.stands.ladder_scores``,
issue 14): each level's score must be the very value ``match_score`` gives against the model smoothed at
that level, so the estimate, and every stand decision that follows it, cannot move."""

from __future__ import annotations

import numpy as np
import pytest

from vision.colour import chroma
from vision.stands import (
    MATCH_BLUR_MM,
    ladder_scores,
    match_score,
    match_step,
    prepare_model,
    smoothed_model,
    smoothed_patch,
)


@pytest.mark.parametrize(("seed", "n", "k"), [(0, 60, 2.0), (1, 52, 2.0), (2, 45, 1.5), (3, 91, 3.0), (4, 33, 1.0)])
def test_ladder_scores_are_each_levels_match_score(seed: int, n: int, k: float) -> None:
    rng = np.random.default_rng(300 + seed)
    empty = rng.integers(0, 256, (n, n, 3)).astype(np.uint8)
    empty[: n // 5] = 0  # black rows: their chromaticity is clamped
    model = chroma(empty)
    frame = empty.copy()
    frame[n // 3: n // 2, n // 4: n // 2] = (40, 40, 210)  # a piece on the stand
    frame = np.clip(frame.astype(np.int16) + rng.integers(-9, 10, frame.shape), 0, 255).astype(np.uint8)
    c, _ = smoothed_patch(frame, k)
    want = [match_score(c, smoothed_model(model, round(level * k, 1), k)[0], match_step(k)) for level in MATCH_BLUR_MM]
    got = ladder_scores(c, model, k)
    assert got.dtype == np.float64 and got.shape == (len(MATCH_BLUR_MM),)
    assert [float(v) for v in got] == want
    prepare_model(model, k)  # kept at calibration: the same values from the kept stack
    assert [float(v) for v in ladder_scores(c, model, k)] == want
