"""Which regions look different since they were last read: a difference on the small frame per region.

Each stand and slot has a box on the quarter-resolution, light-normalised frame. When a region is read,
its box's pixels are kept; on a later frame the region counts as changed when the mean absolute
difference of its box, compared at equal mean brightness (a lamp's gradient or a passing shadow may shift
a region's shading), exceeds ``UNCHANGED_LEVELS``. A piece of any size, a card, a hand, a crumb or glare
all change it; sensor noise averaged 16x does not.

The boxes are fixed at calibration time, the kept crops are float32 already, and every sum is one OpenCV
call, so the test of all 32 regions costs well under a millisecond.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

Box = tuple[int, int, int, int]
UNCHANGED_LEVELS = 3.0  # mean |difference| (0..255) of a region's quarter-resolution crop that is no change


class RegionChanges:
    """Kept crops of every region's small box, and the per-frame test of which ones changed."""

    def __init__(self, boxes: dict[str, Box]) -> None:
        """``boxes``: each region's (x0, y0, x1, y1) on the small frame."""
        self.boxes = dict(boxes)
        self.before: dict[str, tuple[NDArray[np.float32], float]] = {}

    def forget(self) -> None:
        """Nothing kept: every region counts as changed until it is read again (the camera moved)."""
        self.before.clear()

    def keep(self, small: NDArray[np.uint8], rid: str) -> None:
        """Keep ``rid``'s box of ``small`` as the look it was read from."""
        x0, y0, x1, y1 = self.boxes[rid]
        crop = small[y0:y1, x0:x1].astype(np.float32)
        self.before[rid] = (crop, float(crop.mean()) if crop.size else 0.0)

    def changed(self, small: NDArray[np.uint8], always: set[str]) -> set[str]:
        """Regions whose box differs from the kept one, those never kept, and those in ``always``."""
        out: set[str] = set()
        for rid, (x0, y0, x1, y1) in self.boxes.items():
            kept = self.before.get(rid)
            if kept is None or rid in always:
                out.add(rid)
                continue
            if difference(kept, small[y0:y1, x0:x1]) > UNCHANGED_LEVELS:
                out.add(rid)
        return out


def difference(kept: tuple[NDArray[np.float32], float], crop: NDArray[np.uint8]) -> float:
    """The change test's score of ``crop`` against a kept crop and its mean: the mean absolute difference
    (0..255) at equal mean brightness; 0 for an empty box. ``bench/bench_change.py`` measures it."""
    before, before_mean = kept
    n = before.size
    if not n:
        return 0.0
    now = crop.astype(np.float32)
    now_mean = sum(cv2.sumElems(now)[:3]) / n
    now *= np.float32(before_mean / max(now_mean, 1.0))
    return float(sum(cv2.sumElems(cv2.absdiff(now, before))[:3]) / n)


STILL_LEVELS = 6.0  # mean |difference| (0..255) of a 16x16 block of grey that is still sensor noise
STILL_BLOCK = 16
RECHECK_FRAMES = 15  # a still scene is read again this often anyway (about a second at 15 fps)


class StillFrames:
    """Whether a whole frame shows what the last frame read showed: every 16x16 block of its grey copy
    within ``STILL_LEVELS`` of the kept one at equal mean brightness (an exposure change is no change).

    For a camera whose reading depends only on what it sees (the front camera's card reader): a still
    frame's reading is the last one again, so only frames where something moved are decoded. A still
    scene is nevertheless read again every ``RECHECK_FRAMES`` frames, so a card held very still that did
    not decode gets new sensor noise to try with."""

    def __init__(self, recheck: int = RECHECK_FRAMES) -> None:
        self.recheck = recheck
        self._kept: NDArray[np.float32] | None = None
        self._skipped = 0
        self.last_read = False  # whether the last frame asked about is to be read (not still)
        self._before: tuple[NDArray[np.float32] | None, int] = (None, 0)

    def unread(self) -> None:
        """The frame just found not still was not read after all (the reader had no time for it): the frame
        read before it stays the one later frames are compared with, so the next frame that differs from
        what was last read is read."""
        self._kept, self._skipped = self._before
        self.last_read = False

    def still(self, frame: NDArray[np.uint8], lores: NDArray[np.uint8] | None = None) -> bool:
        """True when ``frame`` need not be read (it looks like the last frame read); False keeps it as the
        new frame read. ``lores``: the camera's low-resolution stream of ``frame``, looked at instead (its
        blocks cover the same part of the view), so the full frame is not touched."""
        h, w = frame.shape[:2]
        size = (max(w // STILL_BLOCK, 1), max(h // STILL_BLOCK, 1))
        seen = frame if lores is None else lores
        grey = cv2.cvtColor(seen, cv2.COLOR_BGR2GRAY) if seen.ndim == 3 else seen
        small = np.asarray(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), np.float32)
        kept = self._kept
        if kept is not None and kept.shape == small.shape and self._skipped + 1 < self.recheck:
            scale = np.float32(float(kept.mean()) / max(float(small.mean()), 1.0))
            if float(cv2.absdiff(small * scale, kept).max()) <= STILL_LEVELS:
                self._skipped += 1
                self.last_read = False
                return True
        self._before = (self._kept, self._skipped)
        self._kept = small
        self._skipped = 0
        self.last_read = True
        return False
