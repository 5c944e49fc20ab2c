"""The dice in the roll area of one overhead frame: which dice, whose colour, which face is up.

Only the roll area is looked at (a few hundred thousand pixels of a 2028 x 1520 frame), and only when the
table expects a roll. The area (with a margin around it, to see dice that rolled out) is rectified to a
top-down patch at `PX_PER_MM` on the plane of the dice's tops, compared with the same patch of the empty
table (light adapted by per-channel gains; shadows, darker with the table's own colour, are not things),
and each thing of a die's size is read: its outline says cube or icosahedron, its colour which seat, and
`vision.dice_marks` which face is up. Whatever is unsure is "unknown", never a guess: a face whose match
margin gives a confidence below `ACCEPT`, a colour near no seat or near two, dice touching so that they
cannot be told apart, something larger than a die (a hand) in the area.

Whether the dice are *at rest* (the same reading over a few frames, no hand) is the table's business
(`tracker.table.dice_watch`); this module reads one frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from vision.dice_faces import SHAPE, SIZE_MM
from vision.dice_marks import match_face, turns
from vision.errors import VisionError
from vision.warp import Image, Mat3, extract, scale, translate

PX_PER_MM = 3.0
TOP_Z_MM = 17.0  # the plane the area is rectified on: the dice's tops
SEARCH_MM = 2.0  # how far the mark may lie from the top's bright centre
MARGIN_MM = 35.0  # seen around the area, so a die that rolled out is noticed
# A calibrated confidence from the match margin, per die kind: a logistic fitted on renders of the tuning
# seed (`bench/bench_dice.py --fit --seed 1`), reported on another seed. Accepted only at `ACCEPT` or above.
CONFIDENCE: dict[str, tuple[float, float]] = {"diel": (136.9, -4.58), "d6": (20.7, 1.19), "d20": (105.0, -0.14)}
# Per kind, just above the most confident wrong match on the tuning seed (so none was accepted there).
ACCEPT_BY_KIND: dict[str, float] = {"diel": 0.71, "d6": 0.996, "d20": 0.91}
ACCEPT = 0.0  # a floor under `ACCEPT_BY_KIND` (the bench's --fit sets nothing else)
MIN_SCORE = 0.35
OWNER_RATIO = 0.55  # the nearest seat colour must be this much nearer than the next one
OWNER_MAX = 0.12  # chromaticity distance beyond which a die is no seat's
F32 = NDArray[np.float32]


@dataclass(frozen=True)
class DieReading:
    """One die: its kind, face and owner (each None when unknown), the confidence of the face, where it lies
    (mat mm), whether it lies inside the roll area, and why something is unknown."""

    kind: str | None
    face: str | None
    owner: str | None
    confidence: float
    centre_mm: tuple[float, float]
    inside: bool
    why: str = ""
    shape: str = "unknown"  # cube, icosahedron or unknown, from the die's lit part
    margin: float = 0.0  # the face match's margin over the next face (what the confidence is fitted on)

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


def _fitting() -> bool:
    """The bench's --fit sets `ACCEPT` negative: every best match is returned with its margin."""
    return ACCEPT < 0


def confidence(kind: str, margin: float) -> float:
    """P(face right | match margin) for a die of `kind`, the logistic of `CONFIDENCE[kind]`."""
    a, b = CONFIDENCE[kind]
    return 1.0 / (1.0 + math.exp(-(a * margin + b)))


