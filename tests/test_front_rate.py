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
    for i in range(frames):  # the card sways between two places: every frame differs from the one before
        moved = np.roll(photo, 6 * (i % 2), axis=1)
        before, skipped = len(decoded), camera.skipped
        shown = camera.process(Frame(i, i / 15.0, moved, simulated_lores(moved)))
        if camera.skipped > skipped:
            assert len(decoded) == before and shown == []  # not read: no card claimed from an older frame
        events += [e.payload for e in shown]
    assert events == truth  # seen at once (the bucket starts full), one presentation
    spent = len(decoded) * READ_COST_S
    assert spent <= BURST_S + frames * share + READ_COST_S  # the share, plus one decode's overdraft
    assert len(decoded) >= (frames * share) / READ_COST_S - 1  # and the share is used
    assert camera.skipped > 0


def test_after_skips_the_first_frame_with_time_is_read_once() -> None:
    photo, truth = _photo()
    camera, decoded = _metered(0.02)
    for i in range(8):  # empty the bucket with a swaying card
        moved = np.roll(photo, 6 * (i % 2), axis=1)
        camera.process(Frame(i, i / 15.0, moved))
    assert camera.skipped > 0 and camera.credit_s <= 0.02
    held = np.roll(photo, 40, axis=0)  # then held still somewhere else, ten seconds later
    reads, seen = len(decoded), []
    for i in range(8, 20):
        seen += [e.payload for e in camera.process(Frame(i, 10.0 + i / 15.0, held))]
    assert len(decoded) == reads + 1  # skipped while there was no time, then read once, then still
    assert seen == truth  # a new presentation (after the gap)


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
