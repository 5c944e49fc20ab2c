"""What each stand and slot looks like when empty, kept up to date from the table itself.

A region's model starts as its patch in the photo of the empty table when there is one. Whenever the
region then reads confidently empty for ``STREAK`` frames in a row, its current (light-normalised) patch
is blended in, so the model follows slow changes of light and a bumped camera, and a table without a photo
learns its empty regions as the game shows them. A stand never seen empty falls back on the ``prototype``
of its kind: the colours common to the empty stands of that kind at this table.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
STREAK = 3
BLEND = 0.3
BINS = 24


def chroma_bins(c: F32) -> NDArray[np.intp]:
    """A pixel's chromaticity (b, r) as one histogram bin index."""
    b = np.clip((c[..., 0] * BINS).astype(np.intp), 0, BINS - 1)
    r = np.clip((c[..., 2] * BINS).astype(np.intp), 0, BINS - 1)
    return np.asarray(b * BINS + r, np.intp)


class EmptyModels:
    """Per-region (chromaticity, brightness) models of the empty table."""

    def __init__(self) -> None:
        self.models: dict[str, tuple[F32, F32]] = {}
        self.kinds: dict[str, str] = {}
        self.streak: dict[str, int] = {}
        self._protos: dict[str, tuple[NDArray[np.float64], float]] = {}

    def set(self, rid: str, kind: str, c: F32, s: F32) -> None:
        self.models[rid] = (c.copy(), s.copy())
        self.kinds[rid] = kind
        self._protos.pop(kind, None)

    def get(self, rid: str) -> tuple[F32, F32] | None:
        return self.models.get(rid)

    def reset(self, rid: str) -> None:
        """The region was not seen this frame: its streak of empty readings starts again."""
        self.streak[rid] = 0

    def seen_empty(self, rid: str, kind: str, c: F32, s: F32, confident: bool) -> None:
        """One frame's verdict on a region: confidently empty (refresh after a streak) or not."""
        if not confident:
            self.streak[rid] = 0
            return
        n = self.streak.get(rid, 0) + 1
        self.streak[rid] = n
        if n < STREAK:
            return
        old = self.models.get(rid)
        if old is None or old[0].shape != c.shape:
            self.set(rid, kind, c, s)
            return
        oc, os_ = old
        self.models[rid] = ((1 - BLEND) * oc + BLEND * c, (1 - BLEND) * os_ + BLEND * s)
        self._protos.pop(kind, None)

    def prototype(self, kind: str, core: NDArray[np.bool_]) -> tuple[NDArray[np.float64], float] | None:
        """(normalised chromaticity histogram, median brightness) of the empty regions of ``kind`` (inside
        ``core``), or None when none of that kind has been seen empty."""
        if kind in self._protos:
            return self._protos[kind]
        hist = np.zeros(BINS * BINS)
        levels: list[float] = []
        for rid, (c, s) in self.models.items():
            if self.kinds.get(rid) != kind or c.shape[:2] != core.shape:
                continue
            hist += np.bincount(chroma_bins(c[core]).ravel(), minlength=BINS * BINS)
            levels.append(float(np.median(s[core])))
        if not levels:
            return None
        # a little spread so that noise and JPEG around a common colour stay "common"
        h2 = hist.reshape(BINS, BINS)
        spread = h2.copy()
        for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            spread += 0.5 * np.roll(np.roll(h2, dy, 0), dx, 1)
        out = (spread.ravel() / max(float(spread.max()), 1.0), float(np.median(levels)))
        self._protos[kind] = out
        return out
