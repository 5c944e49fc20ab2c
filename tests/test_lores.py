"""The camera's low-resolution stream (picamera2's lores) through the frame source, the loop and the reader.

A reading with the lores must be the reading without it (the lores only spares the reader shrinking the
frame itself), a lores that is not the frame's view is refused naming it, and the YUV420 buffer picamera2
hands over (rows padded to a stride) becomes the right BGR image.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from tracker.sources.capture import simulated_lores
from tracker.sources.open import lores_size
from tracker.sources.picamera import lores_bgr
from vision.board import BoardReader
from vision.errors import VisionError
from vision.observation import BoardObservation
from vision.synth import Renderer, SlotCard, TableScene, Token

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}


def _same(a: BoardObservation, b: BoardObservation) -> None:
    assert a.stands == b.stands
    assert a.slots == b.slots
    assert a.under == b.under
    assert a.unreadable == b.unreadable


def test_a_reading_with_the_lores_is_the_reading_without_it() -> None:
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    stands = [s.id for s in layout.stands]
    slots = [s.id for s in layout.slots]
    scene = TableScene({stands[0]: Token("capital", "red"), stands[3]: Token("soul", "blue", count=2)},
                       {slots[0]: [SlotCard("up")], slots[2]: [SlotCard("down", "kpks.us/ABCD#0001?x")]})
    clean, _ = renderer.compose(scene, seed=3)
    frames = [renderer.finish(clean, seed=s, noise=1.0, jpeg_quality=90) for s in (1, 2)]
    base = renderer.base()
    plain = BoardReader(layout, pose, PALETTE, base)
    lores = BoardReader(layout, pose, PALETTE, base)
    for frame in frames:  # a full read, then a frame where nothing changed
        want = plain.read(frame)
        got = lores.read(frame, lores=simulated_lores(frame))
        _same(got, want)
    assert want.stands[stands[0]].state == "capital" and want.slots[slots[0]].state == "up"
    # picamera2's lores is 508x380 beside 2028x1520 (YUV420 wants even sizes): taken through one resize
    odd = cv2.resize(frames[1], lores_size(2028, 1520), interpolation=cv2.INTER_AREA)
    assert odd.shape[:2] == (380, 508)
    assert lores.read(frames[1], lores=odd).stands[stands[0]].state == "capital"


def test_a_lores_of_another_view_or_kind_is_refused_naming_it() -> None:
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    reader = BoardReader(layout, pose, PALETTE)
    frame = np.full((pose.image_size[1], pose.image_size[0], 3), 120, np.uint8)
    with pytest.raises(VisionError, match=r"lores: .*aspect"):
        reader.read(frame, lores=np.full((380, 300, 3), 120, np.uint8))
    with pytest.raises(VisionError, match="lores: expected a BGR"):
        reader.read(frame, lores=np.full((380, 507), 120, np.uint8))


def test_picamera2_yuv420_lores_with_stride_padding_becomes_its_bgr_image() -> None:
    rng = np.random.default_rng(8)
    w, h, stride = 160, 120, 192
    bgr = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (7, 7), 2.0)
    i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420)  # (h * 3 / 2, w): Y, then U, then V, unpadded
    y, u, v = i420[:h], i420[h:h + h // 4].reshape(h // 2, w // 2), i420[h + h // 4:].reshape(h // 2, w // 2)
    padded = np.zeros((h * 3 // 2, stride), np.uint8)  # picamera2's layout: rows padded to the stride
    padded[:h, :w] = y
    chroma = np.zeros((2, h // 2, stride // 2), np.uint8)
    chroma[0, :, :w // 2], chroma[1, :, :w // 2] = u, v
    padded[h:] = chroma.reshape(h // 2, stride)
    got = lores_bgr(padded, w, h)
    want = cv2.cvtColor(i420, cv2.COLOR_YUV2BGR_I420)
    assert got.shape == (h, w, 3)
    assert np.array_equal(got, want)
    assert float(np.abs(got.astype(np.int16) - bgr).mean()) < 3.0  # and that is the picture (YUV rounding)


def test_the_lores_asked_of_a_pi_camera_is_a_quarter_and_even() -> None:
    assert lores_size(2028, 1520) == (508, 380)
    assert lores_size(1280, 720) == (320, 180)
    assert lores_size(4, 4) == (2, 2)
