"""The card reader on the real dev photos, on several cards at once, and on stray (non-Kipukas) codes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from rules.kipukas.identity import is_kipukas_payload
from tests.qr_helpers import DEV_PHOTOS, dev_truth, plain_qr
from vision.card_reader import CardReader, ReaderConfig

TRUTH = dev_truth()


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader(accept=is_kipukas_payload)


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_dev_photo_reads_exactly_its_cards(reader: CardReader, name: str) -> None:
    frame = cv2.imread(str(DEV_PHOTOS / name))
    assert frame is not None, name
    reads = reader.read(frame)
    assert sorted(r.raw for r in reads) == sorted(TRUTH[name])
    h, w = frame.shape[:2]
    for r in reads:
        assert len(r.corners) == 4
        # corners lie on (or just beyond, for a code cut by the edge) the frame
        assert all(-0.1 * w <= x <= 1.1 * w and -0.1 * h <= y <= 1.1 * h for x, y in r.corners)


def test_dev_set_has_multi_card_photos() -> None:
    assert sum(len(cards) >= 2 for cards in TRUTH.values()) >= 2


@pytest.mark.parametrize("name", sorted(n for n, cards in TRUTH.items() if len(cards) >= 2))
def test_multi_card_corners_are_separate_codes(reader: CardReader, name: str) -> None:
    frame = cv2.imread(str(DEV_PHOTOS / name))
    reads = reader.read(frame)
    centres = [np.mean(np.array(r.corners), axis=0) for r in reads]
    assert len(centres) == len(TRUTH[name])
    for i in range(len(centres)):
        for j in range(i + 1, len(centres)):
            assert np.linalg.norm(centres[i] - centres[j]) > 100


def test_stray_qr_is_ignored_but_kipukas_card_still_read(reader: CardReader) -> None:
    name = next(n for n, cards in sorted(TRUTH.items()) if len(cards) == 1)
    frame = cv2.imread(str(DEV_PHOTOS / name))
    label = plain_qr("https://shop.example.com/price?sku=1299", 4)
    canvas = np.full((frame.shape[0], frame.shape[1] + label.shape[1] + 40, 3), 200, np.uint8)
    canvas[:, : frame.shape[1]] = frame
    canvas[20 : 20 + label.shape[0], frame.shape[1] + 20 : frame.shape[1] + 20 + label.shape[1]] = label
    assert [r.raw for r in reader.read(canvas)] == TRUTH[name]
    # the stray code is really decodable: without the Kipukas filter it is reported too
    everything = {r.raw for r in CardReader().read(canvas)}
    assert "https://shop.example.com/price?sku=1299" in everything


def test_plain_codes_several_per_frame_and_deduplicated() -> None:
    payloads = ["kpks.us/AbCd#0001?tok111", "kpks.us/AbCd#0002?tok222", "https://www.kpks.us/frlU"]
    frame = np.full((720, 1280, 3), 230, np.uint8)
    for i, payload in enumerate(payloads):
        code = plain_qr(payload, 8)
        x = 40 + i * 410
        frame[100 : 100 + code.shape[0], x : x + code.shape[1]] = code
    # the same payload twice in one frame is one read
    dup = plain_qr(payloads[0], 5)
    frame[520 : 520 + dup.shape[0], 40 : 40 + dup.shape[1]] = dup
    reads = CardReader(accept=is_kipukas_payload).read(frame)
    assert sorted(r.raw for r in reads) == sorted(payloads)


def test_blank_frame_reads_nothing_within_budget(reader: CardReader) -> None:
    rng = np.random.default_rng(7)
    frame = rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    assert reader.read(frame) == []


def test_rejects_non_bgr_input(reader: CardReader) -> None:
    with pytest.raises(ValueError, match="BGR"):
        reader.read(np.zeros((10, 10), np.uint8))


def test_config_rejects_unknown_decoder() -> None:
    with pytest.raises(ValueError, match="unknown decoder"):
        ReaderConfig(full_frame=("nope",))
