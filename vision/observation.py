"""What the overhead reader says of one frame: each stand's and slot's reading, or why it was not read.

Kept apart from the reader (``vision.board``) so that what it returns can be read, stored and compared
without the reading machinery."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

CONFIDENT_EMPTY = 0.8  # a reading at least this sure is acted on, and an unchanged region keeps it


@dataclass(frozen=True)
class StandObs:
    state: str  # "empty" | "capital" | "basecamp" | "soul" | "unknown" (never read yet)
    owner: str | None
    count: int
    confidence: float
    obstructed: bool  # not read this frame: the state is the last reading (or "unknown")
    flipped: bool = False
    reason: str | None = None  # why it was not read


@dataclass(frozen=True)
class SlotObs:
    state: str  # "empty" | "down" | "up" | "landscape" | "unknown" (never read yet)
    payload: str | None
    confidence: float
    obstructed: bool
    reason: str | None = None


@dataclass(frozen=True)
class BoardObservation:
    stands: dict[str, StandObs]
    slots: dict[str, SlotObs]
    obstructed: bool
    obstructed_regions: tuple[tuple[int, int, int, int], ...]
    unreadable: str | None = None  # "too dark" | "camera moved" | "glare" | "covered" when most are unknown
    # per slot on the mat's edge: a hidden card's end showing beyond it ("down"), "empty", or "unknown"
    under: dict[str, SlotObs] = field(default_factory=dict)


UNDER = "under:"


def under_id(slot: str) -> str:
    """The region id of the area beyond `slot`'s outer edge (models, change test and obstruction share ids)."""
    return UNDER + slot


def under_slot(rid: str) -> str:
    """The slot whose outer edge the area `rid` (an `under_id`) lies beyond."""
    return rid.removeprefix(UNDER)


def unread_stand(prev: StandObs | None, why: str) -> StandObs:
    """A stand not read this frame (``why``): its last reading kept, unconfident, or "unknown"."""
    if prev is None:
        return StandObs("unknown", None, 0, 0.0, True, False, why)
    return StandObs(prev.state, prev.owner, prev.count, 0.0, True, prev.flipped, why)


def unread_slot(prev: SlotObs | None, why: str) -> SlotObs:
    """A slot (or under-mat area) not read this frame (``why``): its last reading kept, or "unknown"."""
    if prev is None:
        return SlotObs("unknown", None, 0.0, True, why)
    return SlotObs(prev.state, prev.payload, 0.0, True, why)


def settled(obs: StandObs | SlotObs | None) -> bool:
    """A confident reading: re-reading an unchanged region could not change it. Uncertain ones (under a
    hand, unverified, low confidence) are read again: their models may have grown since."""
    return obs is not None and not obs.obstructed and obs.confidence >= CONFIDENT_EMPTY


def code_retries(last: dict[str, SlotObs], tries: dict[str, int], changed: set[str], limit: int) -> set[str]:
    """Unchanged slots holding a face-down card whose QR did not decode: read again (and their QR tried)
    for ``limit`` frames, as new sensor noise may let it decode; a slot that changed starts over. No other
    unchanged slot is read, so no other QR is tried. ``tries`` (slot -> frames tried) is kept by the caller."""
    out: set[str] = set()
    for sid, obs in last.items():
        if sid in changed:
            tries.pop(sid, None)
        elif obs.state == "down" and obs.payload is None and not obs.obstructed:
            n = tries.get(sid, 0)
            if n < limit:
                tries[sid] = n + 1
                out.add(sid)
    return out


class Fusion(Protocol):
    def exhausted(self, slot: str) -> bool: ...


def code_only(last: dict[str, SlotObs], tries: dict[str, int], changed: set[str], limit: int, per_frame: int,
              fusion: Fusion | None) -> tuple[set[str], set[str]]:
    """(slots read again in full, slots whose code alone is tried again) this frame, for the face-down cards
    whose code did not decode. A settled one in a slot that did not change keeps its reading and only its
    code is decoded again: without ``fusion`` (no payload check) for ``limit`` frames (``code_retries``),
    ``per_frame`` cards a frame, the fewest tried first (the others wait, their tries not counted); with
    it, on every frame until fusing more of its frames would not help (``vision.slot_qr_fusion``, whose
    budget then rations the work). The others ``code_retries`` names are read in full."""
    if fusion is not None:
        return set(), {sid for sid, o in last.items() if sid not in changed and settled(o)
                       and o.state == "down" and o.payload is None and not fusion.exhausted(sid)}
    retry = code_retries(last, tries, changed, limit)
    quick = {sid for sid in retry if settled(last.get(sid))}
    if len(quick) > per_frame:
        now = set(sorted(quick, key=lambda sid: (tries[sid], sid))[:per_frame])
        for sid in quick - now:
            tries[sid] -= 1
        quick = now
    return retry - quick, quick
