"""Mat slots: empty, face down (QR payload read from the camouflaged back), face up, landscape."""

from __future__ import annotations

import numpy as np
import pytest

from tests.overhead_support import PALETTE, layout, pose, random_slots, reference, renderer
from vision.board import BoardReader
from vision.slots import decode_qr
from vision.synth import SlotCard, TableScene
from vision.synth.cards import card_back, qr_modules


def test_card_back_carries_the_payload_not_the_art_qr() -> None:
    import cv2

    back = card_back("kpks.us/ABCD#0007?secret")
    assert decode_qr(cv2.cvtColor(back, cv2.COLOR_BGR2GRAY)) == "kpks.us/ABCD#0007?secret"
    assert qr_modules("x").shape[0] >= 21


@pytest.mark.parametrize("seed", [1, 2])
def test_every_slot_is_read(seed: int) -> None:
    slots = random_slots(np.random.default_rng(seed), seed)
    frame = renderer().render(TableScene({}, slots), seed=seed)
    obs = BoardReader(layout(), pose(), PALETTE, reference()).read(frame)
    downs = reads = 0
    for s in layout().slots:
        card = slots.get(s.id, [SlotCard("empty")])[-1]
        o = obs.slots[s.id]
        assert not o.obstructed, s.id
        assert o.state == card.face, s.id
        if card.face == "down":
            downs += 1
            reads += o.payload == card.payload
            assert o.payload in (None, card.payload)
        else:
            assert o.payload is None
    assert reads >= 0.8 * downs


def test_slots_without_reference_use_the_mat_artwork() -> None:
    slots = random_slots(np.random.default_rng(5), 5)
    frame = renderer().render(TableScene({}, slots), seed=5, lighting=0.9)
    obs = BoardReader(layout(), pose(), PALETTE).read(frame)
    assert {sid: o.state for sid, o in obs.slots.items()} == {
        s.id: slots.get(s.id, [SlotCard("empty")])[-1].face for s in layout().slots}


def test_hand_over_a_slot_obstructs_it() -> None:
    reader = BoardReader(layout(), pose(), PALETTE, reference())
    seen = 0
    for seed in range(40, 46):
        frame, truth = renderer().render_with_truth(TableScene({}, {}, hands=1), seed=seed)
        obs = reader.read(frame)
        for sid, o in obs.slots.items():
            if truth.occluded[sid] > 0.05:
                seen += 1
                assert o.obstructed, f"seed {seed}: slot {sid}"
            elif not o.obstructed:
                assert o.state == "empty"
    assert seen >= 2
