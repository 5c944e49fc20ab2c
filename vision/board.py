"""Reading the table: what is on every stand and mat slot of a calibrated overhead frame.

``BoardReader.read`` rectifies each stand and slot region with the calibrated pose, classifies it, and
marks regions covered by hands or arms as obstructed. An obstructed region keeps its last unobstructed
state (confidence 0), so an obstruction is never reported as a change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from vision.assets import asset, check_frame
from vision.colour import F32, chroma
from vision.errors import VisionError
from vision.obstruction import ObstructionFinder
from vision.regions import SLOT_Z_MM, Region, slot_regions, stand_regions
from vision.slots import mat_reference, read_slot
from vision.stands import StandClassifier
from vision.warp import extract


@dataclass(frozen=True)
class StandObs:
    state: str  # "empty" | "capital" | "basecamp" | "soul"
    owner: str | None
    count: int
    confidence: float
    obstructed: bool
    flipped: bool = False


@dataclass(frozen=True)
class SlotObs:
    state: str  # "empty" | "down" | "up" | "landscape"
    payload: str | None
    confidence: float
    obstructed: bool


@dataclass(frozen=True)
class BoardObservation:
    stands: dict[str, StandObs]
    slots: dict[str, SlotObs]
    obstructed: bool
    obstructed_regions: tuple[tuple[int, int, int, int], ...]


class BoardReader:
    """Reads frames of one calibrated table. ``reference`` (a frame of the empty table from the same
    camera) makes obstruction detection and empty/occupied decisions much more robust."""

    def __init__(self, layout: TableLayout, pose: CameraPose, palette: dict[str, tuple[int, int, int]],
                 reference: np.ndarray | None = None) -> None:
        self.layout = layout
        self.pose = pose
        self.stand_regions: dict[str, Region] = stand_regions(layout, pose)
        self.slot_regions: dict[str, Region] = slot_regions(layout, pose)
        self.classifier = StandClassifier(palette)
        self.palette = dict(palette)
        self._ref_patches: dict[str, tuple[F32, F32]] = {}
        self._ref_slots: dict[str, tuple[F32, F32]] = {}
        self.finder: ObstructionFinder | None = None
        self.last_stands: dict[str, StandObs] = {}
        self.last_slots: dict[str, SlotObs] = {}
        if reference is not None:
            ref = self._check(reference, "reference")
            for rid, reg in self.stand_regions.items():
                self._ref_patches[rid] = chroma(extract(ref, reg.H, reg.size))
            for rid, reg in self.slot_regions.items():
                self._ref_slots[rid] = chroma(extract(ref, reg.H, reg.size))
            self.finder = ObstructionFinder(ref, {**self.stand_regions, **self.slot_regions})
        else:
            mat = asset(layout.mat_image)
            to_plane = np.linalg.inv(pose.plane_homography(SLOT_Z_MM))
            for rid, reg in self.slot_regions.items():
                self._ref_slots[rid] = chroma(mat_reference(mat, layout.mat_size_mm, to_plane @ reg.H, reg.size))

    def _check(self, frame: object, what: str) -> NDArray[np.uint8]:
        img = check_frame(frame, what)
        w, h = self.pose.image_size
        if img.shape[1] != w or img.shape[0] != h:
            raise VisionError(f"{what}: {img.shape[1]}x{img.shape[0]} does not match the calibrated {w}x{h}")
        return img

    def read(self, frame: np.ndarray, only: Iterable[str] | None = None) -> BoardObservation:
        """Observe every stand and slot, or only the ids in ``only`` (the others repeat the last reading)."""
        img = self._check(frame, "frame")
        wanted = set(only) if only is not None else None
        if wanted is not None:
            unknown = wanted - set(self.stand_regions) - set(self.slot_regions)
            if unknown:
                raise VisionError(f"only: unknown stand or slot ids {sorted(unknown)}")
        mask, boxes = (None, ()) if self.finder is None else self.finder.find(img)
        stands: dict[str, StandObs] = {}
        for sid, reg in self.stand_regions.items():
            if wanted is not None and sid not in wanted and sid in self.last_stands:
                stands[sid] = self.last_stands[sid]
                continue
            stands[sid] = self._read_stand(img, sid, reg, mask)
        slots: dict[str, SlotObs] = {}
        for sid, reg in self.slot_regions.items():
            if wanted is not None and sid not in wanted and sid in self.last_slots:
                slots[sid] = self.last_slots[sid]
                continue
            slots[sid] = self._read_slot(img, sid, reg, mask)
        self.last_stands.update({k: v for k, v in stands.items() if not v.obstructed})
        self.last_slots.update({k: v for k, v in slots.items() if not v.obstructed})
        any_obstructed = bool(boxes) or any(v.obstructed for v in stands.values()) or any(
            v.obstructed for v in slots.values())
        return BoardObservation(stands, slots, any_obstructed, boxes)

    def _covered(self, mask: NDArray[np.uint8] | None, rid: str) -> bool:
        return mask is not None and self.finder is not None and self.finder.covered(mask, rid)

    def _read_stand(self, img: NDArray[np.uint8], sid: str, reg: Region, mask: NDArray[np.uint8] | None) -> StandObs:
        spec = self.layout.stand(sid)
        patch = extract(img, reg.H, reg.size)
        r = self.classifier.classify(patch, spec.kind, spec.size_mm, reg.px_per_mm, self._ref_patches.get(sid))
        if r.obstructed or self._covered(mask, sid):
            prev = self.last_stands.get(sid)
            if prev is not None:
                return StandObs(prev.state, prev.owner, prev.count, 0.0, True, prev.flipped)
            return StandObs(r.state, r.owner, r.count, 0.0, True, r.flipped)
        return StandObs(r.state, r.owner, r.count, r.confidence, False, r.flipped)

    def _read_slot(self, img: NDArray[np.uint8], sid: str, reg: Region, mask: NDArray[np.uint8] | None) -> SlotObs:
        state, payload, conf, obstructed = read_slot(img, reg.H, reg.size, reg.px_per_mm, self._ref_slots[sid],
                                                     self.layout.card_size_mm, skin_check=self.finder is None)
        obs = SlotObs(state, payload, conf, obstructed)
        if obs.obstructed or self._covered(mask, sid):
            prev = self.last_slots.get(sid)
            if prev is not None:
                return SlotObs(prev.state, prev.payload, 0.0, True)
            return SlotObs(obs.state, obs.payload, 0.0, True)
        return obs
