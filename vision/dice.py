"""The dice in the roll area of one overhead frame: which dice, whose colour, which face is up.

Only the roll area is looked at (a few hundred thousand pixels of a 2028 x 1520 frame), and only when the
table expects a roll. The area (with a margin around it, to see dice that rolled out) is rectified to a
top-down patch at `PX_PER_MM` on the plane of the dice's tops, compared with the same patch of the empty
table (light adapted by per-channel gains; shadows, darker with the table's own colour, are not things),
and each thing of a die's size is read. The classical part says where it lies, whether it is a cube (diel
die or D6) or a D20 (the 4- or 3-fold symmetry of its lit part) and whose it is (its colour); the learned
part, `vision.dice_net` on a light-normalised crop of the top (`vision.dice_crop`), says which face is up
with a calibrated probability. Whatever is unsure is "unknown", never a guess: a face below its kind's
acceptance, a face of a kind the die's shape contradicts, a colour near no seat or near two, dice touching
so that they cannot be told apart, something larger than a die (a hand) in the area, no network at all.
The empty area needs no photo (`vision.dice_empty`).

Whether the dice are *at rest* (the same reading over a few frames, no hand) is the table's business
(`tracker.table.dice_watch`); this module reads one frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from vision.dice_crop import face_crop_hidden
from vision.dice_d20 import D20Net, load_d20_net
from vision.dice_empty import EmptyArea
from vision.dice_faces import SIZE_MM
from vision.dice_net import FaceGuess, FaceNet, load_face_net, packaged_face_net
from vision.dice_tops import lit_mask, split_top
from vision.errors import VisionError
from vision.warp import Image, Mat3, extract, scale, translate

PX_PER_MM = 3.0
TOP_Z_MM = 17.0  # the plane the area is rectified on: the dice's tops
MARGIN_MM = 35.0  # seen around the area, so a die that rolled out is noticed
OWNER_RATIO = 0.55  # the nearest seat colour must be this much nearer than the next one
OWNER_MAX = 0.12  # chromaticity distance beyond which a die is no seat's
PAIR_ELONGATION = 2.2  # variance ratio along/across of two dice side by side (a lone die's is about 1)
OWN_GROW_MM = 1.2  # a die's face crop keeps this much around its outline
TOP_AREA = 1.1  # the largest lit top of one die, in squares of a D6's size
SPLIT_ACCEPT = 0.99  # a die cut from touching dice whose shape is unsure: its face accepted from this p on
FG_DIFF = 30.0  # a die differs from the empty table by this much (grey levels) in the channel it differs most in
FG_DIFF_MIN = 15.0  # ... scaled down with the light's level (a dim lamp shrinks every difference), never below
FG_CORE = 0.2  # a thing found at the scaled threshold holds at least this share of a die's top above FG_DIFF
TABLE_CHROMA = 0.04  # a blob this near the table's chromaticity (and brightness) is the table itself
F32 = NDArray[np.float32]
KIND_OF_SHAPE = {"cube": ("diel", "d6"), "icosahedron": ("d20",)}


@dataclass(frozen=True)
class DieReading:
    """One die: its kind, face and owner (each None when unknown), the calibrated probability of the face,
    where it lies (mat mm), whether it lies inside the roll area, and why something is unknown."""

    kind: str | None
    face: str | None
    owner: str | None
    confidence: float
    centre_mm: tuple[float, float]
    inside: bool
    why: str = ""
    shape: str = "unknown"  # cube, icosahedron or unknown, from the die's lit part
    guess: str = ""  # the network's best kind:face, accepted or not (for the bench and the judge)
    hidden: bool = False  # a glare spot may have hidden part of its mark: held to the stricter acceptance

    @property
    def known(self) -> bool:
        return self.kind is not None and self.face is not None and self.owner is not None


@dataclass(frozen=True)
class RollReading:
    """What the roll area shows in one frame: its dice, whether a hand (or anything larger than a die) is in
    it, and blobs that could not be separated into dice."""

    dice: tuple[DieReading, ...]
    hand: bool = False
    unresolved: int = 0

    @property
    def empty(self) -> bool:
        return not self.dice and not self.hand and not self.unresolved


@dataclass(frozen=True)
class DieCandidate:
    """A thing of a die's size, before its face is read: where, whose colour, which shape, and its crop
    for the face network (`vision.dice_crop`)."""

    centre_mm: tuple[float, float]
    inside: bool
    owner: str | None
    shape: str
    crop: F32
    split: bool = False  # cut from a blob of touching dice (its outline, and so its shape, is less sure)
    hidden_mm2: float = 0.0  # its top a glare spot may have hidden the mark under (`vision.dice_glare`)


@dataclass(frozen=True)
class RollCandidates:
    dice: tuple[DieCandidate, ...]
    hand: bool
    unresolved: int


class DiceReader:
    """Reads the dice in `layout`'s roll area from frames of a camera at `pose`; `palette` maps seats to their
    dice's colour (BGR); `reference` is a frame of the empty table (or None: the first frames where the area
    is still and empty become it, see `vision.dice_empty`). `net` is the face network; by default the
    package's (or the one in `net_folder`), and when it cannot be loaded every face is unknown, the reason in
    each reading's `why`."""

    def __init__(self, layout: TableLayout, pose: CameraPose, palette: dict[str, tuple[int, int, int]],
                 reference: Image | None, net: FaceNet | None = None, net_folder: Path | None = None,
                 d20_folder: Path | None = None) -> None:
        if layout.roll_area_mm is None:
            raise VisionError("the table layout has no roll area (mat file key roll_area_mm)")
        self.area = layout.roll_area_mm
        x0, y0, x1, y1 = self.area
        self.origin = (x0 - MARGIN_MM, y0 - MARGIN_MM)
        self.size = (int((x1 - x0 + 2 * MARGIN_MM) * PX_PER_MM), int((y1 - y0 + 2 * MARGIN_MM) * PX_PER_MM))
        self.H: Mat3 = pose.plane_homography(TOP_Z_MM) @ translate(*self.origin) @ scale(1.0 / PX_PER_MM)
        self.palette = {seat: _chroma(np.array(c, np.float32)) for seat, c in palette.items()}
        self.empty = EmptyArea()
        if reference is not None:
            self.empty.set(extract(reference, self.H, self.size).astype(np.float32))
        die_px = (SIZE_MM["d6"] * PX_PER_MM) ** 2
        self.die_area = (0.4 * die_px, 1.9 * die_px)
        self.top_area = TOP_AREA * die_px  # a die's lit top is no larger (two touching tops are)
        self.net: FaceNet | None = net
        self.net_error = ""
        if net is None:
            try:
                self.net = packaged_face_net() if net_folder is None else load_face_net(net_folder)
            except VisionError as e:
                self.net_error = str(e)
        # a candidate D20 numeral network (`vision.dice_d20`), only when asked for: round 10's did not beat the
        # face network's D20 reading at 0 wrong (docs/dice.md), so none is shipped and the face network reads
        self.d20: D20Net | None = None
        self.d20_error = "no D20 network asked for"
        if d20_folder is not None:
            try:
                self.d20, self.d20_error = load_d20_net(d20_folder), ""
            except VisionError as e:
                self.d20_error = str(e)

    def patch(self, frame: Image) -> Image:
        """The roll area (with its margin) of `frame`, top-down."""
        return extract(frame, self.H, self.size)

    def read(self, frame: Image) -> RollReading:
        """The dice of `frame`'s roll area, each face read by the network or unknown with a reason."""
        found = self.candidates(frame)
        if found is None:
            return RollReading((), False, 0)
        if self.net is None:
            dice = [self._unknown(c, f"no face network: {self.net_error}") for c in found.dice]
        else:
            guesses = self.net.classify([c.crop for c in found.dice], [c.shape for c in found.dice])
            accepts = [self.net.acceptance(c.hidden_mm2) for c in found.dice]
            if self.d20 is not None:  # a die typed D20 (the face network's kind, a D20's outline): its numeral
                typed = [i for i, (c, g) in enumerate(zip(found.dice, guesses, strict=True))
                         if g.kind == "d20" and c.shape == "icosahedron"]
                for i, g in zip(typed, self.d20.read([found.dice[i].crop for i in typed]), strict=True):
                    guesses[i], accepts[i] = g, {**accepts[i], "d20": self.d20.accept}
            dice = [replace(self._judge(c, g, a), hidden=c.hidden_mm2 > 0)
                    for c, g, a in zip(found.dice, guesses, accepts, strict=True)]
        return RollReading(tuple(sorted(dice, key=lambda d: d.centre_mm)), found.hand, found.unresolved)

    def idle(self, frame: Image) -> None:
        """A frame while no roll is due: only the empty area's model learns from it (`vision.dice_empty`)."""
        self.candidates(frame)

    def candidates(self, frame: Image) -> RollCandidates | None:
        """The things of a die's size in `frame`'s roll area, or None while there is no model of the empty
        area yet (this frame may become it: `vision.dice_empty.EmptyArea`)."""
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise VisionError(f"dice reader: expected a BGR frame, got shape {frame.shape}")
        img = self.patch(frame).astype(np.float32)
        ref0 = self.empty.model
        if ref0 is None:
            self.empty.offer(img, False)
            return None
        # the light's colour and level: per-channel gains over the area (mostly empty table), sampled
        gains = np.median(img[::4, ::4].reshape(-1, 3) / (ref0[::4, ::4].reshape(-1, 3) + 1.0), axis=0)
        ref = np.asarray(ref0 * gains, np.float32)
        diff = _channel_max(np.asarray(cv2.absdiff(img, ref), np.float32))
        ratio = np.asarray(cv2.divide(img + 1.0, ref + 1.0), np.float32)
        hi_r, lo_r = _channel_max(ratio), -_channel_max(-ratio)
        shadow = (hi_r < 0.97) & ((hi_r - lo_r) < 0.22)
        # the difference a die makes scales with the light: in dim light (gains ~0.5) a dark die on a dark
        # table differs by about half of what it does under the reference's light, and fell apart at FG_DIFF.
        # A thing is grown at the scaled threshold but must hold a core above FG_DIFF (hysteresis): the table's
        # own texture, lit unevenly, passes the low threshold in places but never holds such a core.
        thr = max(FG_DIFF_MIN, FG_DIFF * min(1.0, float(np.median(gains))))
        fg = ((diff > thr) & ~shadow).astype(np.uint8)
        fg = np.asarray(cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
        fg = np.asarray(cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)), np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fg)
        core = np.bincount(labels[(diff > FG_DIFF) & (fg > 0)], minlength=n) if thr < FG_DIFF else stats[:, 4]
        dice: list[DieCandidate] = []
        hand, unresolved = False, 0
        lo, hi = self.die_area
        pad = int(SIZE_MM["d20"] * PX_PER_MM * 0.75)  # a die's window reaches this far past its outline
        padded = np.asarray(cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REPLICATE), np.float32)
        table = np.median(img[::4, ::4].reshape(-1, 3), axis=0)
        for i in range(1, n):
            area = int(stats[i, cv2.CC_STAT_AREA])
            if area < lo or core[i] < FG_CORE * lo:
                continue
            if area > 6 * hi:
                hand = True
                continue
            x, y, w, h = (int(v) for v in stats[i, :4])
            blob = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)  # in the padded crop's pixels
            blob[pad:pad + h, pad:pad + w] = labels[y:y + h, x:x + w] == i
            crop = padded[y:y + h + 2 * pad, x:x + w + 2 * pad]
            if _is_table(crop[blob > 0], table):  # a die was in the model: the table shows where it lay
                self.empty.repair(img, _in_patch(blob, (x - pad, y - pad), img.shape[:2]))
                continue
            parts = [blob] if area <= hi else _split(blob, lo)
            if area > hi and len(parts) < 2:
                unresolved += 1
                continue
            for part in parts:
                if int(part.sum()) > hi:
                    unresolved += 1
                    continue
                dice.append(self._candidate(crop, part, gains, (x - pad, y - pad), table,
                                            blob if len(parts) > 1 else None))
        self.empty.offer(img, not dice and not hand and not unresolved)
        return RollCandidates(tuple(dice), hand, unresolved)

    def _candidate(self, img: F32, blob: NDArray[np.uint8], gains: F32, offset: tuple[int, int],
                   table: F32, whole: NDArray[np.uint8] | None = None) -> DieCandidate:
        """One die's blob in `img`, a crop whose pixel (0, 0) is the patch's `offset`; `table` the table's
        colour, painted over everything outside the die's own outline in its face crop. `whole`: the blob of
        touching dice this one was split from (the split line may cut through the die's lit top)."""
        m = cv2.moments(blob, binaryImage=True)
        cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
        centre = (self.origin[0] + (cx + offset[0]) / PX_PER_MM, self.origin[1] + (cy + offset[1]) / PX_PER_MM)
        x0, y0, x1, y1 = self.area
        inside = x0 <= centre[0] <= x1 and y0 <= centre[1] <= y1
        pixels = img[blob > 0]
        owner = self._owner(pixels / gains)
        dominant = int(np.argmax(np.median(pixels, axis=0)))
        chan = np.ascontiguousarray(img[:, :, dominant])
        lit = split_top(chan, blob, whole, self.top_area) if whole is not None else None
        shape, turn = "unknown", 0.0
        if lit is not None:  # the die's whole top, where the split cut it off: shape, centre and crop from it
            shape, turn = _shape(chan, np.asarray(blob | lit, np.uint8), lit)
            if shape != "unknown":
                blob = np.asarray(blob | lit, np.uint8)
        if shape == "unknown":  # no top found, or one that fails the shape test: the part as it was cut
            shape, turn = _shape(chan, blob)
        top = _top_centre(chan, blob, (cx, cy))
        own = _own_pixels(blob)
        crop, hidden = face_crop_hidden(img, top, gains, PX_PER_MM, turn, mask=own, fill=table, shape=shape)
        return DieCandidate(centre, inside, owner, shape, crop, whole is not None, hidden)

    @staticmethod
    def _unknown(c: DieCandidate, why: str) -> DieReading:
        kinds = KIND_OF_SHAPE.get(c.shape, ())
        return DieReading(kinds[0] if len(kinds) == 1 else None, None, c.owner, 0.0, c.centre_mm, c.inside, why,
                          c.shape)

    @staticmethod
    def _judge(c: DieCandidate, g: FaceGuess, accept: dict[str, float]) -> DieReading:
        """The network's guess accepted only at its kind's calibrated acceptance and when the die's shape (4-
        or 3-fold, from the classical reader) does not contradict the kind."""
        guess = f"{g.kind}:{g.face}"
        if c.split and g.kind not in KIND_OF_SHAPE.get(c.shape, ()) and g.probability >= max(accept[g.kind],
                                                                                            SPLIT_ACCEPT):
            # a touching die's cut outline may hide its shape; the network alone, at a stricter bar, names it
            why = "" if c.owner is not None else "colour near no seat's, or near two"
            return DieReading(g.kind, g.face, c.owner, g.probability, c.centre_mm, c.inside, why, c.shape, guess)
        if c.shape not in KIND_OF_SHAPE:  # its crop could not be squared up: the network's input is not its own
            return replace(DiceReader._unknown(c, "shape unknown (neither a cube's nor a D20's outline)"),
                           confidence=g.probability, guess=guess)
        if g.kind not in KIND_OF_SHAPE[c.shape]:
            return replace(DiceReader._unknown(c, f"shape {c.shape} but the face looks like {guess}"),
                           confidence=g.probability, guess=guess)
        if g.probability < accept[g.kind]:
            spot = f", glare may hide {min(c.hidden_mm2, 999.0):.0f} mm2 of its mark" if c.hidden_mm2 > 0 else ""
            return replace(DiceReader._unknown(c, f"face unsure ({guess}? p={g.probability:.3f}{spot})"),
                           confidence=g.probability, guess=guess)
        why = "" if c.owner is not None else "colour near no seat's, or near two"
        return DieReading(g.kind, g.face, c.owner, g.probability, c.centre_mm, c.inside, why, c.shape, guess)

    def _owner(self, pixels: F32) -> str | None:
        """The seat whose dice colour is nearest the die's brighter half (its top, not its walls)."""
        if not self.palette or len(pixels) == 0:
            return None
        lum = pixels.sum(axis=1)
        top = pixels[lum >= np.median(lum)]
        c = _chroma(np.median(top, axis=0))
        ranked = sorted((float(np.linalg.norm(c - p)), seat) for seat, p in self.palette.items())
        if ranked[0][0] > OWNER_MAX:
            return None
        if len(ranked) > 1 and ranked[0][0] > OWNER_RATIO * ranked[1][0]:
            return None
        return ranked[0][1]


