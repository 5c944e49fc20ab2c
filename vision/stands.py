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
    chroma_dist_to,
    colour_chroma,
    palette_thresholds,
    percentile,
    saturation,
    share,
    skin_fraction,
)
from vision.stand_change import MATCH_BLUR_MM as MATCH_BLUR_MM
from vision.stand_change import MATCH_GAIN as MATCH_GAIN
from vision.stand_change import OPEN_MM, changed_matched, changed_pixels_legacy
from vision.stand_change import changed_pixels as changed_pixels
from vision.stand_change import ladder_scores as ladder_scores
from vision.stand_change import match_score as match_score
from vision.stand_change import match_step as match_step
from vision.stand_change import prepare_model as prepare_model
from vision.stand_change import smoothed_model as smoothed_model
from vision.stand_change import smoothed_patch as smoothed_patch
from vision.stand_shapes import fill_of, footprint, hull_of, kernel, largest, piece_zone, px_area
from vision.stand_stack import StandPasses

EMPTY_MAX_MM2 = 45.0
CAPITAL_MIN_MM2 = 205.0
ROUND_MAX_FILL = 0.89
OBSTRUCTED_FRACTION = 0.10
FLIPPED_LIT_FRACTION = 0.47
FOOTPRINT_GROW_MM = {"territory": 3.0, "movement": 1.5}
# never-lie mode: what a piece cannot explain, and the sizes each piece's top can have (mm^2, measured
# over rendered pieces at every pose of bench_overhead, with a margin)
FOREIGN_ON_PIECE = 0.3
UNEXPLAINED_FRACTION = 0.15
PROTO_COMMON = 0.02
PROTO_STRANGE_FRACTION = 0.12
UNVERIFIED_EMPTY = 0.3
# with neither a model nor a look, skin-coloured pixels are the only sign of a hand; a share of them up to
# MARGINAL_SKIN times the threshold (a map's own warm colours, blurred at low resolution, reach it) leaves
# the reading unsure, for the patch classifier to confirm or not (``vision.board``), instead of covered
MARGINAL_SKIN = 2.0
SKIN_UNSURE = "a few skin-coloured pixels"
# in a frame blurrier than the model (JPEG blocks and blur at half resolution smear a piece's colour over
# the map around it), a little more unexplained change than UNEXPLAINED_FRACTION, up to MARGINAL_UNEXPLAINED
# times it, leaves the reading unsure for the patch classifier to confirm, not unknown outright
BLURRED_UNSURE = "unexplained change in a blurred frame"
# the top partly of another colour, which only the frame's blur might explain: the measured top may hold the
# object (a die's recessed marks), so its size names no other piece (``StandClassifier.classify``)
ON_PIECE_UNSURE = "something on the piece, or blur"
MARGINAL_UNEXPLAINED = 2.0
# in a frame the per-frame estimate (``vision.frame_blur``) finds blurrier than the stand's model, JPEG's
# colour blocks (16 frame px at 4:2:0: 16 mm at 1014x760, as wide as a capital) change the colour of whole
# blocks of the stand and of a piece's top: there, unexplained change up to DEGRADED_UNEXPLAINED of the free
# core and another colour on up to MARGINAL_FOREIGN times FOREIGN_ON_PIECE of the top leave the reading
# unsure, for the patch classifier to confirm (``vision.board``: never where the obstruction finder sees an
# object the piece does not explain); a stand changed all over stays unknown
DEGRADED_UNEXPLAINED = 0.9
MARGINAL_FOREIGN = 2.0
# ... but only while the change stays inside the stand: JPEG's bleed is a halo around the piece, an object
# (a phone's edge over the stand) comes in from outside it, so beyond MARGINAL_UNEXPLAINED the largest
# changed blob may touch at most RIM_TOUCH of the core's rim (tuned on seed 7: uncovered pieces <= 0.07,
# a phone over 28 % of a stand 0.12-0.19)
RIM_TOUCH = 0.1
# in a sharp frame JPEG still bleeds a piece's colour a little beyond its measured top (which it shrinks): a
# change all of it within HALO_MM of the zone the piece explains, in one blob that touches no more of the
# core's rim than an uncovered piece's edge does (RIM_TOUCH: an object comes in from outside the stand), is
# the piece's own edge, not an object: the reading is unsure, for the patch classifier to confirm (never
# confident by the rule alone), instead of unknown
HALO_MM = 2.0
HALO_UNSURE = "a halo around the piece"
# the largest top a piece shows (mm^2): a capital's 16 mm square, 0.5 mm of edge each side, and the side wall
# the camera sees (9 mm tall, at most 1.4 mm at the farthest stand after a 3 degree / 20 mm bump): 17 x 17 +
# 16 x 1.4; capitals measured at most 267 (2028x1520, clean, blur 1, q50, tilt 0 and 3 degrees, lies16).
# Anything larger is no piece: a die of 18-20 mm, 14-20 tall, in the owner's colour, is one (issue 21)
LARGEST_TOP_MM2 = 310.0
AREA_MM2 = {"soul": (50.0, 160.0), "basecamp": (110.0, 200.0), "capital": (215.0, 380.0)}
Look = tuple[F32, F32, NDArray[np.bool_]]  # chromaticity, brightness, where the piece was
# every size the decision uses is in mm, so that it decides alike at any px per mm (``vision.regions``:
# the reader decides at STAND_READ_PX_PER_MM, about the frame's own resolution); each was a pixel size at
# 3 px/mm before: the opening of a colour or change mask (a 3x3 kernel), the closing of a piece's colour
# and the erosion that finds a top's inner part or a core's rim (5x5), the smoothing of the change test
# (sigma 3 px), the fewest pixels of a free core, a top's inner part (20 px), a calm area (30 px) and a
# flipped token's outline (10 px)
CLOSE_MM = 2.0 / 3.0
MIN_FREE_MM2 = 20.0 / 9.0
MIN_OUTLINE_MM2 = 10.0 / 9.0
BLUR_REACH = 2.0
# the looser measure of a piece's top (``StandClassifier._loose_area``): a larger piece it allows makes the
# reading unsure (SIZE_UNSURE caps its margin below the stabiliser's bar) for the second opinion to settle
LOOSE = 2.0
LOOSE_REACH_MM = 2.0
LOOSE_SHARE = 0.5
SIZE_UNSURE = 0.45


