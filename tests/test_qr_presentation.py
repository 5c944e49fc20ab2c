"""A live presentation is one read: frames combined when no single frame decodes, never a wrong payload."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from rules.kipukas.identity import is_kipukas_payload
from vision.card_reader import CardReader
from vision.qr_presentation import PresentationConfig, PresentationReader
from vision.synth.qr import SynthSample, SynthSet

Image = npt.NDArray[np.uint8]


def _speckled(sample: SynthSample, seed: int, count: int = 10) -> list[Image]:
    """`count` copies of the frame, each with a different ~40 % of the code's interior painted over.

    Every frame keeps its finders but loses more modules than error correction can restore; each
    module is hidden in fewer than half of the frames, so a median over the frames recovers it.
    """
    corners = np.array(sample.corners[0])
    centre = corners.mean(axis=0)
    side = float(np.linalg.norm(corners[1] - corners[0]))
    module = side / 29
    rng = np.random.default_rng(seed)
    frames: list[Image] = []
    for _ in range(count):
        frame = sample.frame.copy()
        mask = np.zeros(frame.shape[:2], np.uint8)
        for _ in range(int(0.9 * (0.6 * side) ** 2 / (2 * module) ** 2)):
            p = centre + rng.uniform(-0.3, 0.3, 2) * side
            cv2.rectangle(mask, tuple((p - module).astype(int)), tuple((p + module).astype(int)), 255, -1)
        frame[mask > 0] = rng.choice(np.array([(30, 30, 30), (40, 200, 250)]), 1)[0]
        frames.append(frame)
    return frames


@pytest.mark.parametrize("index", [1, 5])
def test_fused_frames_read_a_code_no_single_frame_reads(index: int) -> None:
    sample = SynthSet(seed=3).sample("clean", index)
    frames = _speckled(sample, index)
    single = CardReader(accept=is_kipukas_payload)
    assert all(single.read(f) == [] for f in frames)
    live = PresentationReader(CardReader(accept=is_kipukas_payload))
    reads = [{r.raw for r in live.read(f)} for f in frames]
    assert set().union(*reads) == set(sample.payloads)
    assert live.fused_reads >= 1


@pytest.mark.parametrize("condition", ["motion_blur", "fingers", "sleeve_glare", "far"])
def test_hard_presentations_are_read_and_never_wrong(condition: str) -> None:
    show = SynthSet(seed=41).presentation(condition, 0, frames=8)
    live = PresentationReader(CardReader(accept=is_kipukas_payload))
    got: set[str] = set()
    for frame in show.frames:
        got |= {r.raw for r in live.read(frame)}
    assert got == set(show.payloads)


def test_blank_frames_read_nothing() -> None:
    rng = np.random.default_rng(2)
    live = PresentationReader(CardReader(accept=is_kipukas_payload))
    for _ in range(6):
        frame = np.clip(rng.normal(120, 8, (720, 1280, 3)), 0, 255).astype(np.uint8)
        assert live.read(frame) == []
    assert live.fused_reads == 0


def test_presentation_frames_move_and_keep_their_payload() -> None:
    synth = SynthSet(seed=8)
    a, b = synth.presentation("purple_light", 1, frames=3), SynthSet(seed=8).presentation("purple_light", 1, frames=3)
    assert a.payloads == b.payloads and all(np.array_equal(x, y) for x, y in zip(a.frames, b.frames, strict=True))
    assert len(a.frames) == 3 and not np.array_equal(a.frames[0], a.frames[2])
    assert len(a.corners) == 3 and a.corners[0] != a.corners[2]


def test_config_is_checked() -> None:
    with pytest.raises(ValueError, match="window"):
        PresentationConfig(window=1)
    with pytest.raises(ValueError, match="budget"):
        PresentationConfig(budget_ms=0)
    with pytest.raises(ValueError, match="two_cards"):
        SynthSet(seed=1).presentation("two_cards", 0)
