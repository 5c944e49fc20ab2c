"""Finding hands and arms: blobs of change since the empty-table reference that reach outside the places
where pieces and cards may appear (an arm always comes from the table's edge). Every stand or slot such a
blob touches is obstructed.

Works on a quarter-resolution copy, so it costs a few milliseconds per frame.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import MIN_SUM, chroma, chroma_dist, median
from vision.regions import Region

SCALE = 4
MIN_OUTSIDE_PX = 12
GRAZED = 0.1  # share of a stand's core a blob may cover and leave the stand to its own decision (vision.board)
EDGE_NEW = 40.0  # brightness-sum gradient (0..765 per px) that appears where the reference had none


def _edges(s: NDArray[np.float32]) -> NDArray[np.float32]:
    """Gradient magnitude of a brightness image, lightly smoothed so noise does not count as edges."""
    b = cv2.GaussianBlur(s, (3, 3), 0)
    gx = cv2.Sobel(b, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(b, cv2.CV_32F, 0, 1, ksize=3)
    return np.asarray(cv2.magnitude(gx, gy), np.float32) / 4.0


def changed_since(c: NDArray[np.float32], s: NDArray[np.float32], ref_c: NDArray[np.float32],
                  ref_s: NDArray[np.float32], ref_edges: NDArray[np.float32], gain: float = 1.0) -> NDArray[np.bool_]:
    """The pixels an object changed since the reference (chromaticity ``ref_c``, brightness ``ref_s``, its
    ``_edges``) under a light ``gain`` times the reference's: a new colour, a brightness no shadow or
    unevenness of the light makes, or a new edge where the reference was flat."""
    dc = chroma_dist(c, ref_c)
    ratio = s / np.maximum(ref_s, 1.0)
    # shadows only darken; anything brighter than the light's unevenness allows is a new object
    ratio /= max(gain, 0.05)
    changed = ((dc > 0.07) & (s > MIN_SUM) & (ref_s > MIN_SUM)) | (ratio < 0.3) | (ratio > 1.4)
    # new edges where the reference was flat: the outline of an arm as dark as the table under it
    edges, before = _edges(s), ref_edges * gain
    return np.asarray(changed | ((edges - before > EDGE_NEW) & (edges > 2.5 * before)), np.bool_)


def open_in_place(mask: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The union of the 2x2 squares of ``mask`` that are set all over: lone pixels and one-pixel lines of
    change are noise. (OpenCV's opening with an even kernel erodes and dilates about the same off-centre
    anchor, which moves every kept pixel one right and one down: a stand beside an object got the object's
    outline inside its core.)"""
    square = np.ones((2, 2), np.uint8)
    corners = cv2.erode(mask, square, anchor=(0, 0), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    return np.asarray(cv2.dilate(corners, square, anchor=(1, 1)), dtype=np.uint8)


class ObstructionFinder:
    """Change detection against a reference frame, ignoring changes inside the allowed regions."""

    def __init__(self, reference: NDArray[np.uint8], regions: dict[str, Region], small: bool = False) -> None:
        """``reference``: the empty table at full resolution, or already at 1/SCALE with ``small``."""
        h, w = reference.shape[:2]
        self.size = (w, h) if small else (w // SCALE, h // SCALE)
        if not small:
            reference = np.asarray(cv2.resize(reference, self.size, interpolation=cv2.INTER_LINEAR), dtype=np.uint8)
        self.ref_c, self.ref_s = chroma(reference)
        self.ref_edges = _edges(self.ref_s)
        allowed = np.zeros((self.size[1], self.size[0]), dtype=np.uint8)
        core = np.zeros_like(allowed)
        beyond = np.zeros_like(allowed)
        self.masks: dict[str, tuple[tuple[int, int, int, int], NDArray[np.uint8]]] = {}
        # each core less its outer pixel: a blob at this resolution may reach that pixel without the object
        # covering any of the core (``vision.graze``)
        self.inner: dict[str, NDArray[np.uint8]] = {}
        for rid, reg in regions.items():
            poly = np.round(reg.polygon / SCALE * 16).astype(np.int32)
            cv2.fillPoly(allowed, [poly], 1, cv2.LINE_8, shift=4)
            cv2.fillPoly(beyond if reg.kind == "under" else core, [poly], 1, cv2.LINE_8, shift=4)
            pts = reg.core / SCALE
            x0, y0 = np.maximum(np.floor(pts.min(0)).astype(int) - 2, 0)
            x1, y1 = np.minimum(np.ceil(pts.max(0)).astype(int) + 3, self.size)
            m = np.zeros((max(y1 - y0, 1), max(x1 - x0, 1)), dtype=np.uint8)
            cv2.fillPoly(m, [np.round((pts - (x0, y0)) * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
            self.masks[rid] = ((int(x0), int(y0), int(x1), int(y1)), m)
            self.inner[rid] = np.asarray(cv2.erode(m, np.ones((3, 3), np.uint8), borderType=cv2.BORDER_CONSTANT,
                                                   borderValue=0), np.uint8)
        self.allowed = cv2.dilate(allowed, np.ones((11, 11), np.uint8))  # cards and pieces sit a little askew
        self.regions_core = core
        # beyond the reach of a card lying askew on its slot, which may hang over the mat's edge a little
        far = beyond & (cv2.dilate(core, np.ones((11, 11), np.uint8)) == 0)
        self.beyond: NDArray[np.uint8] | None = np.asarray(far, np.uint8) if far.any() else None

    def find(self, frame: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], tuple[tuple[int, int, int, int], ...]]:
        """The obstruction mask (quarter resolution) and the obstructed boxes in full-resolution pixels."""
        small = np.asarray(cv2.resize(frame, self.size, interpolation=cv2.INTER_LINEAR), dtype=np.uint8)
        return self.find_small(small)

    def find_small(self, small: NDArray[np.uint8], margin: bool = True) -> tuple[
            NDArray[np.uint8], tuple[tuple[int, int, int, int], ...]]:
        """``find`` on a frame already at 1/SCALE (light-normalised and aligned with the reference); without
        ``margin`` the blobs are not grown (each region then explains its own edge of the blob)."""
        c, s = chroma(small)
        gain = median((s[::4, ::4] / np.maximum(self.ref_s[::4, ::4], 1.0)).ravel())  # the sampled ratio only
        changed = changed_since(c, s, self.ref_c, self.ref_s, self.ref_edges, gain)
        return self._blobs(open_in_place(changed.astype(np.uint8)), margin)

    def _blobs(self, changed: NDArray[np.uint8], margin: bool = True) -> tuple[
            NDArray[np.uint8], tuple[tuple[int, int, int, int], ...]]:
        out = np.zeros_like(changed)
        free = (changed > 0) & (self.allowed == 0)
        far = None if self.beyond is None else (changed > 0) & (self.beyond > 0)
        if np.count_nonzero(free) < MIN_OUTSIDE_PX and (far is None or np.count_nonzero(far) < MIN_OUTSIDE_PX):
            # no blob can reach MIN_OUTSIDE_PX outside the allowed places when all of them together do not
            # (the common frame: every change is a piece or a card in its place): no labelling needed
            return out, ()
        # the labels alone (OpenCV's statistics cost ~6x the labelling on the small frame); a blob's area
        # and box are taken below for the few blobs that need them
        n, labels = cv2.connectedComponents(changed, connectivity=8)
        boxes: list[tuple[int, int, int, int]] = []
        if n > 1:
            outside = np.bincount(labels[free].ravel(), minlength=n)
            keep = outside >= MIN_OUTSIDE_PX
            if far is not None:
                # the table beyond the mat's edge is allowed for a hidden card's end, which only touches its
                # slot; a blob there that also lies over a slot or a stand is a hand reaching in
                beyond = np.bincount(labels[far].ravel(), minlength=n)
                over = np.bincount(labels[(changed > 0) & (self.regions_core > 0)].ravel(), minlength=n)
                for i in np.nonzero(beyond >= MIN_OUTSIDE_PX)[0]:
                    keep[i] |= bool(over[i] > 0.15 * np.count_nonzero(labels == i))
            keep[0] = False
            # the whole blob: a hand over a slot or stand is joined to its arm outside the allowed places
            if keep.any():
                out[keep[labels]] = 1
            for i in np.nonzero(keep)[0]:
                ys, xs = np.nonzero(labels == i)
                boxes.append((int(xs.min()) * SCALE, int(ys.min()) * SCALE, (int(xs.max()) + 1) * SCALE,
                              (int(ys.max()) + 1) * SCALE))
        if boxes and margin:
            out = np.asarray(cv2.dilate(out, np.ones((7, 7), np.uint8)), dtype=np.uint8)  # ~6 mm of margin
        return out, tuple(boxes)

    def covered(self, mask: NDArray[np.uint8], region_id: str) -> bool:
        """Whether the obstruction ``mask`` covers any of the region's core (a stand decides a partial cover
        itself: ``vision.graze``)."""
        return self.share(mask, region_id) > 0

    def share(self, mask: NDArray[np.uint8], region_id: str) -> float:
        """The share of the region's core the obstruction ``mask`` covers."""
        (x0, y0, x1, y1), m = self.masks[region_id]
        sub = mask[y0:y1, x0:x1]
        core = m[: sub.shape[0], : sub.shape[1]]
        return int((sub & core).sum()) / max(float(core.sum()), 1.0)

    def reaches_inside(self, mask: NDArray[np.uint8], region_id: str) -> bool:
        """Whether the obstruction ``mask`` covers any of the region's core beyond its outer pixel."""
        (x0, y0, x1, y1), _ = self.masks[region_id]
        sub = mask[y0:y1, x0:x1]
        return bool((sub & self.inner[region_id][: sub.shape[0], : sub.shape[1]]).any())

    def beyond_piece(self, mask: NDArray[np.uint8], region_id: str, H: NDArray[np.float64],
                     piece: NDArray[np.bool_]) -> float:
        """The share of the region's core the obstruction ``mask`` covers outside ``piece`` (the zone of the
        stand's own piece and its side walls, in the patch whose pixel (u, v) is frame pixel H @ (u, v)).

        A piece on a stand differs from the empty table, so where an object's blob touches it the blob runs
        on over the piece: that part is the stand's own change, explained by its reading, not the object."""
        (x0, y0, x1, y1), m = self.masks[region_id]
        sub = mask[y0:y1, x0:x1]
        core = m[: sub.shape[0], : sub.shape[1]]
        to_box = np.array([[1.0 / SCALE, 0.0, -x0], [0.0, 1.0 / SCALE, -y0], [0.0, 0.0, 1.0]]) @ H
        zone = cv2.warpPerspective(piece.astype(np.uint8), to_box, (sub.shape[1], sub.shape[0]),
                                   flags=cv2.INTER_NEAREST)
        zone = cv2.dilate(zone, np.ones((3, 3), np.uint8))  # a quarter-resolution pixel of the piece's edge
        over = int((sub & core & (zone == 0)).sum())
        return over / max(float(core.sum()), 1.0)
