"""What lies under a covered stand, re-rendered for a cached patch set (issue 13, lies20: ``training.patch_under``)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.overhead_support import layout
from training.patch_data import scene_patches
from training.patch_under import MismatchError, under_labels
from vision.patch_classifier import STAND_CLASSES

UNKNOWN = STAND_CLASSES.index("unknown")


def test_under_is_the_label_where_nothing_covers_and_the_piece_or_empty_where_something_does() -> None:
    under: list[int] = []
    out = list(scene_patches(layout(), 9_990_003, shots=1, views=1, cache={}, dice=True, under=under))
    labels = [label for kind, _, label in out if kind == "stand"]
    assert len(under) == len(labels)
    pairs = list(zip(labels, under, strict=True))
    assert all(u == label for label, u in pairs if label != UNKNOWN)
    covered = [u for label, u in pairs if label == UNKNOWN]
    assert UNKNOWN not in under
    assert covered and len(set(covered)) >= 2, covered  # empty stands and pieces under the covers


def test_the_cached_set_is_rendered_again_and_a_changed_one_is_refused() -> None:
    lay = layout()
    name = "patches-dice-99-1-1-1.npz"  # one scene (seed 99 * 100000), one shot, one view
    cached = np.asarray([p for kind, p, _ in scene_patches(lay, 9_900_000, 1, 1, {}, dice=True) if kind == "stand"])
    under = under_labels(lay, name, cached)
    assert len(under) == len(cached)
    cached[0, 0, 0, 0] ^= 1
    with pytest.raises(MismatchError):
        under_labels(lay, name, cached)
