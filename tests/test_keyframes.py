"""KeyframeStore: JPEG keyframes with atomic writes, retention by sequence number and a usage warning."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from tracker.record.keyframes import KeyframeStore


def jpeg(size: int) -> bytes:
    """Bytes of exactly `size` that pass for a JPEG (the store only checks the SOI marker)."""
    return b"\xff\xd8\xff" + b"\x00" * (size - 3)


class Warnings(list[str]):
    def __call__(self, message: str) -> None:
        self.append(message)


def store(tmp_path: Path, limit: int = 1000, warn: float = 0.8) -> tuple[KeyframeStore, Warnings]:
    warnings = Warnings()
    return KeyframeStore(tmp_path / "keyframes", limit, warn, warnings), warnings


def test_an_image_is_saved_as_a_readable_jpeg_named_by_seq_and_camera(tmp_path: Path) -> None:
    keyframes, warnings = store(tmp_path, limit=10_000_000)
    image = np.random.default_rng(1).integers(0, 256, (60, 80, 3), dtype=np.uint8)
    path = keyframes.save(42, "overhead", image)
    assert path == tmp_path / "keyframes" / "00000042-overhead.jpg"
    decoded = cv2.imread(str(path))
    assert decoded is not None and decoded.shape == (60, 80, 3)
    assert keyframes.path(42, "overhead") == path and keyframes.path(42, "front") is None
    assert keyframes.usage() == (path.stat().st_size, 10_000_000)
    assert warnings == [] and [p.name for p in path.parent.iterdir()] == [path.name], "no temporary left over"


def test_jpeg_bytes_are_stored_as_given_and_other_bytes_refused(tmp_path: Path) -> None:
    keyframes, _ = store(tmp_path)
    path = keyframes.save(1, "front", jpeg(100))
    assert path is not None and path.read_bytes() == jpeg(100)
    with pytest.raises(ValueError, match="keyframe 2 front: the bytes given are not a JPEG"):
        keyframes.save(2, "front", b"PNG....")


@pytest.mark.parametrize(("seq", "camera", "message"), [
    (-1, "front", "sequence number must be a whole number >= 0, got -1"),
    (3, "Front/../x", "camera name 'Front/../x'"),
    (3, "", "camera name ''"),
])
def test_bad_arguments_name_what_is_wrong(tmp_path: Path, seq: int, camera: str, message: str) -> None:
    keyframes, _ = store(tmp_path)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        keyframes.save(seq, camera, jpeg(10))


def test_a_float_image_is_refused(tmp_path: Path) -> None:
    keyframes, _ = store(tmp_path)
    with pytest.raises(ValueError, match="keyframe 1 front: expected an 8-bit"):
        keyframes.save(1, "front", np.zeros((4, 4, 3), np.float32))  # type: ignore[arg-type]


def test_retention_deletes_the_lowest_sequence_numbers_until_under_the_limit(tmp_path: Path) -> None:
    keyframes, _ = store(tmp_path, limit=1000, warn=1.0)
    for seq in (5, 3, 9):
        keyframes.save(seq, "overhead", jpeg(300))
    keyframes.save(7, "front", jpeg(300))  # 1200 bytes: seq 3 (saved second, but oldest in the game) goes
    assert keyframes.usage() == (900, 1000)
    assert keyframes.path(3, "overhead") is None and not (tmp_path / "keyframes" / "00000003-overhead.jpg").exists()
    assert all(keyframes.path(s, c) for s, c in ((5, "overhead"), (9, "overhead"), (7, "front")))
    keyframes.save(10, "front", jpeg(250))
    keyframes.save(10, "overhead", jpeg(250))
    assert keyframes.usage() == (800, 1000)
    assert sorted(p.name for p in (tmp_path / "keyframes").iterdir()) == [
        "00000009-overhead.jpg", "00000010-front.jpg", "00000010-overhead.jpg"]


def test_the_newest_keyframe_is_kept_even_alone_over_the_limit(tmp_path: Path) -> None:
    keyframes, _ = store(tmp_path, limit=1000, warn=1.0)
    keyframes.save(1, "front", jpeg(400))
    keyframes.save(2, "front", jpeg(1500))
    assert keyframes.path(1, "front") is None and keyframes.path(2, "front") is not None
    assert keyframes.usage() == (1500, 1000)


def test_the_warning_comes_once_per_crossing_with_folder_and_figures(tmp_path: Path) -> None:
    keyframes, warnings = store(tmp_path, limit=2_000_000, warn=0.5)
    keyframes.save(1, "front", jpeg(600_000))
    assert warnings == []
    keyframes.save(2, "front", jpeg(600_000))
    assert len(warnings) == 1
    assert str(tmp_path / "keyframes") in warnings[0]
    assert "1.2 MB of 2.0 MB (60%, warning at 50%)" in warnings[0]
    keyframes.save(3, "front", jpeg(600_000))
    keyframes.save(4, "front", jpeg(600_000))  # over the limit: seq 1 deleted, still above 50%
    assert len(warnings) == 1
    keyframes.save(5, "front", jpeg(1_900_000))  # all older deleted: 1.9 MB alone
    keyframes.save(6, "front", jpeg(100_000))  # 2.0 MB, not over: nothing deleted, no new warning
    assert len(warnings) == 1
    keyframes.save(7, "front", jpeg(100_000))  # seq 5 deleted: 0.2 MB, below 50% again
    assert keyframes.usage()[0] == 200_000 and len(warnings) == 1
    keyframes.save(8, "front", jpeg(900_000))  # crosses again
    assert len(warnings) == 2


def test_a_restart_finds_earlier_keyframes_and_drops_interrupted_writes(tmp_path: Path) -> None:
    keyframes, _ = store(tmp_path)
    keyframes.save(1, "front", jpeg(200))
    keyframes.save(2, "overhead", jpeg(300))
    folder = tmp_path / "keyframes"
    (folder / ".keyframe-abc.tmp").write_bytes(b"half a jpeg")
    (folder / "notes.txt").write_text("a judge's note")
    again, _ = store(tmp_path)
    assert again.usage() == (500, 1000)
    assert again.path(2, "overhead") == folder / "00000002-overhead.jpg"
    assert not (folder / ".keyframe-abc.tmp").exists() and (folder / "notes.txt").exists()


def test_a_vanished_folder_is_recreated_with_a_warning(tmp_path: Path) -> None:
    keyframes, warnings = store(tmp_path)
    keyframes.save(1, "front", jpeg(200))
    shutil.rmtree(tmp_path / "keyframes")
    assert keyframes.path(1, "front") is None
    keyframes.save(2, "front", jpeg(300))
    path = keyframes.save(3, "front", jpeg(300))
    assert path is not None and path.exists()
    assert keyframes.usage() == (600, 1000)
    assert warnings == [], "path() already noticed the file was gone: nothing else to report"


def test_a_vanished_folder_with_indexed_files_is_reported(tmp_path: Path) -> None:
    keyframes, warnings = store(tmp_path, warn=1.0)
    keyframes.save(1, "front", jpeg(200))
    keyframes.save(2, "front", jpeg(200))
    shutil.rmtree(tmp_path / "keyframes")
    assert keyframes.save(3, "front", jpeg(300)) is not None
    assert len(warnings) == 1 and "vanished" in warnings[0] and "2 earlier keyframes" in warnings[0]
    assert keyframes.usage() == (300, 1000)


def test_a_full_disk_is_a_warning_and_loses_nothing_else(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full SD card cannot be made here; fsync failing with ENOSPC is what the store would see."""
    keyframes, warnings = store(tmp_path, warn=1.0)
    first = keyframes.save(1, "front", jpeg(200))
    assert first is not None

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full)
        assert keyframes.save(2, "front", jpeg(300)) is None
        assert keyframes.save(3, "front", jpeg(300)) is None
    assert len(warnings) == 1, "one warning while it keeps failing"
    assert "00000002-front.jpg" in warnings[0] and str(tmp_path / "keyframes") in warnings[0]
    assert os.strerror(errno.ENOSPC) in warnings[0]
    assert first.read_bytes() == jpeg(200) and keyframes.usage() == (200, 1000)
    assert sorted(p.name for p in first.parent.iterdir()) == ["00000001-front.jpg"], "no temporary left"
    assert keyframes.save(4, "front", jpeg(300)) is not None
    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full)
        keyframes.save(5, "front", jpeg(300))
    assert len(warnings) == 2, "failing again after a success warns again"


def test_a_listener_that_raises_does_not_break_saving(tmp_path: Path) -> None:
    def broken(message: str) -> None:
        raise KeyError(message)

    keyframes = KeyframeStore(tmp_path / "k", 1000, 0.1, broken)
    assert keyframes.save(1, "front", jpeg(500)) is not None


@pytest.mark.parametrize(("limit", "warn", "message"), [(0, 0.8, "limit_bytes"), (100, 0.0, "warn_fraction"),
                                                        (100, 1.5, "warn_fraction")])
def test_bad_settings_name_the_store(tmp_path: Path, limit: int, warn: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        KeyframeStore(tmp_path, limit, warn)
