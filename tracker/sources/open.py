"""`open_source`: the frame source one camera section of the table configuration asks for."""

from __future__ import annotations

from pathlib import Path

from tracker.config import CameraConfig
from tracker.sources.capture import LORES_SCALE, FolderSource, FrameSource, SourceError, VideoCaptureSource
from tracker.sources.picamera import Picamera2Source


def lores_size(width: int, height: int) -> tuple[int, int]:
    """The low-resolution stream asked of a Pi camera beside a ``width`` x ``height`` main stream: a
    quarter of each side, rounded up to even (YUV420), e.g. 508x380 beside 2028x1520. The readers run
    their per-frame checks on it (the ISP scales for free) and take the main image only where needed."""
    w, h = max(width // LORES_SCALE, 2), max(height // LORES_SCALE, 2)
    return (w + w % 2, h + h % 2)


def open_source(cfg: CameraConfig) -> FrameSource:
    """The frame source for one camera section of the table configuration.

    `picamera2`: a Pi camera by number; `opencv`: a USB camera by index; `folder`: a recorded folder of
    images at `fps`; `video`: a video file. `synthetic` and `none` are the table loop's to build. Raises
    `SourceError` naming the source and what failed (camera missing, path unreadable).
    """
    if cfg.source == "picamera2":
        return Picamera2Source(cfg.camera, cfg.width, cfg.height, cfg.fps, cfg.timeout_s,
                               lores_size=lores_size(cfg.width, cfg.height))
    if cfg.source == "opencv":
        return VideoCaptureSource(cfg.camera, cfg.width, cfg.height)
    if cfg.source == "folder":
        return FolderSource(Path(cfg.path), cfg.fps)
    if cfg.source == "video":
        if not Path(cfg.path).is_file():
            raise SourceError(f"video source {cfg.path!r}: no such file")
        return VideoCaptureSource(cfg.path)
    if cfg.source in ("synthetic", "none"):
        raise SourceError(f"camera source {cfg.source!r} is not a device or recording: "
                          "open_source does not build it (the table loop does)")
    raise SourceError(f"unknown camera source {cfg.source!r} (known: picamera2, opencv, folder, video)")
