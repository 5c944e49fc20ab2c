"""Frames in which nothing moved cost almost nothing, and only what changed (or an unread face-down card) is
read again: the overhead reader, the front camera's gate, and the demo's frames that no longer jiggle."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tests.qr_helpers import DEV_PHOTOS, dev_truth
from tracker.front.camera import FrontCamera
from tracker.overhead.layout import table_layout
from tracker.runtime.demo import PALETTE, DemoFrames, DemoTable
from tracker.runtime.demo_script import demo_steps
from tracker.sources.capture import Frame
from vision.board import QR_RETRIES, BoardReader
from vision.change import RECHECK_FRAMES, StillFrames
from vision.synth import Renderer, SlotCard, TableScene


def _noisy(img: np.ndarray, rng: np.random.Generator, sigma: float = 2.0) -> np.ndarray:
    return np.clip(img + rng.normal(0.0, sigma, img.shape), 0, 255).astype(np.uint8)


def test_still_frames_ignore_noise_and_exposure_but_not_a_moving_card() -> None:
    rng = np.random.default_rng(21)
    scene = cv2.GaussianBlur(rng.integers(0, 256, (360, 640, 3), dtype=np.uint8), (0, 0), 3)
    gate = StillFrames()
    assert not gate.still(scene)  # the first frame is always read
    assert gate.still(_noisy(scene, rng))
    assert gate.still((scene * 0.85).astype(np.uint8))  # the camera re-exposed
    moved = scene.copy()
    moved[100:180, 200:260] = (240, 240, 240)  # a card comes into view
    assert not gate.still(moved)
    assert gate.still(_noisy(moved, rng))  # compared with the frame read last, not the first one
    reads = [gate.still(_noisy(moved, rng)) for _ in range(2 * RECHECK_FRAMES)]
    assert reads.count(False) == 2  # a still scene is read again every RECHECK_FRAMES frames


def test_front_camera_decodes_only_frames_where_something_moved() -> None:
    name = next(n for n, cards in sorted(dev_truth().items()) if len(cards) == 1 and "#" in cards[0])
    photo = cv2.imread(str(DEV_PHOTOS / name))
    assert photo is not None
    camera = FrontCamera()
    decoded: list[int] = []
    read = camera.frames.read

    def counting(image: np.ndarray) -> list:  # type: ignore[type-arg]
        decoded.append(1)
        return read(image)

    camera.frames.read = counting  # type: ignore[method-assign]
    rng = np.random.default_rng(22)
    events = []
    for i in range(6):  # the card held still for six frames: one decode, one presentation
        events += camera.process(Frame(i, i * 0.25, _noisy(photo, rng)))
    assert len(decoded) == 1
    assert [e.payload for e in events] == dev_truth()[name]
    blank = np.full_like(photo, 110)
    assert camera.process(Frame(6, 1.5, blank)) == []  # the card went away: read, nothing seen
    assert len(decoded) == 2


def test_demo_frames_keep_pieces_in_place_so_settled_frames_change_no_region() -> None:
    """The demo used to re-place every piece and card (and turn its lamp) in every frame, so ~9 slots a
    frame counted as changed although nothing moved."""
    demo = DemoTable(fps=None, repeat=False)
    frames = list(DemoFrames(demo.renderer, demo_steps()[:4], hand_frames=1, settled_frames=3).frames())
    reader = demo.reader
    seen: list[set[str]] = []
    test = reader.changes.changed

    def recording(small: np.ndarray, always: set[str]) -> set[str]:
        out = test(small, always)
        seen.append(out)
        return out

    reader.changes.changed = recording  # type: ignore[method-assign]
    late: list[set[str]] = []
    for k, (index, _, _, frame) in enumerate(frames):
        reader.read(frame)
        if k >= 2 and frames[k - 2][0] == index:  # a step's second and third settled frames
            late.append(seen[-1])
    assert len(late) == 8
    assert all(c == set() for c in late), late


@pytest.fixture(scope="module")
def blurred_back() -> tuple[BoardReader, Renderer, np.ndarray]:
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    reader = BoardReader(layout, pose, PALETTE, renderer.render(TableScene({}), seed=31))
    clean, _ = renderer.compose(TableScene({}, {"3": [SlotCard("down", "kpks.us/B001#0042?x3")]}), seed=32)
    return reader, renderer, clean


def test_an_unread_face_down_card_is_tried_again_for_a_few_unchanged_frames_only(
        blurred_back: tuple[BoardReader, Renderer, np.ndarray]) -> None:
    reader, renderer, clean = blurred_back
    first = reader.read(renderer.finish(clean, seed=40, blur=3.0, light_angle=0.5))  # too blurred for its QR code
    assert first.slots["3"].state == "down" and first.slots["3"].payload is None
    assert not first.slots["3"].obstructed
    tries = []
    for n in range(QR_RETRIES + 3):
        obs = reader.read(renderer.finish(clean, seed=41 + n, blur=3.0, light_angle=0.5))
        assert obs.slots["3"].state == "down" and not obs.slots["3"].obstructed
        tries.append(reader._qr_tries.get("3", 0))
    assert tries == [min(n + 1, QR_RETRIES) for n in range(QR_RETRIES + 3)]
    # once the retries are spent the slot is not read again: its reading is the very same object
    again = reader.read(renderer.finish(clean, seed=99, blur=3.0, light_angle=0.5))
    assert again.slots["3"] is reader.read(renderer.finish(clean, seed=100, blur=3.0, light_angle=0.5)).slots["3"]
