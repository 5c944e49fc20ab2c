"""The slots' change test and chromaticity computed once on a stack of all the slots a frame reads
(``vision.slot_stack``, issue 14) give every slot the very values its own ``changed_mask`` gave, and so the
very same reading."""

from __future__ import annotations

import numpy as np
import pytest

from vision.colour import chroma
from vision.slot_stack import slot_passes
from vision.slots import changed_mask


def _slot(rng: np.random.Generator, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded empty slot (mat art: smooth blocks, a dark band) and a frame of it: a card or an object over
    part of it, or nothing; a brighter or dimmer light; noise."""
    base = rng.integers(20, 250, (h // 8 + 1, w // 8 + 1, 3)).astype(np.float32)
    empty = np.asarray(np.kron(base, np.ones((8, 8, 1)))[:h, :w], np.float32) + rng.normal(0, 5, (h, w, 3))
    empty[int(rng.integers(0, h)):][:int(rng.integers(0, h // 4))] *= 0.1
    frame = empty * rng.uniform(0.7, 1.3)
    what = int(rng.integers(0, 3))
    if what:
        y0, x0 = int(rng.integers(0, h // 2)), int(rng.integers(0, w // 2))
        y1, x1 = y0 + int(rng.integers(h // 4, h // 2 + 1)), x0 + int(rng.integers(w // 4, w // 2 + 1))
        frame[y0:y1, x0:x1] = rng.integers(0, 256, 3) if what == 1 else rng.integers(0, 256, (y1 - y0, x1 - x0, 3))
        frame[y0 + 3:y1 - 3, x0 + 3:x1 - 3] = rng.integers(0, 256, 3)  # a card's pale art inside its edge
    frame += rng.normal(0, 2.0, frame.shape)
    return np.clip(empty, 0, 255).astype(np.uint8), np.clip(frame, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("seed", range(4))
def test_each_slots_passes_are_its_own(seed: int) -> None:
    rng = np.random.default_rng(1660 + seed)
    inputs = {}
    for i in range(20):
        (h, w), k = (((155, 155), 1.0), ((127, 90), 1.0), ((233, 143), 1.5))[i % 3]
        empty, frame = _slot(rng, h, w)
        inputs[f"P{i}"] = (frame, chroma(empty), k)
    got = slot_passes(inputs)
    assert set(got) == set(inputs)
    for sid, (patch, ref, k) in inputs.items():
        kept, (c, s), mask = got[sid]
        want_c, want_s = chroma(patch)
        assert kept is patch and np.array_equal(c, want_c) and np.array_equal(s, want_s)
        want = changed_mask(patch, ref, k=k)
        assert mask.dtype == want.dtype and np.array_equal(mask, want), sid


def test_a_model_of_another_size_is_left_to_the_slot() -> None:
    rng = np.random.default_rng(5)
    empty, frame = _slot(rng, 60, 40)
    assert slot_passes({"P": (frame, chroma(empty[:50]), 1.0)}) == {}
