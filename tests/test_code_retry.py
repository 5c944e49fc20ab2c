"""The appliance's reader (with a payload check, so face-down codes are fused over frames): an unread
face-down card in a slot that did not change is retried by its code alone, never by a full re-read of the
slot (which also ran the whole-frame obstruction finder and the patch classifier), until fusing more of its
frames would not help; a slot that changed is read in full again."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from rules.kipukas.identity import is_kipukas_payload
from tracker.overhead.layout import table_layout
from tracker.runtime.demo import PALETTE
from vision.board import BoardReader
from vision.slot_qr_fusion import MAX_FRAMES
from vision.synth import Renderer, SlotCard, TableScene

PAYLOAD = "kpks.us/B001#0042?x3"


@pytest.fixture(scope="module")
def table() -> tuple[Renderer, np.ndarray, np.ndarray, BoardReader]:
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    # the empty table as blurred as the play frames, so that only the card's slot is ever unsure
    ref = renderer.finish(renderer.compose(TableScene({}), seed=31)[0], seed=31, blur=3.0, light_angle=0.5)
    clean, _ = renderer.compose(TableScene({}, {"3": [SlotCard("down", PAYLOAD)]}), seed=32)
    empty, _ = renderer.compose(TableScene({}), seed=32)
    return renderer, clean, empty, BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload)


def test_an_unread_card_is_fused_by_its_code_alone_until_fusion_gives_up(
        table: tuple[Renderer, np.ndarray, np.ndarray, BoardReader]) -> None:
    renderer, clean, empty, reader = table
    finds = 0
    find_small = reader.finder.find_small if reader.finder is not None else None

    def counted(*a: object, **k: object) -> object:
        nonlocal finds
        finds += 1
        assert find_small is not None
        return find_small(*a, **k)  # type: ignore[arg-type]

    first = reader.read(renderer.finish(clean, seed=40, blur=3.0, light_angle=0.5))  # too blurred to decode
    assert first.slots["3"].state == "down" and first.slots["3"].payload is None and not first.slots["3"].obstructed
    assert reader.fusion.frames("3") == 1
    assert reader.finder is not None
    reader.finder.find_small = counted  # type: ignore[method-assign]
    fused = []
    for n in range(MAX_FRAMES + 2):
        obs = reader.read(renderer.finish(clean, seed=41 + n, blur=3.0, light_angle=0.5))
        slot = obs.slots["3"]
        assert slot.state == "down" and not slot.obstructed
        assert slot.payload in (None, PAYLOAD)  # never another card's
        if slot.payload is not None:
            break
        assert reader.regions_read == 0  # no stand, slot or under-mat area was read in full
        fused.append((reader.qr_retried, reader.fusion.frames("3")))
    assert finds == 0  # nor did any frame need the whole-frame obstruction finder
    if fused and len(fused) == MAX_FRAMES + 2:  # never decoded: tried on each frame until the stack is full
        assert fused[:MAX_FRAMES - 1] == [(1, n + 2) for n in range(MAX_FRAMES - 1)]
        assert fused[MAX_FRAMES - 1:] == [(0, MAX_FRAMES)] * 3
    # the card taken away: the slot changed, so it is read in full again (and found empty)
    gone = reader.read(renderer.finish(empty, seed=60, blur=3.0, light_angle=0.5))
    assert reader.regions_read >= 1 and finds == 1
    assert gone.slots["3"].state == "empty" and gone.slots["3"].payload is None
