"""The overhead reader's previous decision (one fixed photo of the empty table, chromaticity thresholds),
kept so that the stress benchmark (``bench/bench_overhead_stress.py --before``) can print the before/after
comparison; ``BoardReader(strict=False)`` reads with it."""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from calibration.layout import TableLayout
from vision.colour import F32
from vision.empty_model import EmptyModels
from vision.observation import BoardObservation, SlotObs, StandObs
from vision.obstruction import ObstructionFinder
from vision.regions import Region
from vision.slots import read_slot
from vision.stands import StandClassifier
from vision.warp import extract


class LegacyReader(Protocol):
    """What the previous decision reads from a ``BoardReader``."""

    layout: TableLayout
    stand_regions: dict[str, Region]
    slot_regions: dict[str, Region]
    classifier: StandClassifier
    models: EmptyModels
    has_reference: bool
    last_stands: dict[str, StandObs]
    last_slots: dict[str, SlotObs]


def _covered(finder: ObstructionFinder | None, mask: NDArray[np.uint8] | None, rid: str) -> bool:
    return mask is not None and finder is not None and finder.covered(mask, rid)


def read_legacy(img: NDArray[np.uint8], wanted: set[str] | None, reader: LegacyReader,
                finder: ObstructionFinder | None, mat_slots: dict[str, tuple[F32, F32]]) -> BoardObservation:
    """One frame read the previous way; ``finder`` (hands and arms, only with a photo) or None (skin check)."""
    mask, boxes = (None, ()) if finder is None else finder.find(img)
    stands: dict[str, StandObs] = {}
    for sid, reg in reader.stand_regions.items():
        if wanted is not None and sid not in wanted and sid in reader.last_stands:
            stands[sid] = reader.last_stands[sid]
            continue
        spec = reader.layout.stand(sid)
        r = reader.classifier.classify(extract(img, reg.H, reg.size), spec.kind, spec.size_mm, reg.px_per_mm,
                                     reader.models.get(sid))
        if r.obstructed or _covered(finder, mask, sid):
            prev = reader.last_stands.get(sid)
            stands[sid] = (StandObs(prev.state, prev.owner, prev.count, 0.0, True, prev.flipped) if prev
                           else StandObs(r.state, r.owner, r.count, 0.0, True, r.flipped))
        else:
            stands[sid] = StandObs(r.state, r.owner, r.count, r.confidence, False, r.flipped)
    slots: dict[str, SlotObs] = {}
    for sid, reg in reader.slot_regions.items():
        if wanted is not None and sid not in wanted and sid in reader.last_slots:
            slots[sid] = reader.last_slots[sid]
            continue
        ref = reader.models.get(sid) if reader.has_reference else None
        state, payload, conf, obstructed = read_slot(img, reg.H, reg.size, reg.px_per_mm,
                                                     ref or mat_slots[sid], reader.layout.card_size_mm,
                                                     skin_check=finder is None)
        if obstructed or _covered(finder, mask, sid):
            prev_s = reader.last_slots.get(sid)
            slots[sid] = SlotObs(prev_s.state, prev_s.payload, 0.0, True) if prev_s else SlotObs(
                state, payload, 0.0, True)
        else:
            slots[sid] = SlotObs(state, payload, conf, False)
    reader.last_stands.update({k: v for k, v in stands.items() if not v.obstructed})
    reader.last_slots.update({k: v for k, v in slots.items() if not v.obstructed})
    any_obstructed = bool(boxes) or any(v.obstructed for v in stands.values()) or any(
        v.obstructed for v in slots.values())
    return BoardObservation(stands, slots, any_obstructed, boxes)
