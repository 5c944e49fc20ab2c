"""Picamera2Source and open_source.

picamera2 exists only on a Raspberry Pi with a camera, so its faults (a stalled frontend, a dislodged cable)
cannot be produced here: a scripted stand-in module replaces it in `sys.modules`, recording which calls the
source makes. What it checks is our side of the contract: a numeric capture deadline, every request
released, cancel-then-close on a fault, BGR frames of the requested size.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest

from tracker.config import CameraConfig
from tracker.sources.capture import FolderSource, SourceError, VideoCaptureSource
from tracker.sources.open import open_source
from tracker.sources.picamera import Picamera2Source


class FakeRequest:
    def __init__(self, camera: FakeCamera, value: int) -> None:
        self.camera, self.value, self.released = camera, value, False

    def make_array(self, name: str) -> np.ndarray[Any, Any]:
        assert not self.released, "array read after release"
        if name == "lores":
            w, h = self.camera.config["lores"]["size"]
            return np.full((h * 3 // 2, w + 16), self.value, np.uint8)  # YUV420 with stride padding
        w, h = self.camera.config["main"]["size"]
        image = np.zeros((h, w, 3), np.uint8)
        image[..., 0] = self.value  # blue channel: what the [B, G, R] order of "RGB888" puts first
        return image

    def get_metadata(self) -> dict[str, int]:
        return {"SensorTimestamp": 1_000_000_000 * (self.value + 1)}

    def release(self) -> None:
        self.released = True
        self.camera.calls.append("release")


class FakeCamera:
    """Plays `script`: an int delivers a frame of that value, an exception class is raised by capture."""

    instances: ClassVar[list[FakeCamera]] = []
    log: ClassVar[list[str]] = []  # opens and closes of every instance, in order
    fail_open: ClassVar[Exception | None] = None

    def __init__(self, camera_num: int = 0) -> None:
        if FakeCamera.fail_open is not None:
            raise FakeCamera.fail_open
        self.camera_num = camera_num
        self.calls: list[str] = []
        self.waits: list[object] = []
        self.script: list[int | type[Exception]] = [1, 2, 3]
        self.config: dict[str, Any] = {}
        FakeCamera.instances.append(self)
        FakeCamera.log.append(f"open {len(FakeCamera.instances)}")

    def create_video_configuration(self, **kwargs: Any) -> dict[str, Any]:
        return kwargs

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config
        self.calls.append("configure")

    def start(self) -> None:
        self.calls.append("start")

    def capture_request(self, wait: object = None) -> FakeRequest:
        self.waits.append(wait)
        step = self.script.pop(0) if self.script else TimeoutError
        if isinstance(step, int):
            return FakeRequest(self, step)
        raise step("scripted")

    def cancel_all_and_flush(self) -> None:
        self.calls.append("cancel")

    def close(self) -> None:
        self.calls.append("close")
        FakeCamera.log.append(f"close {FakeCamera.instances.index(self) + 1}")


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[FakeCamera]]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakeCamera  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakeCamera.instances, FakeCamera.log, FakeCamera.fail_open = [], [], None
    yield FakeCamera


def test_frames_are_bgr_of_the_requested_size_with_every_request_released(fake_picamera2: type[FakeCamera]) -> None:
    source = Picamera2Source(1, 320, 240, 15.0, 0.5)
    camera = fake_picamera2.instances[0]
    assert camera.camera_num == 1
    assert camera.config["main"] == {"size": (320, 240), "format": "RGB888"}
    assert camera.config["controls"] == {"FrameRate": 15.0}
    frames = []
    with pytest.raises(SourceError, match=r"camera 1: no frame within 0.5 s"):
        for frame in source:
            frames.append(frame)
    assert [f.index for f in frames] == [0, 1, 2]
    assert [f.timestamp for f in frames] == [2.0, 3.0, 4.0]
    assert all(f.image.shape == (240, 320, 3) and f.image.dtype == np.uint8 for f in frames)
    assert [int(f.image[0, 0, 0]) for f in frames] == [1, 2, 3] and int(frames[0].image[0, 0, 2]) == 0
    assert camera.waits == [0.5] * 4, "every capture must carry the numeric deadline"
    assert camera.calls.count("release") == 3
    assert camera.calls[-2:] == ["cancel", "close"], "a timeout cancels pending jobs, then closes"


def test_a_camera_error_cancels_closes_and_names_the_camera(fake_picamera2: type[FakeCamera]) -> None:
    source = Picamera2Source(0, 160, 120, 10.0, 1.0)
    camera = fake_picamera2.instances[0]
    camera.script = [7, RuntimeError]
    iterator = iter(source)
    assert int(next(iterator).image[0, 0, 0]) == 7
    with pytest.raises(SourceError, match=r"camera 0: capture failed: RuntimeError"):
        next(iterator)
    assert camera.calls[-2:] == ["cancel", "close"]
    with pytest.raises(SourceError, match="closed"):
        next(iter(source))
    source.close()  # idempotent
    assert camera.calls.count("close") == 1


def test_low_res_stream_keeps_the_grey_plane_without_stride_padding(fake_picamera2: type[FakeCamera]) -> None:
    source = Picamera2Source(0, 640, 480, 10.0, 1.0, lores_size=(160, 120))
    camera = fake_picamera2.instances[0]
    assert camera.config["lores"] == {"size": (160, 120), "format": "YUV420"}
    next(iter(source))
    assert source.last_lores is not None and source.last_lores.shape == (120, 160)


def test_a_missing_camera_is_a_source_error(fake_picamera2: type[FakeCamera]) -> None:
    fake_picamera2.fail_open = IndexError("list index out of range")
    with pytest.raises(SourceError, match=r"picamera2 camera 3: cannot open: list index"):
        Picamera2Source(3, 640, 480, 10.0, 1.0)


def test_without_picamera2_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(SourceError, match="picamera2 is not installed"):
        Picamera2Source(0, 640, 480, 10.0, 1.0)


def test_bad_settings_are_refused_before_touching_the_camera() -> None:
    with pytest.raises(SourceError, match="size must be positive"):
        Picamera2Source(0, 0, 480, 10.0, 1.0)
    with pytest.raises(SourceError, match="low-res size"):
        Picamera2Source(0, 640, 480, 10.0, 1.0, lores_size=(800, 100))


def _camera(source: str, path: str = "", camera: int = 0) -> CameraConfig:
    return CameraConfig(source, camera, path, 320, 240, 5.0, 1.5)


def test_open_source_builds_each_kind(fake_picamera2: type[FakeCamera], tmp_path: Path) -> None:
    pi = open_source(_camera("picamera2", camera=1))
    assert isinstance(pi, Picamera2Source) and pi.timeout_s == 1.5 and pi.camera_num == 1
    folder = open_source(_camera("folder", str(tmp_path)))
    assert isinstance(folder, FolderSource) and folder.fps == 5.0
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (64, 48))
    for value in (10, 200):
        writer.write(np.full((48, 64, 3), value, np.uint8))
    writer.release()
    clip = open_source(_camera("video", str(video)))
    assert isinstance(clip, VideoCaptureSource)
    assert len(list(clip)) == 2


@pytest.mark.parametrize("kind", ["synthetic", "none"])
def test_open_source_leaves_synthetic_and_none_to_the_loop(kind: str) -> None:
    with pytest.raises(SourceError, match=rf"{kind}.*table loop"):
        open_source(_camera(kind))


def test_open_source_names_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"nothing\.mp4.*no such file"):
        open_source(_camera("video", str(tmp_path / "nothing.mp4")))
    with pytest.raises(SourceError, match="not a folder"):
        open_source(_camera("folder", str(tmp_path / "absent")))
    with pytest.raises(SourceError, match="unknown camera source 'webcam'"):
        open_source(_camera("webcam"))


def test_a_timed_out_pi_camera_is_closed_before_resilient_source_reopens_it(
        fake_picamera2: type[FakeCamera]) -> None:
    from tracker.sources.resilient import CameraStatus, ResilientSource

    source = ResilientSource("overhead", lambda: Picamera2Source(0, 64, 48, 10.0, 0.5), timeout_s=0.5,
                             sleep=lambda s: None)
    items: list[object] = []
    for item in source:
        items.append(item)
        if sum(not isinstance(i, CameraStatus) for i in items) == 5:
            break
    statuses = [(i.ok, i.reason) for i in items if isinstance(i, CameraStatus)]
    assert statuses[:2] == [(True, "delivering frames"),
                            (False, "camera error: SourceError: picamera2 camera 0: no frame within 0.5 s")]
    assert statuses[2][0] is True
    assert fake_picamera2.instances[0].calls[-2:] == ["cancel", "close"]
    assert fake_picamera2.log[:3] == ["open 1", "close 1", "open 2"], "closed before the camera is reopened"
    values = [int(i.image[0, 0, 0]) for i in items if not isinstance(i, CameraStatus)]  # type: ignore[attr-defined]
    assert values == [1, 2, 3, 1, 2]
