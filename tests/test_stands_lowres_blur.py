"""Stands at half resolution under blur: a piece's blurred halo is the piece's, not an unknown object.

At 1014x760 a frame blurred by 2 px is 2 mm of blur on the table; against a sharp photo of the empty table
the map's texture and every piece's soft halo differed in colour, so on the bench's tuning seed 58 % of the
stands with a photo came back "unexplained object" and capitals measured as base camps were vetoed. The
change test now compares with the model blurred as much as the frame (``vision.stands.changed_matched``),
a piece's edge reaches as far as that blur, and a top whose looser colour measure allows a larger piece is
left unsure for the patch classifier. Nothing may be read wrong. Seeds here are not the bench's (7 tuning,
11 reporting).
"""

from __future__ import annotations

import cv2
import numpy as np

from tests.overhead_support import half_resolution_table, stand_tally
from vision.stands import changed_matched


def _read(seed: int, photo: bool) -> tuple[int, int, int]:
    """(right, wrong, pieces) over the stands of one seeded table: warm-up frames, then one blurred frame."""
    reader, r, clean, tokens = half_resolution_table(seed, photo)
    obs = reader.read(r.finish(clean, seed=seed * 10 + 5, blur=2.0))
    right, wrong = stand_tally(obs.stands, tokens)
    return right, wrong, len(obs.stands)


def test_blurred_half_resolution_stands_are_read_with_a_photo_and_none_wrong() -> None:
    right, wrong, n = _read(31, photo=True)
    assert wrong == 0
    assert right >= 0.9 * n, f"{right} of {n} stands read (main before the fix: about 40 %)"


def test_blurred_half_resolution_stands_are_read_without_a_photo_and_none_wrong() -> None:
    right, wrong, n = _read(32, photo=False)
    assert wrong == 0
    assert right >= 0.9 * n, f"{right} of {n} stands read"


def test_the_model_is_matched_to_a_blurrier_frame_and_a_sharp_one_is_not_blurred() -> None:
    rng = np.random.default_rng(5)
    sharp = rng.integers(40, 220, (90, 90, 3)).astype(np.uint8)
    sharp = np.kron(sharp[::6, ::6], np.ones((6, 6, 1))).astype(np.uint8)  # 2 mm texture at 3 px/mm
    f = sharp.astype(np.float32)
    s = f.sum(axis=2)
    model = (f / np.maximum(s, 1.0)[:, :, None], s)
    assert changed_matched(sharp, model, 3.0)[1] == 0.0
    blurred = np.asarray(cv2.GaussianBlur(sharp, (0, 0), 6.0), np.uint8)  # 2 mm of blur
    mask, blur_mm = changed_matched(blurred, model, 3.0)
    assert blur_mm >= 1.4
    assert mask.mean() < 0.05  # blur is not change once matched
