"""Whether a foreign object's blob covers a stand, or only grazes it and leaves it to its own decision.

The obstruction finder (``vision.obstruction``) works at a quarter of the frame's resolution: a stand beside
an object can get a quarter-resolution pixel of the object's outline or shadow inside its core, and a stand
the object's edge really covers can get as little of it. Where the blob only grazes a stand (no more than
``GRAZED`` of its core, or only the core's outer pixel at that resolution, which the finder cannot settle),
the object's own pixels are measured at full resolution on the stand's patch (the finder's change tests
against the stand's empty model or look), grown from the blob, so that how much of the stand the object
covers is measured where the stand is. A blob reaching deeper is measured there too: the quarter-resolution
blob of an object beside a stand takes in its outline, its shadow and the stand's own piece, which the
full-resolution measure tells apart; the stand is read (learning nothing from the frame) only when that
measure finds no more than a graze of the object and the stand's own reading is confident.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import F32
from vision.observation import CONFIDENT_EMPTY
from vision.obstruction import GRAZED, SCALE, ObstructionFinder, _edges, changed_since
from vision.regions import Region
from vision.stands import StandReading

COVERED = "covered"
PIECE = "piece"  # an object beside the stand, or its own piece joined to one: read, learn nothing


def blob_verdict(finder: ObstructionFinder, mask: NDArray[np.uint8], reg: Region, r: StandReading,
                 cs: tuple[F32, F32], ref: tuple[F32, F32] | None) -> str | None:
    """``COVERED``, ``PIECE`` or None (no object on the stand: its own decision stands) for the stand
    ``reg`` read as ``r`` from a patch of chromaticity and brightness ``cs``, given the frame's obstruction
    ``mask`` and the stand's empty model or look ``ref`` (None while it has neither)."""
    share = finder.share(mask, reg.id)
    if share <= 0.0:
        return None
    if (share <= GRAZED or not finder.reaches_inside(mask, reg.id)) and ref is not None:
        # a graze, or a blob in the core's outer pixel only, which the finder's resolution cannot settle
        return COVERED if object_share(mask, reg, cs, ref, r.piece) > GRAZED else None
    if ref is not None:
        # a blob deeper in the core: the object's outline, shadow and the stand's own piece joined to it; the
        # object's own pixels outside the piece decide, and only a confident reading is kept
        if r.obstructed or r.confidence < CONFIDENT_EMPTY or object_share(mask, reg, cs, ref, r.piece) > GRAZED:
            return COVERED
        return PIECE
    if share > GRAZED:
        # nothing to measure the object against at full resolution: the blob may be the stand's own piece
        # joined to an object beside it: only a confident piece whose zone explains all but a graze of it is read
        if (r.obstructed or r.state == "empty" or r.piece is None or r.confidence < CONFIDENT_EMPTY
                or finder.beyond_piece(mask, reg.id, reg.H, r.piece) > GRAZED):
            return COVERED
        return PIECE
    return COVERED  # a graze, and nothing to measure the object against at full resolution


def object_share(mask: NDArray[np.uint8], reg: Region, cs: tuple[F32, F32], ref: tuple[F32, F32],
                 piece: NDArray[np.bool_] | None) -> float:
    """The share of the stand's core (outside ``piece``, the zone of the stand's own piece) that the
    object of the quarter-resolution ``mask`` covers, measured on the stand's full-resolution patch: the
    patch's pixels the finder's tests find changed since ``ref``, in the connected parts that meet the blob.
    The patch is under the model's light (``vision.light.normalise``), so no gain is taken out."""
    c, s = cs
    w, h = reg.size
    to_small = np.diag([1.0 / SCALE, 1.0 / SCALE, 1.0]) @ reg.H
    seed = cv2.warpPerspective(mask, to_small, (w, h), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
    changed = changed_since(c, s, ref[0], ref[1], _edges(ref[1])).astype(np.uint8)
    n, labels = cv2.connectedComponents(changed, connectivity=8)
    touched = np.zeros(n, bool)
    touched[np.unique(labels[(seed > 0) & (changed > 0)])] = True
    touched[0] = False
    core = core_mask(reg)
    obj = touched[labels] & (core > 0)
    if piece is not None:
        obj &= cv2.dilate(piece.astype(np.uint8), np.ones((3, 3), np.uint8)) == 0
    return int(np.count_nonzero(obj)) / max(float(np.count_nonzero(core)), 1.0)


def core_mask(reg: Region) -> NDArray[np.uint8]:
    """The stand's core (its top, grown a little) in its patch's pixels."""
    w, h = reg.size
    pts = cv2.perspectiveTransform(reg.core.reshape(-1, 1, 2).astype(np.float64), np.linalg.inv(reg.H))
    out = np.zeros((h, w), np.uint8)
    cv2.fillPoly(out, [np.round(pts.reshape(-1, 2) * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
    return out