def _top_centre(chan: F32, blob: NDArray[np.uint8], centre: tuple[float, float]) -> tuple[float, float]:
    """The centre of a die's top face: its brightest part (lit from above; walls and the D20's sloping faces
    are darker), which lies off the outline's centre when the camera sees a side."""
    values = chan[blob > 0]
    if len(values) < 10:
        return centre
    top = ((chan >= np.percentile(values, 70)) & (blob > 0)).astype(np.uint8)
    top = np.asarray(cv2.morphologyEx(top, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)), np.uint8)
    n, _labels, stats, cents = cv2.connectedComponentsWithStats(top)
    if n < 2:
        return centre
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return (float(cents[k][0]), float(cents[k][1]))


def _own_pixels(blob: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A die's blob with its holes filled (a dark numeral or glare the difference missed) and grown by about
    a millimetre: the pixels its face crop keeps (the rest, a touching neighbour included, becomes table)."""
    contours, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros(blob.shape, np.uint8)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    grow = 2 * round(OWN_GROW_MM * PX_PER_MM) + 1
    return np.asarray(cv2.dilate(filled, np.ones((grow, grow), np.uint8)), np.uint8)


def _channel_max(img: F32) -> F32:
    """The per-pixel maximum over the channels (numpy's reduction over the last axis is several times slower)."""
    b, g, r = cv2.split(img)
    return np.asarray(cv2.max(cv2.max(b, g), r), np.float32)


def _is_table(pixels: F32, table: F32) -> bool:
    """Whether a blob's pixels have the table's colour and brightness (a hole in the empty model)."""
    med = np.median(pixels, axis=0)
    lum, tl = float(med.sum()), max(float(table.sum()), 1.0)
    return bool(np.linalg.norm(_chroma(med) - _chroma(table)) < TABLE_CHROMA and abs(lum / tl - 1.0) < 0.25)


def _in_patch(part: NDArray[np.uint8], offset: tuple[int, int], shape: tuple[int, ...]) -> NDArray[np.bool_]:
    """A blob of a padded crop as a mask of the whole patch, grown by a few pixels."""
    grown = cv2.dilate(part, np.ones((7, 7), np.uint8))
    ys, xs = np.nonzero(grown)
    ys, xs = ys + offset[1], xs + offset[0]
    ok = (ys >= 0) & (xs >= 0) & (ys < shape[0]) & (xs < shape[1])
    mask = np.zeros(shape[:2], bool)
    mask[ys[ok], xs[ok]] = True
    return mask


def _chroma(bgr: NDArray[np.float32]) -> NDArray[np.float32]:
    return np.asarray(bgr / max(float(bgr.sum()), 1.0), np.float32)


def _shape(chan: F32, blob: NDArray[np.uint8], lit: NDArray[np.uint8] | None = None) -> tuple[str, float]:
    """cube, icosahedron or unknown, and the turn (degrees) that squares it up. Read from the die's lit part
    (its top, and for a D20 the three faces around the top; `lit` when already found), not its outline: a die
    off the image's centre shows a wall, which turns a square outline into a hexagon. A cube's lit part has
    4-fold symmetry, the D20's 3-fold."""
    if lit is None:
        if int(np.count_nonzero(blob)) < 20:
            return "unknown", 0.0
        lit = lit_mask(chan, blob)
    contours, _ = cv2.findContours(lit, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return "unknown", 0.0
    outline = max(contours, key=cv2.contourArea)
    m = cv2.moments(outline)
    if m["m00"] <= 0:
        return "unknown", 0.0
    pts = outline.reshape(-1, 2).astype(np.float64)
    d = pts - (m["m10"] / m["m00"], m["m01"] / m["m00"])
    r = np.hypot(d[:, 0], d[:, 1])
    a = np.arctan2(d[:, 1], d[:, 0])
    step = np.hypot(*np.diff(pts, axis=0, append=pts[:1]).T)  # weigh by arc length, not by point count
    w = step / step.sum()
    z3, z4 = np.sum(w * r * np.exp(3j * a)), np.sum(w * r * np.exp(4j * a))
    c3, c4 = abs(z3) / r.mean(), abs(z4) / r.mean()
    # the turn that sets a cube's edges square to the image (up to quarter turns), or the D20's top triangle
    # upright (up to thirds of a turn): the crop is turned by it, so the network need not learn every turn
    if c4 > 1.5 * c3 and c4 > 0.02:
        return "cube", math.degrees(float(np.angle(z4))) / 4.0 - 45.0
    if c3 > 1.5 * c4 and c3 > 0.03:
        return "icosahedron", math.degrees(float(np.angle(z3))) / 3.0 + 30.0
    return "unknown", 0.0


def _split(blob: NDArray[np.uint8], min_area: float) -> list[NDArray[np.uint8]]:
    """Touching dice: the blob eroded until it falls apart, each core grown back within the blob."""
    dist = cv2.distanceTransform(blob, cv2.DIST_L2, 5)
    top = float(dist.max())
    for frac in (0.45, 0.55, 0.65, 0.75):
        cores = (dist > frac * top).astype(np.uint8)
        n, labels = cv2.connectedComponents(cores)
        if n - 1 >= 2:
            markers = labels.astype(np.int32)
            markers[(blob > 0) & (cores == 0)] = 0
            markers[blob == 0] = n  # the background is its own basin
            canvas = cv2.cvtColor(blob * 255, cv2.COLOR_GRAY2BGR)
            cv2.watershed(canvas, markers)
            parts = [(markers == k).astype(np.uint8) for k in range(1, n)]
            parts = [p for p in parts if p.sum() >= min_area * 0.6]
            if len(parts) >= 2:
                return parts
    return _cut_pair(blob, min_area)


def _cut_pair(blob: NDArray[np.uint8], min_area: float) -> list[NDArray[np.uint8]]:
    """Two dice pressed side by side (no neck for the erosion to find: their blob is a 2:1 bar): cut across
    the blob's long axis at its narrowest place in the middle third, when the blob is that elongated. A blob
    that is not (a pile, a hand's edge) stays whole and is reported unresolved."""
    ys, xs = np.nonzero(blob)
    pts = np.stack([xs, ys], axis=1).astype(np.float64)
    centre = pts.mean(axis=0)
    evals, evecs = np.linalg.eigh(np.cov((pts - centre).T))
    if evals[0] <= 0 or evals[1] / evals[0] < PAIR_ELONGATION:
        return [blob]
    t = (pts - centre) @ evecs[:, 1]
    lo_t, hi_t = np.percentile(t, (33.0, 67.0))
    bins = np.arange(math.floor(lo_t), math.ceil(hi_t) + 1)
    counts = np.array([int(np.sum(np.abs(t - b) < 0.5)) for b in bins])
    cut = float(bins[int(np.argmin(counts + 1e-3 * np.abs(bins)))])  # the narrowest; ties: nearest the middle
    parts = []
    for side in (t < cut, t >= cut):
        part = np.zeros_like(blob)
        part[ys[side], xs[side]] = 1
        parts.append(part)
    return parts if all(p.sum() >= min_area * 0.6 for p in parts) else [blob]
