"""Reading the table: what is on every stand and mat slot of a calibrated overhead frame, or "unknown".

``BoardReader.read`` rectifies each stand and slot region with the calibrated pose and decides what is
there. The decision never lies: a region is read only when everything that differs from its empty model
is explained by one piece (or one card); a hand, a phone, a die, glare or crumbs make it *unknown*
(``obstructed``, confidence 0, with a ``reason``), and it keeps its last reading. Around the per-region
decision:

- light: each frame's white balance and exposure are measured against the table's model and removed
  from every patch (``vision.light``); shadows and gradients are taken out per patch;
- camera: a slide of the view is noticed every frame and followed with a homography (``vision.motion``);
- the empty model refreshes itself from regions that stay confidently empty (``vision.empty_model``), so
  a table without a photo of its empty state learns it during the game;
- when most regions are unknown, the observation says why: ``unreadable`` ("too dark", "camera moved",
  "glare", "covered").

``strict=False`` keeps the previous decision (fixed photo, thresholds only) for the benchmark's
before/after comparison.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from vision.adapt import Adaptation
from vision.assets import check_frame
from vision.change import RegionChanges
from vision.colour import F32, chroma
from vision.empty_model import EmptyModels
from vision.errors import VisionError
from vision.frame_blur import FrameBlur
from vision.graze import COVERED, PIECE, blob_verdict
from vision.legacy_read import read_legacy
from vision.light import SMALL, KeptModel, LightModel, bgr_of, normalise, saturated_fraction, shrink, small_of
from vision.memo import IdentityMemo
from vision.motion import MotionGuard
from vision.observation import (
    CONFIDENT_EMPTY,
    BoardObservation,
    SlotObs,
    StandObs,
    code_only,
    settled,
    under_slot,
    unread_slot,
    unread_stand,
)
from vision.obstruction import ObstructionFinder
from vision.palette import hidden_owner, map_mask, map_share
from vision.patch_classifier import PatchClassifier, SecondOpinion
from vision.read_plan import ReadPlan
from vision.regions import Region, cut, moved
from vision.repose import Placement, moved_small, placement, prepare_maps
from vision.slot_qr import qr_window
from vision.slot_qr_fusion import QrFusion
from vision.slots import card_code, read_slot
from vision.stand_stack import StandPasses, stand_inputs, stand_passes
from vision.stands import StandClassifier, prepare_model
from vision.under_mat import read_under
from vision.warp import extract, one_frame

UNREADABLE_FRACTION = 0.5
AMBIGUOUS_SHARE = 0.08  # of the map looking like a player's colour: more than all of one player's pieces
QR_RETRIES = 8  # unchanged frames in which a face-down card whose QR did not decode is read again
QUICK_RETRIES = 1  # unchanged face-down codes decoded again per frame (~4 ms each); the others wait a frame
QR_BUDGET_S = 0.3  # CPU s per frame for face-down codes the plain decoders miss (the other slots wait a frame)


class BoardReader(ReadPlan):
    """Reads frames of one calibrated table. ``reference`` (a frame of the empty table from the same
    camera) starts the empty model; without it the model is learned from the frames themselves."""

    def __init__(self, layout: TableLayout, pose: CameraPose, palette: dict[str, tuple[int, int, int]],
                 reference: np.ndarray | None = None, strict: bool = True, veto: bool = True,
                 adaptation: Adaptation | None = None, patches: PatchClassifier | Path | None = None,
                 accept: Callable[[str], bool] | None = None, qr_budget_s: float = QR_BUDGET_S) -> None:
        """``adaptation`` (``vision.adapt``, learned from labelled frames of this table) brings the players'
        colours, the empty look of the regions it saw empty, the sizes of the pieces and the patch
        classifier's last layers re-fitted to this table. ``patches`` (or the folder holding one) replaces the
        shipped classifier (``vision.patch_classifier``, which may veto a region's reading; ``veto=False`` for
        regions it never learnt, such as another game's tiles). ``accept`` says
        whether a QR payload is a card id: with it, face-down codes are read through blur and low
        resolution, fusing the frames of a card that lies still (``vision.slot_qr``), and only accepted
        payloads are reported; ``qr_budget_s`` caps that work per frame."""
        if adaptation is not None:
            palette = {**palette, **adaptation.palette}
        self.layout = layout
        self.pose = pose
        self.strict = strict
        self._place(placement(layout, pose))
        self.classifier = StandClassifier(palette, adaptation.areas if adaptation is not None else None)
        self.palette = dict(palette)
        self.models = EmptyModels()
        for rid, (c, s) in (adaptation.empty if adaptation is not None else {}).items():
            reg = self.base_stands.get(rid) or self.base_slots.get(rid)
            if reg is not None and c.shape[:2] == (reg.size[1], reg.size[0]):
                self.models.set(rid, reg.kind, c, s)
        self.finder: ObstructionFinder | None = None
        self.motion: MotionGuard | None = None
        self.global_model: NDArray[np.uint8] | None = None
        self._global_bgr: F32 | None = None
        self._kept_model: KeptModel | None = None
        self.last_stands: dict[str, StandObs] = {}
        self.last_slots: dict[str, SlotObs] = {}
        self.last_under: dict[str, SlotObs] = {}
        self.has_reference = reference is not None
        self.accept = accept
        self.fusion = QrFusion(budget_s=qr_budget_s)
        self._turn = 0
        self.light: LightModel | None = None
        self._bgr: IdentityMemo[F32] = IdentityMemo()
        self._prev: BoardObservation | None = None
        self._prev_stands: dict[str, StandObs] = {}
        self._prev_slots: dict[str, SlotObs] = {}
        self._prev_under: dict[str, SlotObs] = {}
        self._boxes: tuple[tuple[int, int, int, int], ...] = ()  # the obstruction finder's last boxes
        self._passes: dict[str, StandPasses] = {}  # the frame's stacked stand passes (``vision.stand_stack``)
        self.regions_read = 0  # stands, slots and under-mat areas the last frame read (the rest repeated)
        self.qr_retried = 0  # unchanged face-down slots whose code alone the last frame tried again
        self._qr_tries: dict[str, int] = {}  # slot -> unchanged frames its unread face-down card was read again
        self.ambiguous: set[str] = set()
        self.opinion = SecondOpinion.build(patches, *((adaptation.stand_head, adaptation.slot_head)
                                                      if adaptation is not None else ())) if strict and veto else None
        if reference is not None:
            ref = self._check(reference, "reference")
            for rid, reg in self.stand_regions.items():
                self.models.set(rid, reg.kind, *chroma(cut(ref, reg)))
            for rid, reg in self.slot_regions.items():
                self.models.set(rid, "slot", *chroma(extract(ref, reg.H, reg.size)))
            for rid, reg in self.under_regions.items():
                self.models.set(rid, "under", *chroma(extract(ref, reg.H, reg.size)))
            self._set_global(shrink(ref))
        self._prepare()

    def _place(self, where: Placement) -> None:
        """Read every region where ``where`` puts it (``vision.repose``), with no motion correction."""
        self.base_stands, self.base_slots, self.base_under = where.stands, where.slots, where.under
        self.base_inputs, self.input_regions = where.inputs, dict(where.inputs)  # the classifier's stand patches
        self.stand_regions, self.slot_regions = dict(where.stands), dict(where.slots)
        self.under_regions = dict(where.under)
        self._mat_slots = where.mat_slots
        self.changes = RegionChanges(where.small_boxes)

    def repose(self, pose: CameraPose) -> None:
        """The camera was knocked and the table found again at ``pose``: read with it from the next frame,
        keeping what was learned (the regions' empty models and looks are pose-independent; the table's
        global model is warped to the new view; the last readings stay as the fallback of unknown regions)."""
        where = placement(self.layout, pose)
        for rid in list(self.models.models):
            if where.size_of(rid) != self.models.models[rid][0].shape[1::-1]:
                self.models.forget(rid)
        old, self.pose = self.pose, pose
        self._place(where)
        self._prev, self._boxes = None, ()
        if self.global_model is not None:
            self._set_global(moved_small(self.global_model, old, pose))
        self._prepare()

    def _prepare(self) -> None:
        """What every frame's reading derives from the calibration and the models, computed once now: the
        sampling maps of every region and QR window, the smoothed and BGR forms of the models."""
        prepare_maps([*self.input_regions.values(), *self.under_regions.values()],  # the stands' decision: ``cut``
                     self.slot_regions, self.layout.card_size_mm, self.pose.image_size, self.accept is not None)
        for rid in self.slot_regions:
            self._bgr_of(self.models.get(rid) or self._mat_slots[rid])
        for rid, reg in self.stand_regions.items():
            model = self.models.get(rid)
            if model is not None:
                prepare_model(model, reg.px_per_mm)
                self._bgr_of(model)
        for rid in self.under_regions:
            model = self.models.get(rid)
            if model is not None:
                self._bgr_of(model)

    def _set_global(self, small: NDArray[np.uint8]) -> None:
        self.global_model = small
        self._global_bgr = small.astype(np.float32)
        self._kept_model = KeptModel(self._global_bgr)
        self.light = LightModel(small)
        # a player's colour the map itself shows cannot be read on this table (a purple piece on magenta
        # stands): its readings stay unknown (the set-up check refuses such colours in the first place)
        c, s = chroma(small)
        where = map_mask(self.layout, self.pose, small.shape[:2], 1.0 / SMALL)
        self.ambiguous = {o for o, bgr in self.palette.items() if map_share(bgr, c, s, where) > AMBIGUOUS_SHARE}
        self.finder = ObstructionFinder(small, {**self.stand_regions, **self.slot_regions, **self.under_regions},
                                        small=True)
        self.motion = MotionGuard(small)

    def _check(self, frame: object, what: str) -> NDArray[np.uint8]:
        img = check_frame(frame, what)
        w, h = self.pose.image_size
        if img.shape[1] != w or img.shape[0] != h:
            raise VisionError(f"{what}: {img.shape[1]}x{img.shape[0]} does not match the calibrated {w}x{h}")
        return img

    def read(self, frame: np.ndarray, only: Iterable[str] | None = None,
             lores: np.ndarray | None = None) -> BoardObservation:
        """Observe every stand and slot, or only the ids in ``only`` (the others repeat the last reading).
        ``lores``: the camera's low-resolution stream of the same frame (BGR; ``tracker.sources`` gives it
        as ``Frame.lores``): the change test, light, motion and obstruction steps run on it, so a frame
        where nothing changed never touches the full image; without it the reader shrinks the frame."""
        img = self._check(frame, "frame")
        small = None if lores is None else small_of(img, check_frame(lores, "lores"))
        with one_frame(img):
            return self._read(img, only, small)

    def _read(self, img: NDArray[np.uint8], only: Iterable[str] | None,
              small: NDArray[np.uint8] | None) -> BoardObservation:
        wanted = set(only) if only is not None else None
        if wanted is not None:
            unknown = wanted - set(self.stand_regions) - set(self.slot_regions)
            if unknown:
                raise VisionError(f"only: unknown stand or slot ids {sorted(unknown)}")
        if not self.strict:
            return self._read_legacy(img, wanted)
        if small is None:
            small = shrink(img)
        if self.global_model is None:
            self._set_global(small)  # no photo of the empty table: the first frame is the light and view model
        assert self.light is not None and self.motion is not None and self.finder is not None
        if self.motion.update(small):
            self._follow(self.motion.correction)
        if self.motion.lost:
            return self._unreadable("camera moved", wanted)
        aligned = self.motion.align(small)
        self.motion.refresh(aligned)
        gains, level = self.light.measure(aligned)
        if level < 0.25:
            return self._unreadable("too dark", wanted)
        lit = normalise(aligned, gains, self._global_bgr, self._kept_model)
        changed = self._changed_regions(lit)
        self.regions_read = 0
        retry, quick = code_only(self._prev_slots, self._qr_tries, changed, QR_RETRIES, QUICK_RETRIES,
                                 None if self.accept is None else self.fusion)
        self.qr_retried = 0
        self.fusion.new_frame()
        if not changed and not retry and not quick and self._prev is not None and all(
                settled(o) for o in self._prev.stands.values()) and all(
                self._settled_slot(k, o) for k, o in self._prev.slots.items()) and all(
                settled(o) for o in self._prev.under.values()):
            return self._prev  # nothing moved anywhere: the last observation stands (a few ms)
        if self._reads_any(wanted, changed, retry, quick):
            mask, boxes = self.finder.find_small(lit, margin=False)
            self._boxes = boxes
            self._ask_opinion(img, gains, wanted, changed, retry, quick)
            self._blur = FrameBlur.estimate(img, self.stand_regions, self.models, gains, changed, self._bgr_of)
            self._stack_stands(wanted, changed)
        else:  # every region repeats its reading (as after a partial re-read): nothing needs the whole frame
            mask, boxes = None, self._boxes
        stands: dict[str, StandObs] = {}
        for sid, reg in self.stand_regions.items():
            if wanted is not None and sid not in wanted and sid in self.last_stands:
                stands[sid] = self.last_stands[sid]
                continue
            if sid not in changed and settled(self._prev_stands.get(sid)):
                stands[sid] = self._prev_stands[sid]
                continue
            stands[sid] = self._read_stand(img, sid, reg, mask, gains)
            self.regions_read += 1
            self.changes.keep(lit, sid)
        slots: dict[str, SlotObs] = {}
        # the QR budget goes round: each frame another slot is first
        order = list(self.slot_regions.items())
        self._turn = (self._turn + 1) % len(order)
        for sid, reg in order[self._turn:] + order[:self._turn]:
            if wanted is not None and sid not in wanted and sid in self.last_slots:
                slots[sid] = self.last_slots[sid]
                continue
            if sid in quick:
                slots[sid] = self._retry_code(img, sid, reg)
                continue
            if sid not in changed and sid not in retry and self._settled_slot(sid, self._prev_slots.get(sid)):
                slots[sid] = self._prev_slots[sid]
                continue
            slots[sid] = self._read_slot(img, sid, reg, mask, gains, fuse=sid not in changed)
            self.regions_read += 1
            self.changes.keep(lit, sid)
        read = self.fusion.read_pending(self.accept) if self.accept is not None else {}
        slots = {sid: SlotObs("down", read[sid], 1.0, False) if sid in read else slots[sid]
                 for sid in self.slot_regions}
        under: dict[str, SlotObs] = {}
        for rid, reg in self.under_regions.items():
            sid = under_slot(rid)
            if wanted is not None and sid not in wanted and sid in self.last_under:
                under[sid] = self.last_under[sid]
                continue
            if rid not in changed and settled(self._prev_under.get(sid)):
                under[sid] = self._prev_under[sid]
                continue
            under[sid] = self._read_under(img, rid, reg, mask, gains)
            self.regions_read += 1
            self.changes.keep(lit, rid)
        self._prev_stands, self._prev_slots, self._prev_under = stands, slots, under
        self.last_stands.update({k: v for k, v in stands.items() if not v.obstructed})
        self.last_slots.update({k: v for k, v in slots.items() if not v.obstructed})
        self.last_under.update({k: v for k, v in under.items() if not v.obstructed})
        unread = sum(v.obstructed for v in stands.values()) + sum(v.obstructed for v in slots.values())
        why = None
        if unread > UNREADABLE_FRACTION * (len(stands) + len(slots)):
            why = "glare" if saturated_fraction(aligned) > 0.01 else "covered"
            why = (self.opinion.error if self.opinion is not None else None) or why
        any_obstructed = bool(boxes) or unread > 0
        obs = BoardObservation(stands, slots, any_obstructed, boxes, why, under)
        self._prev = obs if wanted is None else None
        return obs

    def _stack_stands(self, wanted: set[str] | None, changed: set[str]) -> None:
        """The stacked passes (``vision.stand_stack``) of the stands ``read`` reads this frame."""
        reading = [sid for sid in self.stand_regions if self._reads(sid, wanted, changed)]
        self._passes = stand_passes(self.classifier.owner_map,
                                    stand_inputs(self._blur, self.models, self.stand_regions, reading))

    def _retry_code(self, img: NDArray[np.uint8], sid: str, reg: Region) -> SlotObs:
        """A face-down card whose code did not decode, in a slot the change test finds unchanged since it
        was read (so no hand or object came onto it): its reading stands and only its code is decoded again
        from the new frame's noise (what ``_read_slot`` would decode: the same window, the same decoders,
        and with ``accept`` the same fusion of the card's frames within the frame's budget), so the frame
        needs neither the obstruction finder nor the patch classifier."""
        self.qr_retried += 1
        started = time.thread_time()
        deep = self.accept is not None and self.fusion.has_budget()
        payload = card_code(img, reg.H, reg.px_per_mm, reg.size, self.layout.card_size_mm,
                            self.accept if deep else None)
        if self.accept is not None and payload is None:
            payload = self.fusion.follow(img, sid, qr_window(reg.H, reg.px_per_mm, reg.size), True, self.accept, deep)
        elif self.accept is not None:
            self.fusion.reset(sid)
        self.fusion.spent += time.thread_time() - started
        return self._prev_slots[sid] if payload is None else SlotObs("down", payload, 1.0, False)

    def _changed_regions(self, small: NDArray[np.uint8]) -> set[str]:
        """Regions whose quarter-resolution crop differs from the one they were last read from
        (``vision.change``); a stand still learning its empty look counts as changed."""
        learning = {rid for rid in self.base_stands if self.models.get(rid) is None and self.models.look(rid) is None}
        return self.changes.changed(small, learning)

    def _follow(self, correction: NDArray[np.float64]) -> None:
        """Read every region through ``correction`` (model px -> frame px): the camera moved."""
        self.changes.forget()
        self._prev = None
        for rid, reg in self.base_stands.items():
            self.stand_regions[rid], self.input_regions[rid] = moved(reg, correction), moved(
                self.base_inputs[rid], correction)
        for rid, reg in self.base_slots.items():
            self.slot_regions[rid] = moved(reg, correction)
        for rid, reg in self.base_under.items():
            self.under_regions[rid] = moved(reg, correction)

    def _unreadable(self, why: str, wanted: set[str] | None) -> BoardObservation:
        stands = {sid: unread_stand(self.last_stands.get(sid), why) for sid in self.stand_regions}
        slots = {sid: unread_slot(self.last_slots.get(sid), why) for sid in self.slot_regions}
        under = {under_slot(rid): unread_slot(self.last_under.get(under_slot(rid)), why)
                 for rid in self.under_regions}
        return BoardObservation(stands, slots, True, (), why, under)

    def _bgr_of(self, model: tuple[F32, F32]) -> F32:
        """A model's BGR form, computed once per model (models are replaced, never changed in place)."""
        return self._bgr.get(model, lambda: bgr_of(*model))

    def _covered(self, mask: NDArray[np.uint8] | None, rid: str) -> bool:
        return mask is not None and self.finder is not None and self.finder.covered(mask, rid)

    def _read_stand(self, img: NDArray[np.uint8], sid: str, reg: Region, mask: NDArray[np.uint8] | None,
                    gains: F32) -> StandObs:
        spec = self.layout.stand(sid)
        model = self.models.get(sid)
        patch = self._blur.patch(sid)  # the frame's, cut once (``FrameBlur``)
        look = self.models.look(sid) if model is None else None
        p = self._passes.get(sid)
        c, s = chroma(patch) if p is None else p.cs
        r = self.classifier.classify(patch, spec.kind, spec.size_mm, reg.px_per_mm, model, look, True, cs=(c, s),
                                     blur_mm=self._blur.blur_mm(sid), smooth=self._blur.smoothed.get(sid), passes=p)
        if self.opinion is not None:
            r = self.opinion.judge(sid, r)  # confirms an unsure reading or vetoes a doubtful one
        blob = None if mask is None or self.finder is None else blob_verdict(
            self.finder, mask, reg, r, (c, s), model if model is not None else None if look is None else look[:2])
        if blob == COVERED:
            self.models.reset(sid)
            return unread_stand(self.last_stands.get(sid), "covered")
        if blob == PIECE:  # the stand's own piece joined to an object beside it: read, but learn nothing
            return StandObs(r.state, r.owner, r.count, r.confidence, False, r.flipped)
        # without a model or a look, an empty reading is capped as unverified: its uncapped verdict starts both
        unverified = model is None and look is None
        confident_empty = r.state == "empty" and not r.obstructed and (
            r.confidence >= CONFIDENT_EMPTY or (unverified and r.confidence > 0.0))
        self.models.seen_empty(sid, reg.kind, c, s, confident_empty)
        confident = not r.obstructed and (r.confidence >= CONFIDENT_EMPTY or confident_empty)
        self.models.seen_reading(sid, (r.state, r.owner), c, s, r.piece, confident)
        if r.obstructed:
            return unread_stand(self.last_stands.get(sid), r.reason or "unexplained object")
        if r.owner in self.ambiguous:
            return unread_stand(self.last_stands.get(sid), f"{r.owner}'s colour is too close to the map's")
        if r.state == "empty" and self.ambiguous:
            seen = model if model is not None else (None if look is None else (look[0], look[1]))
            hidden = hidden_owner(seen, patch.shape[0], self.ambiguous, self.palette)
            if hidden is not None:
                return unread_stand(self.last_stands.get(sid), f"a {hidden} piece would not show on this stand")
        return StandObs(r.state, r.owner, r.count, r.confidence, False, r.flipped)

    def _ask_opinion(self, img: NDArray[np.uint8], gains: F32, wanted: set[str] | None, changed: set[str],
                     retry: set[str], quick: set[str]) -> None:
        """The patch classifier's batch over the stands and slots ``read`` reads this frame (the loops repeat
        the others' last reading)."""
        if self.opinion is None:
            return

        def to_read(rid: str, last: dict[str, StandObs] | dict[str, SlotObs], settled: bool) -> bool:
            return not (wanted is not None and rid not in wanted and rid in last) and not (
                rid not in changed and rid not in retry and settled)

        self.opinion.classify(
            img, gains,
            {r: g for r, g in self.input_regions.items()
             if to_read(r, self.last_stands, settled(self._prev_stands.get(r)))},
            {r: g for r, g in self.slot_regions.items()
             if r not in quick and to_read(r, self.last_slots, self._settled_slot(r, self._prev_slots.get(r)))})

    def _read_slot(self, img: NDArray[np.uint8], sid: str, reg: Region, mask: NDArray[np.uint8] | None,
                   gains: F32, fuse: bool = False) -> SlotObs:
        """One slot; ``fuse``: nothing changed there since the last frame, so a face-down card not read
        yet is read from the mean of its frames."""
        if self._covered(mask, sid):
            self.fusion.reset(sid)
            return unread_slot(self.last_slots.get(sid), "covered")
        model = self.models.get(sid) or self._mat_slots[sid]
        lit = None if self.opinion is None else self.opinion.lit(sid, img, gains, reg)  # the batch's, when it cut it
        patch = normalise(extract(img, reg.H, reg.size), gains, self._bgr_of(model), lit=lit)
        c, s = chroma(patch)
        started = time.thread_time()
        deep = self.accept is not None and self.fusion.has_budget()
        state, payload, conf, obstructed = read_slot(img, reg.H, reg.size, reg.px_per_mm, model,
                                                     self.layout.card_size_mm, skin_check=False, patch=patch,
                                                     cs=(c, s), accept=self.accept if deep else None, confirm=None
                                                     if self.opinion is None else partial(self.opinion.confirms, sid))
        veto = None if obstructed or self.opinion is None else self.opinion.veto(sid, state)
        if veto is not None:
            self.fusion.reset(sid)
            self.models.reset(sid)
            return unread_slot(self.last_slots.get(sid), veto)
        if self.accept is not None and state == "down" and payload is None and not obstructed:
            payload = self.fusion.follow(img, sid, qr_window(reg.H, reg.px_per_mm, reg.size), fuse, self.accept, deep)
        else:
            self.fusion.reset(sid)
        self.fusion.spent += time.thread_time() - started
        confident_empty = state == "empty" and not obstructed and conf >= CONFIDENT_EMPTY
        self.models.seen_empty(sid, "slot", c, s, confident_empty)
        if obstructed:
            return unread_slot(self.last_slots.get(sid), "not a card")
        return SlotObs("down", payload, 1.0, False) if payload is not None else SlotObs(state, None, conf, False)

    def _read_under(self, img: NDArray[np.uint8], rid: str, reg: Region, mask: NDArray[np.uint8] | None,
                    gains: F32) -> SlotObs:
        sid = under_slot(rid)
        if self._covered(mask, rid):
            self.models.reset(rid)
            return unread_slot(self.last_under.get(sid), "covered")
        model = self.models.get(rid)
        patch = normalise(extract(img, reg.H, reg.size), gains, None if model is None else self._bgr_of(model))
        c, s = chroma(patch)
        r = read_under(patch, model, reg.px_per_mm, self.layout.card_size_mm, cs=(c, s))
        self.models.seen_empty(rid, "under", c, s, r.state == "empty" and r.confidence >= CONFIDENT_EMPTY)
        if r.state == "unknown":
            return unread_slot(self.last_under.get(sid), r.reason or "not a card's end")
        return SlotObs(r.state, None, r.confidence, False)

    def _read_legacy(self, img: NDArray[np.uint8], wanted: set[str] | None) -> BoardObservation:
        """The previous decision (one fixed photo, thresholds), kept for the benchmark's comparison."""
        finder = self.finder if self.has_reference and self.global_model is not None else None
        return read_legacy(img, wanted, self, finder, self._mat_slots)