@dataclass(frozen=True)
class StandReading:
    state: str
    owner: str | None
    count: int
    confidence: float
    obstructed: bool
    flipped: bool
    reason: str | None = None
    piece: NDArray[np.bool_] | None = None  # where the piece and its side walls are (for the stand's look)
    area: float = 0.0  # mm^2 of the piece's top as measured
    # what else the rule's own measurements allow when they disagree (its shape says one piece, the measured
    # size another): the candidates a second opinion may confirm (``vision.board``), never read on their own
    alternatives: tuple[str, ...] = ()


class StandClassifier:
    """Classifies stand patches for one palette."""

    def __init__(self, palette: dict[str, tuple[int, int, int]],
                 areas: dict[str, tuple[float, float]] | None = None) -> None:
        """``areas``: each piece kind's range of top areas (mm^2) at this table (``vision.adapt``)."""
        if not palette:
            raise ValueError("palette: at least one owner colour is needed")
        self.areas = {**AREA_MM2, **(areas or {})}
        # a table whose pieces measure larger (``vision.adapt``) keeps its own largest top
        self.largest = max(LARGEST_TOP_MM2, (areas or {}).get("capital", (0.0, 0.0))[1])
        self.owners = sorted(palette)
        self.chromas = np.stack([colour_chroma(palette[o]) for o in self.owners])
        th = palette_thresholds(palette)
        self.thresholds = np.array([th[o] for o in self.owners], dtype=np.float32)

    def owner_map(self, c: F32, s: F32) -> NDArray[np.int8]:
        """Index of the owner each pixel belongs to, or -1."""
        best = np.full(c.shape[:2], -1, dtype=np.int8)
        best_d: F32 | None = None  # the nearest owner's distance so far (none yet: every distance is nearer)
        last = len(self.owners) - 1
        for i, (co, th) in enumerate(zip(self.chromas, self.thresholds, strict=True)):
            d = chroma_dist_to(c, co)
            win = d < th if best_d is None else (d < best_d) & (d < th)
            best[win] = i
            if i == last:
                break
            best_d = np.where(win, d, np.float32(np.inf)) if best_d is None else np.where(win, d, best_d)
        best[(s <= MIN_SUM) | (saturation(c) <= 0.10)] = -1
        return best

    def classify(self, patch: NDArray[np.uint8], kind: str, size_mm: tuple[float, float], px_per_mm: float,
                 ref: tuple[F32, F32] | None, look: Look | None = None, strict: bool = False, *,
                 cs: tuple[F32, F32] | None = None, blur_mm: float | None = None,
                 smooth: tuple[F32, F32] | None = None, passes: StandPasses | None = None) -> StandReading:
        """Read one light-normalised stand patch. ``ref`` is the stand's empty model; without one, ``look``
        (the stand as last read confidently, and where its piece was) judges what changed. With ``strict``
        (the reader's never-lie mode) anything a piece does not explain makes the stand unknown, and an
        empty reading needs a model or a look to be confident. ``cs`` is ``chroma(patch)`` when the caller
        has it already. ``blur_mm``: how much blurrier than ``ref`` (or the look) the frame is, estimated once
        for the frame (``vision.frame_blur``); None matches the model's blur to this patch alone. ``smooth``:
        ``smoothed_patch(patch)`` when the frame's estimate made it already. ``passes``: this stand's share of
        the frame's stacked passes (``vision.stand_stack``), the same values as computed here."""
        c, s = (chroma(patch) if cs is None else cs) if passes is None else passes.cs
        owners = self.owner_map(c, s) if passes is None else passes.owners
        pre = None if passes is None else passes.change
        n = patch.shape[0]
        foot = footprint(kind, size_mm, px_per_mm, n, FOOTPRINT_GROW_MM.get(kind, 2.0))
        changed: NDArray[np.bool_] | None = None
        frame_blur, blur_mm = blur_mm, 0.0  # how much blurrier than its model the frame is: an edge reaches further
        allowed: NDArray[np.bool_] | None = None
        if ref is not None:
            if strict:
                changed, blur_mm = pre or changed_matched(patch, ref, px_per_mm, frame_blur, smooth)
            else:
                changed = changed_pixels_legacy(c, s, ref)
            owners = np.where(changed, owners, -1).astype(np.int8)
        elif strict and look is not None:
            changed, blur_mm = pre or changed_matched(patch, (look[0], look[1]), px_per_mm, frame_blur, smooth)
            allowed = look[2]
            owners = np.where(changed | allowed, owners, -1).astype(np.int8)
        any_owner = (owners >= 0).astype(np.uint8)
        any_owner = np.asarray(cv2.morphologyEx(any_owner, cv2.MORPH_OPEN, kernel(OPEN_MM, px_per_mm)), np.uint8)
        # JPEG's colour subsampling and noise punch holes in a piece's colour: close them before measuring
        blob = largest(np.asarray(cv2.morphologyEx(any_owner & foot, cv2.MORPH_CLOSE, kernel(CLOSE_MM, px_per_mm)),
                                   np.uint8) & foot)
        area = float(blob.sum()) / px_per_mm**2
        border = share(np.concatenate([any_owner[0], any_owner[-1], any_owner[:, 0], any_owner[:, -1]]))
        hull = hull_of(blob) if area >= EMPTY_MAX_MM2 else None
        unsure: str | None = None  # a weak sign of something else: the reading needs a second opinion
        if strict:
            reason = self._unexplained(c, s, owners, changed, allowed, hull, foot, px_per_mm, kind, size_mm,
                                       blur_mm)
            if reason is None and area > self.largest:
                reason = "too large for a piece"
            if reason in (SKIN_UNSURE, BLURRED_UNSURE, HALO_UNSURE, ON_PIECE_UNSURE):
                unsure = reason
            elif reason is not None:
                return StandReading("unknown", None, 0, 0.0, True, False, reason)
        elif ref is not None:
            near = cv2.dilate((owners >= 0).astype(np.uint8), kernel(1.0, px_per_mm)) > 0
            foreign = changed & ~near & (s > MIN_SUM)  # type: ignore[operator]
            if float(foreign.mean()) > OBSTRUCTED_FRACTION or border > 0.3 or area > 2.0 * CAPITAL_MIN_MM2:
                return StandReading("empty", None, 0, 0.0, True, False, "covered")
        elif skin_fraction(c, s) > OBSTRUCTED_FRACTION or border > 0.3 or area > 2.0 * CAPITAL_MIN_MM2:
            return StandReading("empty", None, 0, 0.0, True, False, "covered")
        if area < EMPTY_MAX_MM2:
            conf = float(np.clip(1.0 - area / EMPTY_MAX_MM2, 0.0, 1.0)) * 0.5 + 0.5
            if strict and ref is None and look is None:
                conf = min(conf, UNVERIFIED_EMPTY)  # nothing tells an empty stand from a covered one
            return StandReading("empty", None, 0, 0.0 if unsure else conf, False, False, unsure)
        inside = owners[(blob > 0) & (owners >= 0)]
        votes = np.bincount(inside.astype(np.int64), minlength=len(self.owners))
        owner = self.owners[int(votes.argmax())]
        purity = float(votes.max()) / max(float(votes.sum()), 1.0)
        fill = fill_of(hull) if hull is not None else 0.0
        if fill < ROUND_MAX_FILL:
            state = "soul"
            margin = (ROUND_MAX_FILL - fill) / 0.06
            flipped = _flipped(largest(any_owner & foot), s, px_per_mm)
        else:
            state = "capital" if area >= CAPITAL_MIN_MM2 else "basecamp"
            margin = min((fill - ROUND_MAX_FILL) / 0.06, abs(area - CAPITAL_MIN_MM2) / 30.0)
            flipped = False
        alternatives: tuple[str, ...] = ()
        if strict:
            lo, hi = self.areas[state]
            margin = min(margin, (area - lo) / 15.0, (hi - area) / 15.0)  # shape and size must agree
            # a soul-shaped top keeps no square piece as a candidate: a die's top that JPEG rounds is as
            # soul-shaped, and the network confirmed it as the capital it was then offered (lies16); and with
            # something on the top the size was measured over it: the network may confirm the shape's piece,
            # not one the size alone would allow
            if unsure != ON_PIECE_UNSURE:
                alternatives = self.sized(kind, area, state)
                larger = self.larger(kind, area, self._loose_area(c, s, int(votes.argmax()), blob, foot, px_per_mm),
                                     (state, *alternatives))
                if larger:
                    # the top's blurred edge may hide a larger piece: the rule cannot tell, a second opinion may
                    alternatives += larger
                    margin = min(margin, SIZE_UNSURE)
        conf = 0.0 if unsure else float(np.clip(min(margin, 1.0) * purity, 0.0, 1.0))
        return StandReading(state, owner, 1, conf, False, flipped, unsure, piece_zone(hull, n, px_per_mm, 1.0), area,
                            alternatives)

    def sized(self, kind: str, area: float, shaped: str) -> tuple[str, ...]:
        """The pieces other than ``shaped`` that the measured top ``area`` allows (only a territory stand
        takes capitals and base camps): those whose range of areas holds it, or, when the area falls
        between ranges (and outside ``shaped``'s), the pieces whose ranges bound that gap, nearest below and
        nearest above. When blur or JPEG blocks round a square's corners, its size still says which squares
        it may be; JPEG shrinks a saturated top, so the piece above the gap stays a candidate."""
        kinds = ("soul", "basecamp", "capital") if kind == "territory" else ("soul",)
        inside = tuple(k for k in kinds if k != shaped and self.areas[k][0] <= area <= self.areas[k][1])
        lo, hi = self.areas[shaped]
        if inside or lo <= area <= hi:
            return inside
        others = [k for k in kinds if k != shaped]
        below = [k for k in others if self.areas[k][1] < area]
        above = [k for k in others if self.areas[k][0] > area]
        out = []
        if below:
            out.append(max(below, key=lambda k: self.areas[k][1]))
        if above:
            out.append(min(above, key=lambda k: self.areas[k][0]))
        return tuple(out)

    def larger(self, kind: str, area: float, loose: float, known: tuple[str, ...]) -> tuple[str, ...]:
        """The pieces not in ``known`` that the stand takes whose smallest top is above the measured ``area``
        but within ``LOOSE_SHARE`` of the way to the ``loose`` measure (``_loose_area``): the top's true
        edge lies inside the band between the two tests, about half-way."""
        kinds = ("soul", "basecamp", "capital") if kind == "territory" else ("soul",)
        reach = area + LOOSE_SHARE * max(loose - area, 0.0)
        return tuple(k for k in kinds if k not in known and area < self.areas[k][0] <= reach)

    def _loose_area(self, c: F32, s: F32, owner: int, blob: NDArray[np.uint8], foot: NDArray[np.uint8],
                    k: float) -> float:
        """The piece's top measured with a looser colour test (``LOOSE`` times the owner's distance) within
        ``LOOSE_REACH_MM`` of its blob, in mm^2. Blur and JPEG mix a top's edge with the map around it: its
        owner's colour fades, and the plain test measures the top smaller than it is, by up to a band as wide
        as the blur; at a sharp frame both measures agree."""
        d = chroma_dist_to(c, self.chromas[owner])
        reach = round(LOOSE_REACH_MM * k)
        near = np.asarray(cv2.dilate(blob, np.ones((2 * reach + 1,) * 2, np.uint8)), np.uint8)
        loose = ((d < LOOSE * self.thresholds[owner]) & (s > MIN_SUM)).astype(np.uint8) & near & foot
        grown = largest(np.asarray(loose | blob, np.uint8))
        return float(grown.sum()) / k**2

    def _unexplained(self, c: F32, s: F32, owners: NDArray[np.int8], changed: NDArray[np.bool_] | None,
                     allowed: NDArray[np.bool_] | None, hull: NDArray[np.int32] | None, foot: NDArray[np.uint8],
                     k: float, kind: str, size_mm: tuple[float, float], blur_mm: float = 0.0) -> str | None:
        """Why the stand cannot be read (something there that no piece explains), or None. ``blur_mm``: how
        much blurrier than its model the frame is (``changed_matched``): a piece's blurred edge reaches that
        much further (``BLUR_REACH`` times it) beyond its side walls and shadow."""
        n = foot.shape[0]
        unsure: str | None = None
        core = footprint(kind, size_mm, k, n, 1.0) > 0
        explained = np.zeros((n, n), np.uint8)
        if hull is not None:
            cv2.fillConvexPoly(explained, hull, 1)
            inner = cv2.erode(explained, kernel(CLOSE_MM, k)) > 0
            if inner.sum() > px_area(MIN_FREE_MM2, k):
                # a piece's top is its owner's colour throughout (dark details included): anything else on
                # it (glare, a die, a finger) hides what it is
                foreign_on = share((owners < 0) & inner) / max(share(inner), 1e-6)
                if foreign_on > FOREIGN_ON_PIECE:
                    if blur_mm <= 0 or foreign_on > MARGINAL_FOREIGN * FOREIGN_ON_PIECE:
                        return "something on the piece"
                    unsure = ON_PIECE_UNSURE
            # the piece's side walls and its soft shadow around the top
            grow = round((2.5 + BLUR_REACH * blur_mm) * k + 0.5)
            explained = np.asarray(cv2.dilate(explained, np.ones((grow * 2 + 1,) * 2, np.uint8)), np.uint8)
        free = core & (explained == 0)
        if allowed is not None:
            free &= ~allowed  # where the last piece stood: what is there now is the stand or the new piece
        if free.sum() < px_area(MIN_FREE_MM2, k):
            return unsure if blur_mm <= 0 or hull is None else unsure or BLURRED_UNSURE
        if changed is not None:
            frac = float((changed & free).sum()) / float(free.sum())
            if frac > UNEXPLAINED_FRACTION and blur_mm > 0 and (
                    frac <= MARGINAL_UNEXPLAINED * UNEXPLAINED_FRACTION
                    or (frac <= DEGRADED_UNEXPLAINED and _rim_touched(changed & free, core, k) <= RIM_TOUCH)):
                return unsure or BLURRED_UNSURE  # something on the top too: that reason is the stricter
            if frac > UNEXPLAINED_FRACTION and _halo(changed & free, explained, core, k):
                return HALO_UNSURE
            return "unexplained object" if frac > UNEXPLAINED_FRACTION else unsure
        skin = skin_fraction(c, s)
        if skin > MARGINAL_SKIN * OBSTRUCTED_FRACTION:
            return "covered"
        return SKIN_UNSURE if skin > OBSTRUCTED_FRACTION else unsure


