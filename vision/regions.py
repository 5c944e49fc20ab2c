"""Where each stand and slot is in the frame: rectifying homographies from the calibrated pose.

A stand's patch is a square of the stand's plane (at the height where pieces stand) centred on the stand
and aligned with it, sampled at ``STAND_PX_PER_MM`` (the patch classifier's input, and what training cuts)
or, for the reader's own decision, at ``STAND_READ_PX_PER_MM``; a slot's patch is its rectangle on the mat.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraPose
from calibration.layout import SlotSpec, TableLayout
from vision.warp import Image, Mat3, apply, extract, rotate, scale, translate

STAND_PX_PER_MM = 3.0
# the stand decision's resolution: about the 2028x1520 frame's own (~1.9 px/mm at the table's scale); at
# STAND_PX_PER_MM it worked on 2.25x the pixels the camera saw (issue 14; docs/overhead.md "Speed")
STAND_READ_PX_PER_MM = 2.0
SLOT_PX_PER_MM = 1.0
SLOT_Z_MM = 0.3
READ_LIFT_MM = 4.0  # read stands a little above their top: pieces are 4..11 mm tall
CORE_GROW_MM = 2.0
STAND_PATCH_MM = {"territory": 30.0, "movement": 26.0}


@dataclass(frozen=True)
class Region:
    """One rectified region: patch size (w, h) in px, patch px -> frame px homography, frame bbox."""

    id: str
    kind: str  # "territory" | "movement" | "slot"
    size: tuple[int, int]
    H: Mat3
    px_per_mm: float
    box: tuple[int, int, int, int]
    polygon: np.ndarray
    core: np.ndarray  # the pixels that matter: the stand's top (grown a little) or the slot
    # the same square cut finer (the classifier's, at STAND_PX_PER_MM) that this patch is resampled from
    source: Region | None = None

    def corners(self) -> np.ndarray:
        w, h = self.size
        return apply(self.H, np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))


def _box(pts: np.ndarray) -> tuple[int, int, int, int]:
    x0, y0 = np.floor(pts.min(0)).astype(int)
    x1, y1 = np.ceil(pts.max(0)).astype(int)
    return (int(x0), int(y0), int(x1), int(y1))


def stand_regions(layout: TableLayout, pose: CameraPose, px_per_mm: float = STAND_PX_PER_MM) -> dict[str, Region]:
    """Every stand's patch at ``px_per_mm`` (the classifier's STAND_PX_PER_MM unless given). A coarser patch
    (the decision's ``STAND_READ_PX_PER_MM``) is resampled from the classifier's (``cut``): one rectification
    a stand and frame serves both."""
    finer = stand_regions(layout, pose) if px_per_mm < STAND_PX_PER_MM else {}
    out: dict[str, Region] = {}
    for s in layout.stands:
        x, y, z = layout.stand_world(s.id)
        side = STAND_PATCH_MM[s.kind]
        n = round(side * px_per_mm)
        H = pose.plane_homography(z + READ_LIFT_MM) @ translate(x, y) @ rotate(s.angle_deg) @ scale(
            1.0 / px_per_mm) @ translate(-n / 2.0, -n / 2.0)
        poly = apply(H, np.array([[0, 0], [n, 0], [n, n], [0, n]], dtype=np.float64))
        hw, hh = s.size_mm[0] / 2 + CORE_GROW_MM, s.size_mm[1] / 2 + CORE_GROW_MM
        if s.kind == "territory":
            local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
        else:
            a = np.linspace(0, 2 * np.pi, 20, endpoint=False)
            local = np.column_stack([hw * np.cos(a), hw * np.sin(a)])
        core = apply(H, local * px_per_mm + n / 2.0)
        out[s.id] = Region(s.id, s.kind, (n, n), H, px_per_mm, _box(poly), poly, core, finer.get(s.id))
    return out


def slot_regions(layout: TableLayout, pose: CameraPose, px_per_mm: float = SLOT_PX_PER_MM) -> dict[str, Region]:
    """Slot patches, rotated so that the top of a card in the slot is at the top of the patch."""
    out: dict[str, Region] = {}
    P = pose.plane_homography(SLOT_Z_MM)
    for s in layout.slots:
        x0, y0, x1, y1 = s.rect_mm
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        w, h = x1 - x0, y1 - y0
        if s.up_deg in (90.0, 270.0):
            w, h = h, w
        pw, ph = round(w * px_per_mm), round(h * px_per_mm)
        H = P @ translate(cx, cy) @ rotate(s.up_deg) @ scale(1.0 / px_per_mm) @ translate(-pw / 2.0, -ph / 2.0)
        poly = apply(H, np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], dtype=np.float64))
        out[s.id] = Region(s.id, "slot", (pw, ph), H, px_per_mm, _box(poly), poly, poly)
    return out


UNDER_GAP_MM = 2.0  # from the mat's edge: the mat's own edge and shadow are not read
UNDER_SIDE_MM = 16.0  # beyond each side of the card's width: a card slid in a little off-centre still fits
UNDER_REACH_MM = (60.0, 90.0)  # how far out the area read reaches: at least, and at most where the frame allows
UNDER_PX_PER_MM = 1.0  # a card's end is 63 mm wide; 2 px/mm was half of all the pixels a full read rectified


def _bottom_edge(s: SlotSpec) -> Mat3:
    """Slot frame -> mat mm: the origin at the middle of the edge a card's bottom points to, y outwards."""
    x0, y0, x1, y1 = s.rect_mm
    half = (y1 - y0) / 2 if s.up_deg in (0.0, 180.0) else (x1 - x0) / 2
    return translate((x0 + x1) / 2, (y0 + y1) / 2) @ rotate(s.up_deg) @ translate(0.0, half)


def on_mat_edge(layout: TableLayout, slot_id: str, tol_mm: float = 2.0) -> bool:
    """Whether the edge of `slot_id` that a card's bottom points to is the mat's own edge: only there can a
    card be slid under the mat with its end showing (the transit slots lie inside the mat)."""
    x, y = (float(v) for v in apply(_bottom_edge(layout.slot(slot_id)), np.zeros((1, 2)))[0])
    mw, mh = layout.mat_size_mm
    return min(abs(x), abs(x - mw), abs(y), abs(y - mh)) <= tol_mm


def under_regions(layout: TableLayout, pose: CameraPose, px_per_mm: float = UNDER_PX_PER_MM) -> dict[str, Region]:
    """Per slot on the mat's edge, the area of table beyond that edge where a card played hidden (face down
    under the mat, #placement_how) shows its end, as far out as the frame allows (at least 60 mm; slots
    whose area the camera cannot see are left out). Keyed by slot id; the patch is oriented like the slot's
    (a card's top up), its top row along the mat's edge."""
    out: dict[str, Region] = {}
    P = pose.plane_homography(0.0)
    w_img, h_img = pose.image_size
    width = layout.card_size_mm[0] + 2 * UNDER_SIDE_MM
    for s in layout.slots:
        if not on_mat_edge(layout, s.id):
            continue
        H = P @ _bottom_edge(s) @ translate(-width / 2, UNDER_GAP_MM) @ scale(1.0 / px_per_mm)
        pw = round(width * px_per_mm)
        for reach in np.arange(UNDER_REACH_MM[1], UNDER_REACH_MM[0] - 1e-6, -5.0):
            ph = round(float(reach) * px_per_mm)
            poly = apply(H, np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], dtype=np.float64))
            if poly.min() >= 0 and poly[:, 0].max() <= w_img and poly[:, 1].max() <= h_img:
                out[s.id] = Region(s.id, "under", (pw, ph), H, px_per_mm, _box(poly), poly, poly)
                break
    return out


