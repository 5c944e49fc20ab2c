"""Which regions a frame's read reads (``vision.board.BoardReader.read``): a region is read again when the
caller wants it and it changed since its last reading or that reading is not settled; the others repeat
their last reading. The loops, the obstruction finder, the patch classifier's batch and the stands' stacked
passes (``vision.stand_stack``) ask the same tests."""

from __future__ import annotations

from collections.abc import Callable

from vision.observation import SlotObs, StandObs, settled, under_slot
from vision.regions import Region
from vision.slot_qr_fusion import QrFusion


class ReadPlan:
    """The reader's tests of which regions a frame reads (a base of ``BoardReader``, which holds the state)."""

    stand_regions: dict[str, Region]
    slot_regions: dict[str, Region]
    under_regions: dict[str, Region]
    last_stands: dict[str, StandObs]
    last_slots: dict[str, SlotObs]
    last_under: dict[str, SlotObs]
    _prev_stands: dict[str, StandObs]
    _prev_slots: dict[str, SlotObs]
    _prev_under: dict[str, SlotObs]
    accept: Callable[[str], bool] | None
    fusion: QrFusion

    def _reads_any(self, wanted: set[str] | None, changed: set[str], retry: set[str], quick: set[str]) -> bool:
        """Whether the loops of ``read`` will read any stand, slot or under-mat area this frame (the same
        tests as theirs); when none, the obstruction finder and the patch classifier have nothing to serve."""
        if any(self._reads(sid, wanted, changed) for sid in self.stand_regions):
            return True
        if any(self._reads_slot(sid, wanted, changed, retry, quick) for sid in self.slot_regions):
            return True
        return any(not (wanted is not None and under_slot(rid) not in wanted and under_slot(rid) in self.last_under)
                   and not (rid not in changed and settled(self._prev_under.get(under_slot(rid))))
                   for rid in self.under_regions)

    def _reads(self, sid: str, wanted: set[str] | None, changed: set[str]) -> bool:
        """Whether ``read`` reads stand ``sid`` this frame (the others repeat their last reading)."""
        return not (wanted is not None and sid not in wanted and sid in self.last_stands) and not (
            sid not in changed and settled(self._prev_stands.get(sid)))

    def _reads_slot(self, sid: str, wanted: set[str] | None, changed: set[str], retry: set[str],
                    quick: set[str]) -> bool:
        """Whether ``read`` reads slot ``sid`` in full this frame (the others repeat, or retry only the code)."""
        return not (wanted is not None and sid not in wanted and sid in self.last_slots) and sid not in quick and not (
            sid not in changed and sid not in retry and self._settled_slot(sid, self._prev_slots.get(sid)))

    def _settled_slot(self, sid: str, obs: SlotObs | None) -> bool:
        """``_settled``, except a face-down card whose code is not read yet while its frames still help."""
        if not settled(obs):
            return False
        assert obs is not None
        return not (self.accept is not None and obs.state == "down" and obs.payload is None
                    and not self.fusion.exhausted(sid))
