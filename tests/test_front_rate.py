"""The front camera reads at its own rate beside the overhead loop: on average no more CPU time per frame
than its share, a frame skipped for time never reports a card, a card shown after a quiet spell is read at
once, and the still-frame gate works from the camera's low-resolution stream."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.qr_helpers import DEV_PHOTOS, dev_truth
from tracker.front.camera import BURST_S, FrontCamera
from tracker.sources.capture import Frame, simulated_lores
from vision.change import StillFrames

READ_COST_S = 0.1  # CPU time each decode is made to take (the clock below counts it)


def _photo() -> tuple[np.ndarray, list[str]]:
    name = next(n for n, cards in sorted(dev_truth().items()) if len(cards) == 1 and "#" in cards[0])
    photo = cv2.imread(str(DEV_PHOTOS / name))
    assert photo is not None
    return photo, dev_truth()[name]


def _metered(share: float) -> tuple[FrontCamera, list[int]]:
    """A camera whose decodes each cost ``READ_COST_S`` on its CPU clock, and the list of decoded frames."""
    now = [0.0]
    camera = FrontCamera(cpu_per_frame_s=share, clock=lambda: now[0])
    decoded: list[int] = []
    read = camera.frames.read

    def metered(image: np.ndarray) -> list:  # type: ignore[type-arg]
        decoded.append(1)
        now[0] += READ_COST_S
        return read(image)

    camera.frames.read = metered  # type: ignore[method-assign]
    return camera, decoded


def test_a_moving_view_is_decoded_within_the_cpu_share_and_skipped_frames_report_nothing() -> None:
    photo, truth = _photo()
    share = 0.02
    camera, decoded = _metered(share)
    events: list[str] = []
    frames = 40
    for i in range(frames):  # the card moves a little in every frame: never still
        moved = np.roll(photo, 6 * (i % 2), axis=1)
        before = len(decoded)
        shown = camera.process(Frame(i, i / 15.0, moved, simulated_lores(moved)))
        if len(decoded) == before:
            assert shown == [] and camera._last == {}  # not read: no card claimed from an older frame
        events += [e.payload for e in shown]
    assert events == truth  # seen at once (the bucket starts full), one presentation
    spent = len(decoded) * READ_COST_S
    assert spent <= BURST_S + frames * share + READ_COST_S  # the share, plus one decode's overdraft
    assert len(decoded) >= (frames * share) / READ_COST_S  # and the share is used
    assert camera.skipped == frames - len(decoded)


def test_after_a_skip_the_next_frame_with_time_is_read_even_if_nothing_moved() -> None:
    photo, truth = _photo()
    camera, decoded = _metered(0.02)
    for i in range(6):  # empty the bucket with a moving view
        moved = np.roll(photo, 6 * (i % 2), axis=1)
        camera.process(Frame(i, i / 15.0, moved))
    assert camera.skipped > 0
    still = np.roll(photo, 6, axis=1)
    seen: list[str] = []
    for i in range(6, 30):  # now held still: read once when there is time, then not again
        seen += [e.payload for e in camera.process(Frame(i, 10.0 + i / 15.0, still))]
    assert seen == truth  # a new presentation (after the gap), read once
    reads_after = len(decoded)
    for i in range(30, 36):
        camera.process(Frame(i, 10.0 + i / 15.0, still))
    assert len(decoded) == reads_after


def test_without_a_share_every_moving_frame_is_decoded() -> None:
    photo, _ = _photo()
    camera = FrontCamera()
    decoded: list[int] = []
    read = camera.frames.read

    def counting(image: np.ndarray) -> list:  # type: ignore[type-arg]
        decoded.append(1)
        return read(image)

    camera.frames.read = counting  # type: ignore[method-assign]
    for i in range(4):
        camera.process(Frame(i, i / 15.0, np.roll(photo, 6 * (i % 2), axis=1)))
    assert len(decoded) == 4 and camera.skipped == 0
    with pytest.raises(ValueError, match="cpu_per_frame_s"):
        FrontCamera(cpu_per_frame_s=0.0)


def test_the_still_gate_on_the_lores_agrees_with_the_gate_on_the_frame() -> None:
    rng = np.random.default_rng(31)
    photo, _ = _photo()
    on_frame, on_lores = StillFrames(), StillFrames()
    shifted = np.roll(photo, 40, axis=0)
    for img in (photo, photo, shifted, shifted, (shifted * 0.9).astype(np.uint8)):
        noisy = np.clip(img + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)
        assert on_lores.still(noisy, simulated_lores(noisy)) == on_frame.still(noisy)