def centre_mm(reg: Region, pose: CameraPose, z_mm: float = 0.0) -> tuple[float, float]:
    """The middle of a region's patch in the mat frame (mm), on the plane at height `z_mm`."""
    w, h = reg.size
    pt = np.linalg.inv(pose.plane_homography(z_mm)) @ reg.H @ np.array([w / 2.0, h / 2.0, 1.0])
    return float(pt[0] / pt[2]), float(pt[1] / pt[2])


def moved(reg: Region, correction: Mat3) -> Region:
    """``reg`` seen through ``correction`` (model px -> frame px): where it lies once the camera moved."""
    H = correction @ reg.H
    poly = apply(correction, reg.polygon)
    x0, y0 = np.floor(poly.min(0)).astype(int)
    x1, y1 = np.ceil(poly.max(0)).astype(int)
    return Region(reg.id, reg.kind, reg.size, H, reg.px_per_mm, (int(x0), int(y0), int(x1), int(y1)), poly,
                  apply(correction, reg.core), None if reg.source is None else moved(reg.source, correction))


def cut(img: Image, reg: Region) -> Image:
    """``reg``'s patch of ``img``: rectified (``vision.warp.extract``), or, for a region with a ``source``, that
    finer patch (cut once a frame inside ``vision.warp.one_frame``, where the classifier cuts it too) shrunk
    bilinearly, ~3 ns a pixel against a rectification's ~8 (docs/overhead.md, speed14)."""
    if reg.source is None:
        return extract(img, reg.H, reg.size)
    fine = extract(img, reg.source.H, reg.source.size)
    return np.asarray(cv2.resize(fine, reg.size, interpolation=cv2.INTER_LINEAR), np.uint8)
