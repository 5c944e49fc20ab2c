"""How much blurrier than the stands' empty models a frame is: estimated once per frame and group of models.

Camera blur (a half-resolution sensor, a lens out of focus) is one Gaussian over the whole frame; what a
frame adds to a stand (a piece, a hand) is local. So the blur by which a frame differs from the models is
a property of the frame and of the models' own sharpness, not of each stand: the ladder of model blurs
(``vision.stands.MATCH_BLUR_MM``) is scored once, pooled over a sample of stands, and every stand of the
group is compared with its model blurred to that one level (each model's level computed once and kept).
Models taken from the same frame share that frame's sharpness, so a group is the models (or looks) taken
from one frame (``EmptyModels.group``): all the photo's models are one group; models learned or refreshed
during play form a group per frame they came from.

The pooled score is the mean, over the sample, of each stand's median colour difference at that level: a
piece on one stand of the sample moves its median and the mean of several hardly at all, where the
per-stand ladder let each stand pick its own level (and, under JPEG's colour blocks, often the wrong one).
A group of one stand is matched by its own ladder, as before. Groups are estimated lazily, on the first
stand of the group read in the frame, so a frame that re-reads two regions pays for at most their groups.

Each stand's light-normalised patch is cut once per frame (``FrameBlur.patch``) and a sampled stand's
smoothed patch is kept (``FrameBlur.smoothed``): the stand's own decision (``vision.stands.changed_matched``)
compares the very same smoothed patch with its model, instead of cutting and smoothing it again; only in a
frame lit brighter than the models, where the decision's patch keeps the model's clipped values and the
estimate's does not, is the estimate's cut apart (the same pixels as before, either way).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vision.colour import F32
from vision.empty_model import EmptyModels
from vision.light import normalise
from vision.regions import Region, cut
from vision.stands import MATCH_BLUR_MM, MATCH_GAIN, ladder_scores, smoothed_patch

SAMPLE = 8  # stands per group compared with their models at every level of the ladder


@dataclass(frozen=True)
class GroupBlur:
    """One group's estimate for the frame: the extra blur (mm) its models need, the mean median colour
    difference at that level, and how many stands it was pooled over."""

    blur_mm: float
    residual: float
    stands: int


class FrameBlur:
    """The frame's blur per group of models: ``FrameBlur.estimate`` once per frame, ``blur_mm`` per stand."""

    def __init__(self, img: np.ndarray, regions: dict[str, Region], models: EmptyModels, gains: F32,
                 changed: set[str] | None = None, bgr_of: Callable[[tuple[F32, F32]], F32] | None = None) -> None:
        self.img, self.regions, self.models, self.gains = img, regions, models, gains
        self.changed, self.bgr_of = changed, bgr_of
        self.patches: dict[str, np.ndarray] = {}
        self.smoothed: dict[str, tuple[F32, F32]] = {}  # ``smoothed_patch`` of the stands sampled
        # a brighter light than the models' (a gain over 1.02): ``normalise`` keeps a model's value where the
        # new light clips, which the estimate never did, so its patches are not the decision's to share
        self.clips = bool((np.asarray(gains) > 1.02).any())
        self.groups: dict[tuple[str, int], GroupBlur | None] = {}
        self._members: dict[tuple[str, int], list[str]] | None = None

    @classmethod
    def estimate(cls, img: np.ndarray, regions: dict[str, Region], models: EmptyModels, gains: F32,
                 changed: set[str] | None = None,
                 bgr_of: Callable[[tuple[F32, F32]], F32] | None = None) -> FrameBlur:
        """The estimate for the frame ``img`` (under the light ``gains``) over the stands ``regions``; what
        the models learn from now on was taken from this frame (``EmptyModels.next_frame``). ``changed``:
        the regions the change test found changed; a group samples at most as many stands as it has
        changed (at least one), so a frame that re-reads one stand costs what that stand's own ladder did.
        ``bgr_of``: a model's BGR form (the reader keeps one per model), for ``normalise`` to keep the model's
        value where the new light clips."""
        models.next_frame()
        return cls(img, regions, models, gains, changed, bgr_of)

    def patch(self, rid: str) -> np.ndarray:
        """``rid``'s patch of the frame under the model's light (``vision.light.normalise``), cut once."""
        got = self.patches.get(rid)
        if got is None:
            model = self.models.get(rid)
            reg = self.regions[rid]
            bgr = None if model is None or self.bgr_of is None else self.bgr_of(model)
            got = self.patches[rid] = normalise(cut(self.img, reg), self.gains, bgr)
        return got

    def blur_mm(self, rid: str) -> float | None:
        """The extra blur for ``rid``'s model (or look) this frame, or None when its group has one stand
        (it then matches its model alone) or it has neither model nor look."""
        group = self.models.group(rid)
        if group is None:
            return None
        if group not in self.groups:
            self.groups[group] = self._pooled(self._group_members().get(group, []))
        got = self.groups[group]
        return None if got is None else got.blur_mm

    def _group_members(self) -> dict[tuple[str, int], list[str]]:
        if self._members is None:
            self._members = {}
            for rid in sorted(self.regions):
                group = self.models.group(rid)
                if group is not None:
                    self._members.setdefault(group, []).append(rid)
        return self._members

    def _pooled(self, rids: list[str]) -> GroupBlur | None:
        """Score the ladder over an even sample of up to ``SAMPLE`` of ``rids``; the level whose mean score
        is lowest, a further level taken only when it lowers it by ``MATCH_GAIN`` more (as the per-stand
        ladder does)."""
        if len(rids) < 2:
            return None
        size = SAMPLE if self.changed is None else min(SAMPLE, max(1, len(self.changed.intersection(rids))))
        step = max(1, len(rids) // size)
        sample = rids[::step][:size]
        scores = np.zeros(len(MATCH_BLUR_MM), np.float64)
        for rid in sample:
            reg = self.regions[rid]
            model = self.models.get(rid)
            if model is None:
                look = self.models.look(rid)
                assert look is not None
                model = (look[0], look[1])
            if self.clips:  # the estimate's own patch, as before: the decision's keeps the model's clipped values
                c, _ = smoothed_patch(normalise(cut(self.img, reg), self.gains), reg.px_per_mm)
            else:
                c, _ = self.smoothed[rid] = smoothed_patch(self.patch(rid), reg.px_per_mm)
            scores += ladder_scores(c, model, reg.px_per_mm)  # every level's match_score, in one pass
        scores /= len(sample)
        best = 0
        for i in range(1, len(MATCH_BLUR_MM)):
            if scores[i] < scores[best] - MATCH_GAIN:
                best = i
        return GroupBlur(MATCH_BLUR_MM[best], float(scores[best]), len(sample))
