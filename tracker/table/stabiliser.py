"""Turn a stream of per-frame region readings (stands, mat slots) into a stable board.

A reading counts only when its region is unobstructed and the same value has been seen in `frames`
consecutive unobstructed readings; an obstructed reading neither confirms nor resets the count, so a
hand passing over the board can never produce a change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

V = TypeVar("V")  # what a region holds: a `StandValue` for stands, a `SlotValue` for mat slots


@dataclass
class _Track(Generic[V]):
    stable: V
    candidate: V
    seen: int = 0


@dataclass
class Stabiliser(Generic[V]):
    frames: int = 3
    _tracks: dict[str, _Track[V]] = field(default_factory=dict)

    def feed(self, readings: Mapping[str, tuple[V, bool]]) -> dict[str, V]:
        """Feed one frame's readings (stand -> (value, obstructed)); return the stands whose stable
        value changed with this frame, mapped to the new value."""
        changed: dict[str, V] = {}
        for stand, (value, obstructed) in readings.items():
            track = self._tracks.get(stand)
            if track is None:
                if obstructed:
                    continue
                track = self._tracks[stand] = _Track(stable=value, candidate=value, seen=self.frames)
                changed[stand] = value
                continue
            if obstructed:
                continue
            if value == track.candidate:
                track.seen += 1
            else:
                track.candidate, track.seen = value, 1
            if track.seen >= self.frames and track.candidate != track.stable:
                track.stable = track.candidate
                changed[stand] = track.stable
        return changed

    def board(self) -> dict[str, V]:
        return {s: t.stable for s, t in self._tracks.items()}

    def pending(self) -> dict[str, V]:
        """Stands whose reading differs from the stable value but is not yet confirmed."""
        return {s: t.candidate for s, t in self._tracks.items() if t.candidate != t.stable}
