"""The live front-camera loop on a recorded folder built from the real dev photos and blank frames."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.qr_helpers import DEV_PHOTOS, dev_truth
from tracker.front.camera import FrontCamera, Presentations
from tracker.sources.capture import FolderSource, Frame, FrameSource, SourceError, VideoCaptureSource
from vision.synth.qr import SynthSet

TRUTH = dev_truth()
SINGLES = [n for n, cards in sorted(TRUTH.items()) if len(cards) == 1 and "#" in cards[0]]
MULTI = next(n for n, cards in sorted(TRUTH.items()) if len(cards) == 2)
FPS = 4.0


def _record(folder: Path, script: list[str | None]) -> None:
    """Write one frame file per script entry: a dev photo's bytes, or a blank frame for None."""
    rng = np.random.default_rng(5)
    for i, name in enumerate(script):
        if name is None:
            blank = np.clip(rng.normal(110, 6, (720, 1280, 3)), 0, 255).astype(np.uint8)
            cv2.imwrite(str(folder / f"frame_{i:05d}.png"), blank)
        else:
            shutil.copy(DEV_PHOTOS / name, folder / f"frame_{i:05d}.jpg")


def test_one_event_per_presentation(tmp_path: Path) -> None:
    a, b = SINGLES[0], SINGLES[1]
    held_a = [a] * 8  # two seconds
    held_a[3] = None  # a frame where the hand hides the card: the same presentation goes on
    script: list[str | None] = [None] * 2 + held_a + [None] * 6 + [a] * 3 + [MULTI] * 3 + [b] * 2 + [None]
    _record(tmp_path, script)
    (tmp_path / "frame_99999.jpg").write_bytes(b"not an image")
    source = FolderSource(tmp_path, fps=FPS)
    assert isinstance(source, FrameSource)
    events = list(FrontCamera(gap_s=1.0).events(source))
    got = [(e.payload, e.frame_index) for e in events]
    expected = [(TRUTH[a][0], 2), (TRUTH[a][0], 16)]
    expected += sorted((p, 19) for p in TRUTH[MULTI])
    expected += [(TRUTH[b][0], 22)]
    assert got[:2] == expected[:2]
    assert sorted(got[2:4]) == expected[2:4]
    assert got[4:] == expected[4:]
    first = events[0]
    assert first.timestamp == pytest.approx(2 / FPS)
    assert first.physical_id == TRUTH[a][0].split("/")[1].split("?")[0]
    assert first.frame.shape == (720, 1280, 3)  # the frame it was read on is kept for the record
    assert source.skipped == [tmp_path / "frame_99999.jpg"]


def test_front_camera_reports_a_held_card_once() -> None:
    # a synthetic card held for a second under motion blur: one event, whichever frames decoded
    show = SynthSet(seed=42).presentation("motion_blur", 0, frames=15)
    frames = [Frame(i, i / 15.0, f) for i, f in enumerate(show.frames)]
    events = list(FrontCamera(gap_s=1.0).events(frames))
    assert [e.payload for e in events] == list(show.payloads)


def test_presentations_gap_semantics() -> None:
    p = Presentations(gap_s=1.0)
    assert p.update(0.0, ["x"]) == ["x"]
    assert p.update(0.5, ["x", "y"]) == ["y"]
    assert p.update(1.4, ["x"]) == []  # last seen 0.5 s ago: same presentation
    assert p.update(3.0, ["x", "y"]) == ["x", "y"]  # both absent for more than the gap
    with pytest.raises(ValueError):
        Presentations(gap_s=0)


def test_folder_source_order_and_timestamps(tmp_path: Path) -> None:
    _record(tmp_path, [None, None, None])
    frames = list(FolderSource(tmp_path, fps=4.0))
    assert [(f.index, f.timestamp) for f in frames] == [(0, 0.0), (1, 0.25), (2, 0.5)]


def test_folder_source_refuses_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="not a folder"):
        FolderSource(tmp_path / "missing")


def test_video_capture_source_reads_a_video_file(tmp_path: Path) -> None:
    video = tmp_path / "clip.avi"
    photo = cv2.imread(str(DEV_PHOTOS / SINGLES[0]))
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (1280, 720))
    assert writer.isOpened()
    for _ in range(4):
        writer.write(photo)
    writer.release()
    source = VideoCaptureSource(str(video))
    events = list(FrontCamera().events(source))
    assert [e.payload for e in events] == TRUTH[SINGLES[0]]


def test_video_capture_source_refuses_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        VideoCaptureSource(str(tmp_path / "none.avi"))


def test_register_command_writes_the_deck_and_refuses_a_card_shown_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tracker.cli import main
    from tracker.front.registration import read_deck_file

    frames = tmp_path / "frames"
    frames.mkdir()
    a, b = SINGLES[2], SINGLES[3]
    _record(frames, [a] * 3 + [None] * 5 + [b] * 3 + [None] * 5 + [a] * 2)
    out = tmp_path / "red.deck"
    args = ["register", "--folder", str(frames), "--fps", "4", "--out", str(out), "--owner", "red"]
    assert main(args) == 0
    assert read_deck_file(out) == [TRUTH[a][0], TRUTH[b][0]]
    err = capsys.readouterr().err
    assert "refused" in err and "already in the deck" in err


def test_register_command_bad_folder_is_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tracker.cli import main

    assert main(["register", "--folder", str(tmp_path / "none"), "--out", str(tmp_path / "d")]) == 2
    assert "not a folder" in capsys.readouterr().err