class DiceReader:
    """Reads the dice in `layout`'s roll area from frames of a camera at `pose`; `palette` maps seats to their
    dice's colour (BGR); `reference` is a frame of the empty table."""

    def __init__(self, layout: TableLayout, pose: CameraPose, palette: dict[str, tuple[int, int, int]],
                 reference: Image) -> None:
        if layout.roll_area_mm is None:
            raise VisionError("the table layout has no roll area (mat file key roll_area_mm)")
        self.area = layout.roll_area_mm
        x0, y0, x1, y1 = self.area
        self.origin = (x0 - MARGIN_MM, y0 - MARGIN_MM)
        self.size = (int((x1 - x0 + 2 * MARGIN_MM) * PX_PER_MM), int((y1 - y0 + 2 * MARGIN_MM) * PX_PER_MM))
        self.H: Mat3 = pose.plane_homography(TOP_Z_MM) @ translate(*self.origin) @ scale(1.0 / PX_PER_MM)
        self.palette = {seat: _chroma(np.array(c, np.float32)) for seat, c in palette.items()}
        self.ref = extract(reference, self.H, self.size).astype(np.float32)
        die_px = (SIZE_MM["d6"] * PX_PER_MM) ** 2
        self.die_area = (0.4 * die_px, 1.9 * die_px)

    def patch(self, frame: Image) -> Image:
        """The roll area (with its margin) of `frame`, top-down."""
        return extract(frame, self.H, self.size)

    def read(self, frame: Image) -> RollReading:
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise VisionError(f"dice reader: expected a BGR frame, got shape {frame.shape}")
        raw = self.patch(frame)
        img = raw.astype(np.float32)
        # the light's colour and level: per-channel gains over the area (mostly empty table), sampled
        gains = np.median(img[::4, ::4].reshape(-1, 3) / (self.ref[::4, ::4].reshape(-1, 3) + 1.0), axis=0)
        ref = self.ref * gains
        diff = cv2.absdiff(img, ref).max(axis=2)
        ratio = cv2.divide(img + 1.0, ref + 1.0)
        hi_r, lo_r = ratio.max(axis=2), ratio.min(axis=2)
        shadow = (hi_r < 0.97) & ((hi_r - lo_r) < 0.22)
        fg = ((diff > 30) & ~shadow).astype(np.uint8)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(fg)
        dice: list[DieReading] = []
        hand, unresolved = False, 0
        lo, hi = self.die_area
        pad = int(SIZE_MM["d20"] * PX_PER_MM * 0.75)  # a die's window reaches this far past its outline
        padded = np.asarray(cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REPLICATE), np.float32)
        for i in range(1, n):
            area = int(stats[i, cv2.CC_STAT_AREA])
            if area < lo:
                continue
            if area > 6 * hi:
                hand = True
                continue
            x, y, w, h = (int(v) for v in stats[i, :4])
            blob = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)  # in the padded crop's pixels
            blob[pad:pad + h, pad:pad + w] = labels[y:y + h, x:x + w] == i
            crop = padded[y:y + h + 2 * pad, x:x + w + 2 * pad]
            parts = [blob] if area <= hi else _split(blob, lo)
            if area > hi and len(parts) < 2:
                unresolved += 1
                continue
            for part in parts:
                if int(part.sum()) > hi:
                    unresolved += 1
                    continue
                dice.append(self._die(crop, part, gains, (x - pad, y - pad), pad))
        return RollReading(tuple(sorted(dice, key=lambda d: d.centre_mm)), hand, unresolved)

    def _die(self, img: F32, blob: NDArray[np.uint8], gains: F32, offset: tuple[int, int], half: int) -> DieReading:
        """One die's blob in `img`, a crop whose pixel (0, 0) is the patch's `offset`, with `half` pixels of
        room around the blob for the face's window."""
        m = cv2.moments(blob, binaryImage=True)
        cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
        centre = (self.origin[0] + (cx + offset[0]) / PX_PER_MM, self.origin[1] + (cy + offset[1]) / PX_PER_MM)
        x0, y0, x1, y1 = self.area
        inside = x0 <= centre[0] <= x1 and y0 <= centre[1] <= y1
        pixels = img[blob > 0]
        owner = self._owner(pixels / gains)
        dominant = int(np.argmax(np.median(pixels, axis=0)))
        chan = np.ascontiguousarray(img[:, :, dominant])
        shape, outline_deg = _shape(chan, blob, (cx, cy))
        cube, d20 = turns(outline_deg, 4), turns(outline_deg, 3)
        kinds = {"cube": {"d6": cube, "diel": cube}, "icosahedron": {"d20": d20}}.get(
            shape, {"d6": turns(None, 4), "diel": turns(None, 4), "d20": turns(None, 3)})
        tx, ty = _top_centre(chan, blob, (cx, cy))
        ix = min(max(round(tx), half), chan.shape[1] - half - 1)
        iy = min(max(round(ty), half), chan.shape[0] - half - 1)
        window = np.ascontiguousarray(chan[iy - half:iy + half + 1, ix - half:ix + half + 1])
        found = match_face(window, kinds, PX_PER_MM, search_mm=SEARCH_MM)
        if found is None or found.score < MIN_SCORE:
            return DieReading(None if shape == "unknown" else _kind_of(shape), None, owner, 0.0, centre, inside,
                              "no face mark found", shape)
        conf = confidence(found.kind, found.margin)
        if conf < max(ACCEPT, ACCEPT_BY_KIND[found.kind] if ACCEPT > 0 or not _fitting() else 0.0):
            return DieReading(found.kind if SHAPE[found.kind] == shape else None, None, owner, conf, centre, inside,
                              f"face unsure ({found.kind} {found.face}? confidence {conf:.2f})", shape,
                              found.margin)
        why = "" if owner is not None else "colour near no seat's, or near two"
        return DieReading(found.kind, found.face, owner, conf, centre, inside, why, shape, found.margin)

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


