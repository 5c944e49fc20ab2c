"""The obstruction finder's blobs (speed10, issue 14) are the ones it found before: labelled without
OpenCV's per-blob statistics, and not labelled at all when too few changed pixels lie outside the allowed
places for any blob to count, it keeps the same blobs with the same boxes as the labelling with statistics
it replaced (kept here as the reference), on seeded masks with hands, specks, cards' ends and noise."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.overhead_support import PALETTE, layout, pose, reference
from vision.board import BoardReader
from vision.obstruction import MIN_OUTSIDE_PX, SCALE, ObstructionFinder


def blobs_before(f: ObstructionFinder, changed: np.ndarray,
                 margin: bool) -> tuple[np.ndarray, tuple[tuple[int, ...], ...]]:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
    out = np.zeros_like(changed)
    boxes = []
    if n > 1:
        free = (changed > 0) & (f.allowed == 0)
        keep = np.bincount(labels[free].ravel(), minlength=n) >= MIN_OUTSIDE_PX
        if f.beyond is not None:
            beyond = np.bincount(labels[(changed > 0) & (f.beyond > 0)].ravel(), minlength=n)
            over = np.bincount(labels[(changed > 0) & (f.regions_core > 0)].ravel(), minlength=n)
            keep |= (beyond >= MIN_OUTSIDE_PX) & (over > 0.15 * stats[:, cv2.CC_STAT_AREA])
        keep[0] = False
        out[keep[labels]] = 1
        for i in np.nonzero(keep)[0]:
            x, y, w, h = stats[i, :4]
            boxes.append((int(x * SCALE), int(y * SCALE), int((x + w) * SCALE), int((y + h) * SCALE)))
    if boxes and margin:
        out = np.asarray(cv2.dilate(out, np.ones((7, 7), np.uint8)), dtype=np.uint8)
    return out, tuple(boxes)


def finder() -> ObstructionFinder:
    reader = BoardReader(layout(), pose(), PALETTE, reference())
    f = reader.finder
    assert f is not None and f.beyond is not None
    return f


@pytest.mark.parametrize("seed", range(8))
def test_the_same_blobs_and_boxes(seed: int) -> None:
    f = finder()
    rng = np.random.default_rng(900 + seed)
    h, w = f.allowed.shape
    changed = np.zeros((h, w), np.uint8)
    changed[rng.random((h, w)) < 0.0002 * (seed + 1)] = 1  # sensor-noise specks, anywhere
    inside = np.argwhere(f.allowed > 0)
    for _ in range(int(rng.integers(5, 30))):  # pieces and cards in their places
        y, x = inside[rng.integers(len(inside))]
        changed[max(y - 4, 0):y + 4, max(x - 4, 0):x + 4] = 1
    if seed % 2:  # an arm from the frame's edge onto the table
        y = int(rng.integers(40, h - 40))
        cv2.line(changed, (0, y), (int(rng.integers(w // 4, w // 2)), int(rng.integers(0, h))), 1, 9)
    if seed % 4 == 2:  # a card's end beyond the mat, and something over a slot reaching beyond it
        far = np.argwhere(f.beyond > 0)
        y, x = far[rng.integers(len(far))]
        changed[max(y - 5, 0):y + 5, max(x - 5, 0):x + 5] = 1
        core = np.argwhere(f.regions_core > 0)
        y2, x2 = core[rng.integers(len(core))]
        cv2.line(changed, (int(x), int(y)), (int(x2), int(y2)), 1, 5)
    for margin in (True, False):
        want_out, want_boxes = blobs_before(f, changed, margin)
        got_out, got_boxes = f._blobs(changed, margin)
        assert got_boxes == want_boxes
        assert np.array_equal(got_out, want_out)
    if seed % 2:
        assert want_boxes, "the arm is found"


def test_a_frame_of_pieces_in_their_places_is_not_labelled_and_finds_nothing() -> None:
    f = finder()
    changed = np.asarray(f.regions_core > 0, np.uint8).copy()  # every stand and slot changed, nothing beyond
    changed[5, 5:5 + MIN_OUTSIDE_PX - 1] = 1  # fewer outside pixels than any blob needs
    assert f.allowed[5, 5:5 + MIN_OUTSIDE_PX].max() == 0
    assert blobs_before(f, changed, True)[1] == () == f._blobs(changed, True)[1]
    changed[5, 5 + MIN_OUTSIDE_PX - 1] = 1  # one more: that speck is now an object
    assert f._blobs(changed, True)[1] == blobs_before(f, changed, True)[1] != ()


@pytest.mark.parametrize("seed", range(4))
def test_labels_alone_are_the_labels_with_statistics(seed: int) -> None:
    """What ``vision.slots.card_shaped`` and the finder rely on: the same labels, and areas by counting."""
    rng = np.random.default_rng(950 + seed)
    m = (rng.random((155, 155)) < 0.02 * (seed + 1)).astype(np.uint8)
    m[30:130, 40:110] = 1
    n, labels = cv2.connectedComponents(m, connectivity=8)
    n2, labels2, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    assert n == n2 > 2
    assert np.array_equal(labels, labels2)
    assert np.array_equal(np.bincount(labels.ravel(), minlength=n), stats[:, cv2.CC_STAT_AREA])
