"""What each stand and slot looks like when empty, kept up to date from the table itself.

A region's model starts as its patch in the photo of the empty table when there is one. Whenever the
region then reads confidently empty for ``STREAK`` frames in a row, its current (light-normalised) patch
is blended in, so the model follows slow changes of light and a bumped camera, and a table without a photo
learns its empty regions as the game shows them. A stand never seen empty falls back on its *look*: the
patch of its last confident reading (any piece), with the piece's place marked; only changes outside that
place need explaining.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
STREAK = 3
BLEND = 0.3

class EmptyModels:
    """Per-region (chromaticity, brightness) models of the empty table."""

    def __init__(self) -> None:
        self.models: dict[str, tuple[F32, F32]] = {}
        self.kinds: dict[str, str] = {}
        self.streak: dict[str, int] = {}
        self.looks: dict[str, tuple[F32, F32, NDArray[np.bool_]]] = {}
        self.look_streak: dict[str, tuple[object, int]] = {}
        # the frame each model and look was last taken from (0: given, the empty-table photo or an
        # adaptation): models taken from one frame share its sharpness (``vision.frame_blur``)
        self.frame = 0
        self.taken: dict[str, int] = {}
        self.look_taken: dict[str, int] = {}

    def set(self, rid: str, kind: str, c: F32, s: F32) -> None:
        self.models[rid] = (c.copy(), s.copy())
        self.kinds[rid] = kind
        self.taken[rid] = self.frame

    def next_frame(self) -> None:
        """A new frame is being read: what is learned from now on was taken from it."""
        self.frame += 1

    def group(self, rid: str) -> tuple[str, int] | None:
        """Which group of models ``rid``'s belongs to for the frame's blur estimate (``vision.frame_blur``):
        ("model" or "look", the frame it was taken from), or None with neither a model nor a look."""
        if rid in self.models:
            return "model", self.taken.get(rid, 0)
        return ("look", self.look_taken.get(rid, 0)) if rid in self.looks else None

    def get(self, rid: str) -> tuple[F32, F32] | None:
        return self.models.get(rid)

    def forget(self, rid: str) -> None:
        """Drop everything learned about a region (its patch no longer has the model's size)."""
        for learned in (self.models, self.kinds, self.streak, self.looks, self.look_streak, self.taken,
                        self.look_taken):
            learned.pop(rid, None)

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
        self.taken[rid] = self.frame

    def look(self, rid: str) -> tuple[F32, F32, NDArray[np.bool_]] | None:
        return self.looks.get(rid)

    def seen_reading(self, rid: str, key: object, c: F32, s: F32, piece: NDArray[np.bool_] | None,
                     confident: bool) -> None:
        """One frame's confident reading ``key`` of a region: after STREAK equal ones, the patch becomes the
        region's look (what it shows when nothing changes), with ``piece`` where the piece is."""
        prev, n = self.look_streak.get(rid, (None, 0))
        if not confident:
            self.look_streak[rid] = (None, 0)
            return
        n = n + 1 if key == prev else 1
        self.look_streak[rid] = (key, n)
        if n >= STREAK:
            mask = piece if piece is not None else np.zeros(s.shape, bool)
            self.looks[rid] = (c.copy(), s.copy(), mask.copy())
            self.look_taken[rid] = self.frame
