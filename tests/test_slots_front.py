"""The slots' speed steps of issue 14 (speed10): a card that is a front by both measures (nothing like the
back's colours, and the patch classifier sure it lies face up) is not searched for a code; a back, or a
card either measure is unsure of, is searched as before; and the back-likeness of a card's cells, taken
from one map of the card, is what each cell measured on its own gave."""

from __future__ import annotations

import numpy as np
import pytest

import vision.slots
from tests.overhead_support import PALETTE, layout, pose, random_slots, reference, renderer
from vision.board import BoardReader
from vision.slots import FRONT_LIKE_MAX, back_like, back_likeness, is_front, min_cell_likeness
from vision.synth import SlotCard, TableScene
from vision.synth.cards import card_back


def sure(of: str, p: float = 0.99):  # type: ignore[no-untyped-def]
    return lambda cands: (of, p, False) if of in cands else None


def test_a_front_needs_both_measures() -> None:
    assert is_front(0.0, sure("up"))
    assert not is_front(0.0, None)  # no classifier: the search runs
    assert not is_front(0.0, lambda cands: None)  # the classifier not sure of face up
    assert not is_front(FRONT_LIKE_MAX, sure("up"))  # colours not far enough from the back's
    assert not is_front(0.5, sure("up"))


@pytest.mark.parametrize("seed", [61, 62])
def test_fronts_are_not_searched_and_backs_are(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    slots = random_slots(np.random.default_rng(seed), seed)
    frame = renderer().render(TableScene({}, slots), seed=seed, blur=0.5, noise=1.5)
    searched: list[str | None] = []
    plain = vision.slots.card_code

    def counted(*a: object, **k: object) -> str | None:
        got = plain(*a, **k)  # type: ignore[arg-type]
        searched.append(got)
        return got

    monkeypatch.setattr(vision.slots, "card_code", counted)
    obs = BoardReader(layout(), pose(), PALETTE, reference()).read(frame)
    faces = {s.id: slots.get(s.id, [SlotCard("empty")])[-1] for s in layout().slots}
    ups = [sid for sid, c in faces.items() if c.face == "up"]
    downs = [sid for sid, c in faces.items() if c.face == "down"]
    assert ups and downs
    for sid, card in faces.items():
        o = obs.slots[sid]
        assert not o.obstructed and o.state == card.face, (sid, o)
        assert o.payload in ((None, card.payload) if card.face == "down" else (None,)), sid
    assert len(searched) == len(downs), "every back searched once, no front searched"
    assert sum(p is not None for p in searched) >= 0.8 * len(downs)


@pytest.mark.parametrize("seed", range(4))
def test_cell_likeness_from_the_cards_map_is_each_cells_own(seed: int) -> None:
    rng = np.random.default_rng(seed)
    card = card_back(f"kpks.us/CELL#{seed:04d}")[::3, ::3].copy()
    card[: card.shape[0] // 3 + seed, : card.shape[1] // 2] = rng.integers(0, 256, 3)  # one cell covered
    noisy = np.clip(card + rng.normal(0, 6, card.shape), 0, 255).astype(np.uint8)
    back = back_like(noisy)
    assert float(back.mean()) == back_likeness(noisy)
    assert min_cell_likeness(noisy, like=back) == min_cell_likeness(noisy)
    assert min_cell_likeness(noisy) < 0.5 * back_likeness(noisy) and back_likeness(noisy) > 0.1
