"""Frame sources: anything that yields timestamped frames (`FrameSource`), and two implementations.

The live loops consume any iterable of `Frame`s, so a Pi camera (picamera2), a USB camera, a recorded
folder and the synthetic table are interchangeable. `FolderSource` replays a recorded folder (images in
name order, timestamps from a configured frame rate, unreadable files skipped and listed);
`VideoCaptureSource` wraps OpenCV's capture for USB cameras and video files. `tracker.sources.open` builds the
source a camera section of the table configuration asks for (the Pi camera one lives in `tracker.sources.picamera`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import cv2
import numpy as np
import numpy.typing as npt

from tracker.errors import TrackerError

BgrImage = npt.NDArray[np.uint8]
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})


class SourceError(TrackerError):
    """A frame source cannot be opened (missing folder, camera not available)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One camera frame: its position in the stream, capture time in seconds, and the BGR image.

    ``lores``: the same view, small (BGR), when the camera gives one for free the way picamera2's second
    stream does (the ISP scales in hardware); readers make their own from ``image`` otherwise."""

    index: int
    timestamp: float
    image: BgrImage
    lores: BgrImage | None = None


LORES_SCALE = 4  # picamera2's lores beside a 2028x1520 main stream: 507x380 (the overhead reader's small frame)


def simulated_lores(image: BgrImage, scale: int = LORES_SCALE) -> BgrImage:
    """The low-resolution stream a Pi camera's ISP gives beside ``image``, for the synthetic demo camera:
    made here in software (one bilinear resize, the filter the overhead reader's own fallback uses, so a
    reading is the same with or without it) because the ISP makes it in hardware at no CPU cost. The
    benches therefore make it outside their timed part, and time a source without one separately."""
    h, w = image.shape[:2]
    return np.asarray(cv2.resize(image, (w // scale, h // scale), interpolation=cv2.INTER_LINEAR), np.uint8)


@runtime_checkable
class FrameSource(Protocol):
    """Anything that can be iterated for frames, in capture order."""

    def __iter__(self) -> Iterator[Frame]: ...


@dataclass
class FolderSource:
    """A recorded folder of images replayed in file-name order at `fps` (timestamps index / fps).

    A file that cannot be decoded is skipped (its path is appended to `skipped`) rather than ending the
    replay: one bad frame in a recording must not lose the rest.
    """

    folder: Path
    fps: float = 10.0
    skipped: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.folder = Path(self.folder)
        if not self.folder.is_dir():
            raise SourceError(f"{self.folder}: not a folder of frames")
        if self.fps <= 0:
            raise SourceError(f"fps must be positive, got {self.fps}")

    def paths(self) -> list[Path]:
        """The image files of the folder, sorted by name."""
        return sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())

    def __iter__(self) -> Iterator[Frame]:
        for index, path in enumerate(self.paths()):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                self.skipped.append(path)
                continue
            yield Frame(index, index / self.fps, np.asarray(image, dtype=np.uint8))


class VideoCaptureSource:
    """OpenCV capture of a camera index or a video file.

    Timestamps are the file position for videos and monotonic seconds since opening for cameras.
    Stops when the capture ends or fails to deliver `max_failures` frames in a row.
    """

    def __init__(self, device: int | str, width: int | None = None, height: int | None = None,
                 max_failures: int = 10) -> None:
        self.device = device
        self.capture = cv2.VideoCapture(device)
        if not self.capture.isOpened():
            raise SourceError(f"cannot open video capture {device!r}")
        if width:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.max_failures = max_failures
        self._is_file = isinstance(device, str)

    def __iter__(self) -> Iterator[Frame]:
        start = time.monotonic()
        index = failures = 0
        try:
            while failures < self.max_failures:
                ok, image = self.capture.read()
                if not ok or image is None:
                    if self._is_file:
                        return
                    failures += 1
                    continue
                failures = 0
                if self._is_file:
                    stamp = float(self.capture.get(cv2.CAP_PROP_POS_MSEC)) / 1000.0
                else:
                    stamp = time.monotonic() - start
                yield Frame(index, stamp, np.asarray(image, dtype=np.uint8))
                index += 1
        finally:
            self.capture.release()
