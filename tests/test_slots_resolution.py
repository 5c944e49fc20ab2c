"""The slot decision is resolution-independent: its sizes are in mm (``vision.slots``: the changed mask's
opening, the calm area that measures the light, the narrowest zone), so a slot decided at 1 px/mm (the
reader's ``SLOT_PX_PER_MM``) and at 2 px/mm gives the same reading, and the same table seen at 2028x1520
and at 1014x760 is read alike. Seeds are neither the stress bench's (7, 11) nor the other slot tests'."""

from __future__ import annotations

import numpy as np

from calibration.camera import default_pose
from tests.overhead_support import PALETTE, layout, pose, random_slots, reference, renderer
from vision.board import BoardReader
from vision.colour import chroma
from vision.regions import SLOT_PX_PER_MM, slot_regions
from vision.slots import OPEN_RADIUS_MM, changed_mask, read_slot
from vision.synth import Renderer, SlotCard, TableScene
from vision.warp import extract


def face(slots: dict[str, list[SlotCard]], sid: str) -> str:
    return slots.get(sid, [SlotCard("empty")])[-1].face


def test_the_mask_opening_is_a_size_in_mm() -> None:
    # a changed square of 1.4 mm survives no opening; one of 4 mm survives at 1 and at 2 px/mm
    for k in (1.0, 2.0):
        n = round(40 * k)
        ref = (np.full((n, n, 3), 1 / 3, np.float32), np.full((n, n), 450.0, np.float32))
        patch = np.full((n, n, 3), 150, np.uint8)
        for side_mm, x_mm in ((1.4, 8), (4.0, 24)):
            a, b = round(x_mm * k), round((x_mm + side_mm) * k)
            patch[a:b, a:b] = (40, 40, 210)
        m = changed_mask(patch, ref, k=k)
        small, large = m[round(8 * k):round(9.4 * k), round(8 * k):round(9.4 * k)], m[round(25 * k), round(25 * k)]
        assert not small.any() and bool(large), k
    assert OPEN_RADIUS_MM * SLOT_PX_PER_MM == 1.0  # the 3x3 square it was at 1 px/mm


def test_each_slot_is_decided_alike_at_1_and_2_px_per_mm() -> None:
    rng = np.random.default_rng(51)
    slots = random_slots(rng, 51)
    frame = renderer().render(TableScene({}, slots), seed=51, blur=0.6, noise=1.5)
    read: dict[float, dict[str, tuple[str, str | None]]] = {}
    for k in (SLOT_PX_PER_MM, 2.0):
        read[k] = {}
        for sid, reg in slot_regions(layout(), pose(), k).items():
            ref = chroma(extract(reference(), reg.H, reg.size))
            state, payload, conf, obstructed = read_slot(frame, reg.H, reg.size, k, ref, layout().card_size_mm)
            read[k][sid] = ("?", None) if obstructed or conf < 0.5 else (state, payload)
    differ = {sid: (a, read[2.0][sid]) for sid, a in read[SLOT_PX_PER_MM].items() if a != read[2.0][sid]}
    assert not differ, differ
    for sid, (state, payload) in read[SLOT_PX_PER_MM].items():
        assert state == face(slots, sid), sid
        assert payload in (None, slots[sid][-1].payload) if state == "down" else payload is None, sid
    assert sum(s != "empty" for s, _ in read[SLOT_PX_PER_MM].values()) >= 6


def test_the_same_table_is_read_alike_at_2028x1520_and_1014x760() -> None:
    slots = random_slots(np.random.default_rng(53), 53)
    readings = []
    for size in ((2028, 1520), (1014, 760)):
        p = default_pose(layout(), image_size=size)
        r = Renderer(layout(), p, PALETTE)
        clean, _ = r.compose(TableScene({}, slots), seed=53)
        reader = BoardReader(layout(), p, PALETTE, r.render(TableScene({}), seed=553))
        obs = reader.read(r.finish(clean, seed=530))
        read = {sid: o.state for sid, o in obs.slots.items() if not o.obstructed}
        assert len(read) == len(layout().slots), (size, sorted(set(obs.slots) - set(read)))
        assert read == {sid: face(slots, sid) for sid in read}, size
        readings.append(read)
    assert readings[0] == readings[1]
