"""Classifying what stands on one stand from its rectified patch.

The owner's pixels are those whose chromaticity is near the owner's learned colour (and, with a reference
frame of the empty table, that changed since). Their largest blob on the stand gives the piece: its area
separates a capital (16 mm square) from a base camp (13 mm square), its squareness separates those from a
soul token (round), and the brightness of its rim against its centre tells an upturned (flipped) soul
token from an upright one. Pixels that changed but belong to no owner mean something else is there: the
stand is obstructed.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import (
    F32,
    MIN_SUM,
    chroma,
    chroma_dist,
    colour_chroma,
    palette_thresholds,
    saturation,
    skin_fraction,
)

EMPTY_MAX_MM2 = 45.0
CAPITAL_MIN_MM2 = 205.0
ROUND_MAX_FILL = 0.89
OBSTRUCTED_FRACTION = 0.10
FLIPPED_LIT_FRACTION = 0.47
FOOTPRINT_GROW_MM = {"territory": 3.0, "movement": 1.5}


@dataclass(frozen=True)
class StandReading:
    state: str
    owner: str | None
    count: int
    confidence: float
    obstructed: bool
    flipped: bool


class StandClassifier:
    """Classifies stand patches for one palette."""

    def __init__(self, palette: dict[str, tuple[int, int, int]]) -> None:
        if not palette:
            raise ValueError("palette: at least one owner colour is needed")
        self.owners = sorted(palette)
        self.chromas = np.stack([colour_chroma(palette[o]) for o in self.owners])
        th = palette_thresholds(palette)
        self.thresholds = np.array([th[o] for o in self.owners], dtype=np.float32)

    def owner_map(self, c: F32, s: F32) -> NDArray[np.int8]:
        """Index of the owner each pixel belongs to, or -1."""
        best = np.full(c.shape[:2], -1, dtype=np.int8)
        best_d = np.full(c.shape[:2], np.inf, dtype=np.float32)
        for i, (co, th) in enumerate(zip(self.chromas, self.thresholds, strict=True)):
            d = chroma_dist(c, np.broadcast_to(co, c.shape))
            win = (d < best_d) & (d < th)
            best[win] = i
            best_d[win] = d[win]
        best[(s <= MIN_SUM) | (saturation(c) <= 0.10)] = -1
        return best

    def classify(self, patch: NDArray[np.uint8], kind: str, size_mm: tuple[float, float], px_per_mm: float,
                 ref: tuple[F32, F32] | None) -> StandReading:
        c, s = chroma(patch)
        owners = self.owner_map(c, s)
        n = patch.shape[0]
        if ref is not None:
            rc, rs = ref
            dc = chroma_dist(c, rc)
            ratio = s / np.maximum(rs, 1.0)
            changed = ((dc > 0.06) & (s > MIN_SUM) & (rs > MIN_SUM)) | (ratio < 0.3) | (ratio > 2.5)
            changed = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
            owners = np.where(changed, owners, -1).astype(np.int8)
            # a piece's anti-aliased outline mixes its colour with the stand's: only count pixels away from it
            near = cv2.dilate((owners >= 0).astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
            foreign = changed & ~near & (s > MIN_SUM)
            foreign_frac = float(foreign.mean())
        else:
            foreign_frac = skin_fraction(c, s)
        foot = _footprint(kind, size_mm, px_per_mm, n, FOOTPRINT_GROW_MM.get(kind, 2.0))
        any_owner = (owners >= 0).astype(np.uint8)
        any_owner = np.asarray(cv2.morphologyEx(any_owner, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
        # JPEG's colour subsampling and noise punch holes in a piece's colour: close them before measuring
        blob = _largest(np.asarray(cv2.morphologyEx(any_owner & foot, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)),
                                   np.uint8) & foot)
        area = float(blob.sum()) / px_per_mm**2
        border = float(np.concatenate([any_owner[0], any_owner[-1], any_owner[:, 0], any_owner[:, -1]]).mean())
        obstructed = foreign_frac > OBSTRUCTED_FRACTION or border > 0.3 or area > 2.0 * CAPITAL_MIN_MM2
        if area < EMPTY_MAX_MM2:
            conf = float(np.clip(1.0 - area / EMPTY_MAX_MM2, 0.0, 1.0)) * 0.5 + 0.5
            return StandReading("empty", None, 0, conf if not obstructed else 0.0, obstructed, False)
        inside = owners[(blob > 0) & (owners >= 0)]
        votes = np.bincount(inside.astype(np.int64), minlength=len(self.owners))
        owner = self.owners[int(votes.argmax())]
        purity = float(votes.max()) / max(float(votes.sum()), 1.0)
        fill = _fill(blob)
        if fill < ROUND_MAX_FILL:
            state = "soul"
            margin = (ROUND_MAX_FILL - fill) / 0.06
            flipped = _flipped(_largest(any_owner & foot), s)
        else:
            state = "capital" if area >= CAPITAL_MIN_MM2 else "basecamp"
            margin = min((fill - ROUND_MAX_FILL) / 0.06, abs(area - CAPITAL_MIN_MM2) / 30.0)
            flipped = False
        conf = float(np.clip(min(margin, 1.0) * purity, 0.0, 1.0))
        return StandReading(state, owner, 1, 0.0 if obstructed else conf, obstructed, flipped)


def _footprint(kind: str, size_mm: tuple[float, float], k: float, n: int, grow: float) -> NDArray[np.uint8]:
    m = np.zeros((n, n), dtype=np.uint8)
    c = n / 2.0
    if kind == "territory":
        hw, hh = (size_mm[0] / 2 + grow) * k, (size_mm[1] / 2 + grow) * k
        cv2.rectangle(m, (round(c - hw), round(c - hh)), (round(c + hw), round(c + hh)), 1, -1)
    else:
        cv2.circle(m, (round(c), round(c)), round((size_mm[0] / 2 + grow) * k), 1, -1)
    return m


def _largest(mask: NDArray[np.uint8]) -> NDArray[np.uint8]:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return np.zeros_like(mask)
    i = 1 + int(stats[1:, cv2.CC_STAT_AREA].argmax())
    return np.asarray(labels == i, dtype=np.uint8)


def _fill(blob: NDArray[np.uint8]) -> float:
    """The blob's convex hull area over its minimum-area rectangle: ~1 for squares, ~0.79 for discs. The
    hull ignores the dark tower tops and roof shadows inside a capital."""
    hull = cv2.convexHull(cv2.findNonZero(blob))
    (_, _), (w, h), _ = cv2.minAreaRect(hull)
    return float(cv2.contourArea(hull)) / max(float(w * h), 1.0)


def _flipped(blob: NDArray[np.uint8], s: F32) -> bool:
    """An upright soul token shows a small lit top (a third of its outline) above its darker sloped side;
    an upturned one shows its wide flat base, lit over most of its outline."""
    vals = s[blob > 0]
    if vals.size < 10:
        return False
    bright = vals > 0.85 * float(np.percentile(vals, 95))
    return float(bright.mean()) > FLIPPED_LIT_FRACTION