def _rim_touched(change: NDArray[np.bool_], core: NDArray[np.bool_], k: float) -> float:
    """The share of ``core``'s rim (its outer ``CLOSE_MM``) that the largest connected blob of ``change``
    covers."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(change.astype(np.uint8), connectivity=8)
    if n <= 1:
        return 0.0
    big = labels == 1 + int(stats[1:, cv2.CC_STAT_AREA].argmax())
    rim = core & ~(cv2.erode(core.astype(np.uint8), kernel(CLOSE_MM, k)) > 0)
    return float((big & rim).sum()) / max(float(rim.sum()), 1.0)


def _halo(change: NDArray[np.bool_], explained: NDArray[np.uint8], core: NDArray[np.bool_], k: float) -> bool:
    """Whether ``change`` (the unexplained change of a stand with a piece) is a halo of that piece: one blob,
    every pixel of it within ``HALO_MM`` of the ``explained`` zone, on no more than ``RIM_TOUCH`` of the core's
    rim."""
    if not explained.any():
        return False
    n, _ = cv2.connectedComponents(change.astype(np.uint8), connectivity=8)
    near = cv2.dilate(explained, kernel(HALO_MM, k)) > 0
    return n == 2 and not bool((change & ~near).any()) and _rim_touched(change, core, k) <= RIM_TOUCH


def _flipped(blob: NDArray[np.uint8], s: F32, k: float) -> bool:
    """An upright soul token shows a small lit top (a third of its outline) above its darker sloped side;
    an upturned one shows its wide flat base, lit over most of its outline."""
    vals = s[blob > 0]
    if vals.size < px_area(MIN_OUTLINE_MM2, k):
        return False
    bright = vals > 0.85 * percentile(vals, 95)
    return share(bright) > FLIPPED_LIT_FRACTION