def _chroma(bgr: NDArray[np.float32]) -> NDArray[np.float32]:
    return np.asarray(bgr / max(float(bgr.sum()), 1.0), np.float32)


def _kind_of(shape: str) -> str | None:
    return "d20" if shape == "icosahedron" else None  # a cube is a D6 or the diel die: its face tells


def _shape(chan: F32, blob: NDArray[np.uint8], centre: tuple[float, float]) -> tuple[str, float | None]:
    """cube, icosahedron or unknown, and the turn of a mark upright on the top face (in
    `vision.dice_faces.mark`'s sense), None when unknown. Read from the die's lit part (its top, and for a D20
    the three faces around the top), not its outline: a die off the image's centre shows a wall, which turns
    a square outline into a hexagon. A cube's lit part has 4-fold symmetry, the D20's 3-fold."""
    values = chan[blob > 0]
    if len(values) < 20:
        return "unknown", None
    lit = ((chan >= 0.7 * np.percentile(values, 95)) & (blob > 0)).astype(np.uint8)
    lit = np.asarray(cv2.morphologyEx(lit, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8)), np.uint8)
    contours, _ = cv2.findContours(lit, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return "unknown", None
    outline = max(contours, key=cv2.contourArea)
    m = cv2.moments(outline)
    if m["m00"] <= 0:
        return "unknown", None
    pts = outline.reshape(-1, 2).astype(np.float64)
    d = pts - (m["m10"] / m["m00"], m["m01"] / m["m00"])
    r = np.hypot(d[:, 0], d[:, 1])
    a = np.arctan2(d[:, 1], d[:, 0])
    step = np.hypot(*np.diff(pts, axis=0, append=pts[:1]).T)  # weigh by arc length, not by point count
    w = step / step.sum()
    z3, z4 = np.sum(w * r * np.exp(3j * a)), np.sum(w * r * np.exp(4j * a))
    c3, c4 = abs(z3) / r.mean(), abs(z4) / r.mean()
    # a cube's corners lie 45 degrees off its mark's upright; the D20's lit part points 30 degrees off its top
    # triangle's upright; the image's y runs down and a mark turns counter-clockwise: hence the signs
    if c4 > 1.5 * c3 and c4 > 0.02:
        return "cube", -(math.degrees(float(np.angle(z4))) / 4.0 - 45.0)
    if c3 > 1.5 * c4 and c3 > 0.03:
        return "icosahedron", -(math.degrees(float(np.angle(z3))) / 3.0 + 30.0)
    return "unknown", None


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
    return [blob]
