"""Where a calibrated pose puts the reader's regions, and how what the reader learned follows a new pose.

``BoardReader`` reads every stand, slot and under-mat area through a rectifying homography computed from
the pose (``placement``). When the camera is knocked and re-posed during play (``tracker``'s pose watch),
the reader is re-posed in place (``BoardReader.repose``) instead of being built anew, so a table without a
photo of its empty state does not have to learn it again:

- the per-region empty models and looks are kept as they are: they are patches of rectified regions
  (millimetres of the table at a fixed scale), which do not depend on where the camera stands; a region
  whose patch size changed with the pose (an under-mat area cut by the image border) starts again;
- the table's quarter-resolution global model (light, obstruction and motion reference) is image-bound:
  it is warped to the new pose by the mat plane's homography (``moved_small``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from vision.assets import asset
from vision.colour import F32, chroma
from vision.light import SMALL
from vision.observation import under_id
from vision.regions import SLOT_Z_MM, STAND_READ_PX_PER_MM, Region, slot_regions, stand_regions, under_regions
from vision.slot_qr import qr_window
from vision.slots import mat_reference, qr_homography
from vision.warp import prepare

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Placement:
    """Every pose-dependent part of a reader: the regions, their boxes at quarter resolution (for the
    change test) and the mat's own look in each slot (what an empty slot shows without a photo). ``stands``
    are cut for the stand decision (``STAND_READ_PX_PER_MM``), ``inputs`` for the patch classifier (its own
    ``STAND_PX_PER_MM``)."""

    stands: dict[str, Region]
    inputs: dict[str, Region]
    slots: dict[str, Region]
    under: dict[str, Region]
    small_boxes: dict[str, Box]
    mat_slots: dict[str, tuple[F32, F32]]

    def size_of(self, rid: str) -> tuple[int, int] | None:
        reg = self.stands.get(rid) or self.slots.get(rid) or self.under.get(rid)
        return None if reg is None else reg.size


def placement(layout: TableLayout, pose: CameraPose) -> Placement:
    """The regions of ``layout`` as ``pose`` sees them."""
    stands = stand_regions(layout, pose, STAND_READ_PX_PER_MM)
    slots = slot_regions(layout, pose)
    under = {under_id(k): r for k, r in under_regions(layout, pose).items()}
    boxes = {rid: small_box(reg.box, pose.image_size) for rid, reg in {**stands, **slots, **under}.items()}
    mat = asset(layout.mat_image)
    to_plane = np.linalg.inv(pose.plane_homography(SLOT_Z_MM))
    mat_slots = {rid: chroma(mat_reference(mat, layout.mat_size_mm, to_plane @ reg.H, reg.size))
                 for rid, reg in slots.items()}
    return Placement(stands, stand_regions(layout, pose), slots, under, boxes, mat_slots)


def small_box(box: Box, size: tuple[int, int]) -> Box:
    """A full-resolution box at quarter resolution, clipped to the image of ``size`` (w, h)."""
    w, h = size[0] // SMALL, size[1] // SMALL
    x0, y0, x1, y1 = box
    return (max(x0 // SMALL, 0), max(y0 // SMALL, 0), min(-(-x1 // SMALL), w), min(-(-y1 // SMALL), h))


def moved_small(small: NDArray[np.uint8], old: CameraPose, new: CameraPose) -> NDArray[np.uint8]:
    """A quarter-resolution image taken with ``old``, as ``new`` would see it (the mat plane's homography;
    what came into view only now is filled from the nearest border)."""
    S = np.diag([1.0 / SMALL, 1.0 / SMALL, 1.0])
    H = S @ new.plane_homography(0.0) @ np.linalg.inv(old.plane_homography(0.0)) @ np.linalg.inv(S)
    return np.asarray(cv2.warpPerspective(small, H, (small.shape[1], small.shape[0]), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE), np.uint8)


def prepare_maps(plain: list[Region], slots: dict[str, Region], card_size_mm: tuple[float, float],
                 image_size: tuple[int, int], qr_windows: bool) -> None:
    """Compute once the sampling maps every frame reads the regions through: ``plain`` (the stands as the
    classifier cuts them, the decision's patches resampled from those, and the under-mat areas) and the
    slots, with each slot's QR views (``qr_windows``: also the window face-down codes are fused in)."""
    shape = (image_size[1], image_size[0], 3)
    for reg in plain:
        prepare(reg.H, reg.size, shape)
    for reg in slots.values():
        prepare(reg.H, reg.size, shape)
        Hq, n = qr_homography(reg.H, reg.px_per_mm, reg.size, card_size_mm)
        prepare(Hq, (n, n), shape)
        if qr_windows:
            win = qr_window(reg.H, reg.px_per_mm, reg.size)
            prepare(win.H, (win.side, win.side), shape)
