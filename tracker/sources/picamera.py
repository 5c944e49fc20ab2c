"""A Raspberry Pi camera as a `FrameSource`, through picamera2 (present only on a Pi, imported lazily).

How faults are handled, and where that comes from (raspberrypi/picamera2):

- Every capture has a deadline: `capture_request(wait=timeout_s)`. A number for `wait` makes
  `Picamera2.dispatch_functions` wait at most that many seconds and raise `TimeoutError` (from
  `Job.get_result(timeout)`); without it a camera whose frontend stalled (loose ribbon cable, "Camera
  frontend has timed out!", issues #962 and #1295) blocks the caller forever (issue #336). The numeric
  `wait` and cancelling came with the maintainers' "Timeout cancel" change (PR #1069, July 2024), so this
  needs a picamera2 release from after it (Raspberry Pi OS Bookworm's current `python3-picamera2`).
- After a timeout or a camera error we call `cancel_all_and_flush()` and then `close()`: its docstring
  says it is "only intended for tidying up after an operation has unexpectedly timed out (for example, the
  camera cable has become dislodged) so that the camera can be closed". The source then raises
  `SourceError`; reopening (a new `Picamera2Source`, with backoff) is `tracker.sources.resilient.ResilientSource`'s
  job, so one object is one camera session.
- Each completed request is released as soon as its array is copied out (`make_array` copies), in a
  `finally`: a request held back starves the camera of buffers.
- Format naming: picamera2's "RGB888" is stored [B, G, R] per pixel, which is OpenCV's BGR order (the
  Picamera2 manual, "Image formats"); "BGR888" would be [R, G, B]. We ask for "RGB888".
- The optional low-resolution stream is "YUV420" (the only lores format the Pi 4 ISP offers); its Y plane
  (a grey image) is kept as `last_lores` for cheap whole-view checks, and its BGR form is the frame's
  `lores` (`lores_bgr`), which the readers use instead of shrinking the main image themselves: the ISP
  scales for free. Ask for 508x380 beside a 2028x1520 main stream (YUV420 wants even sizes; the overhead
  reader's small frame is 507x380 and takes a lores of another size through one cheap resize).
- Timestamps are the request's `SensorTimestamp` (nanoseconds on the clock of `time.monotonic_ns`, which
  picamera2's own `flush` compares it with), so they are comparable with `time.monotonic()`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np

from tracker.sources.capture import BgrImage, Frame, SourceError

_log = logging.getLogger(__name__)


class Picamera2Source:
    """One camera session on a Raspberry Pi camera: opened and started on construction, closed on a fault.

    Iterating yields BGR frames of `width` x `height`. On a capture timeout or camera error the camera is
    cancelled and closed and `SourceError` is raised; make a new `Picamera2Source` to reopen.
    """

    def __init__(self, camera_num: int = 0, width: int = 2028, height: int = 1520, fps: float = 10.0,
                 timeout_s: float = 2.0, *, lores_size: tuple[int, int] | None = None,
                 buffer_count: int = 4) -> None:
        if camera_num < 0:
            raise SourceError(f"picamera2: camera number must be 0 or more, got {camera_num}")
        if width <= 0 or height <= 0:
            raise SourceError(f"picamera2 camera {camera_num}: size must be positive, got {width}x{height}")
        if fps <= 0 or timeout_s <= 0:
            raise SourceError(f"picamera2 camera {camera_num}: fps and timeout_s must be positive, "
                              f"got {fps} and {timeout_s}")
        if lores_size is not None and (lores_size[0] > width or lores_size[1] > height or min(lores_size) <= 0):
            raise SourceError(f"picamera2 camera {camera_num}: low-res size {lores_size} must be positive "
                              f"and no larger than the main stream {width}x{height}")
        self.camera_num, self.width, self.height = camera_num, width, height
        self.fps, self.timeout_s, self.lores_size = fps, timeout_s, lores_size
        self.buffer_count = buffer_count
        self.last_lores: np.ndarray[Any, np.dtype[np.uint8]] | None = None
        self._lock = threading.Lock()
        self._camera: Any = self._open()

    def _where(self) -> str:
        return f"picamera2 camera {self.camera_num}"

    def _open(self) -> Any:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise SourceError(f"{self._where()}: picamera2 is not installed (it ships with Raspberry Pi OS: "
                              "apt install python3-picamera2, and a venv made with --system-site-packages)") from exc
        try:
            camera = Picamera2(self.camera_num)
        except Exception as exc:  # picamera2 raises RuntimeError or IndexError for a missing/busy camera
            raise SourceError(f"{self._where()}: cannot open: {exc}") from exc
        try:
            lores = {"size": self.lores_size, "format": "YUV420"} if self.lores_size else None
            config = camera.create_video_configuration(
                main={"size": (self.width, self.height), "format": "RGB888"}, lores=lores,
                controls={"FrameRate": float(self.fps)}, buffer_count=self.buffer_count)
            camera.configure(config)
            camera.start()
        except Exception as exc:
            _shutdown(camera, self._where())
            raise SourceError(f"{self._where()}: cannot configure {self.width}x{self.height} "
                              f"at {self.fps:g} fps: {exc}") from exc
        return camera

    def close(self) -> None:
        """Cancel pending captures and close the camera (idempotent, callable from another thread)."""
        with self._lock:
            camera, self._camera = self._camera, None
        if camera is not None:
            _shutdown(camera, self._where())

    def _capture(self, camera: Any, index: int) -> Frame:
        try:
            request = camera.capture_request(wait=self.timeout_s)
        except TimeoutError as exc:
            raise SourceError(f"{self._where()}: no frame within {self.timeout_s:g} s") from exc
        except Exception as exc:
            raise SourceError(f"{self._where()}: capture failed: {type(exc).__name__}: {exc}") from exc
        lores: BgrImage | None = None
        try:
            image = request.make_array("main")
            metadata = request.get_metadata() or {}
            if self.lores_size is not None:
                lores_w, lores_h = self.lores_size
                planes = np.asarray(request.make_array("lores"), dtype=np.uint8)
                self.last_lores = np.ascontiguousarray(planes[:lores_h, :lores_w])
                lores = lores_bgr(planes, lores_w, lores_h)
        except Exception as exc:
            raise SourceError(f"{self._where()}: cannot read the frame: {type(exc).__name__}: {exc}") from exc
        finally:
            request.release()
        stamp_ns = metadata.get("SensorTimestamp")
        stamp = stamp_ns / 1e9 if isinstance(stamp_ns, int) else time.monotonic()
        bgr: BgrImage = np.ascontiguousarray(np.asarray(image, dtype=np.uint8)[..., :3])
        return Frame(index, stamp, bgr, lores)

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        try:
            while True:
                camera = self._camera
                if camera is None:
                    raise SourceError(f"{self._where()}: closed")
                yield self._capture(camera, index)
                index += 1
        finally:
            self.close()


def lores_bgr(planes: np.ndarray[Any, np.dtype[np.uint8]], w: int, h: int) -> BgrImage:
    """The BGR image of a YUV420 (I420) buffer of a ``w`` x ``h`` image whose rows may be padded to a
    stride (picamera2's lores array: ``h * 3 / 2`` rows of ``stride`` bytes, the chroma planes packed at
    half the stride). Costs well under a millisecond at 507x380."""
    stride = planes.shape[1]
    flat = planes.reshape(-1)
    u0 = h * stride
    half = (h // 2) * (stride // 2)
    u = flat[u0:u0 + half].reshape(h // 2, stride // 2)[:, :w // 2]
    v = flat[u0 + half:u0 + 2 * half].reshape(h // 2, stride // 2)[:, :w // 2]
    i420 = np.concatenate([planes[:h, :w].reshape(-1), u.reshape(-1), v.reshape(-1)]).reshape(h * 3 // 2, w)
    return np.asarray(cv2.cvtColor(i420, cv2.COLOR_YUV2BGR_I420), np.uint8)


def _shutdown(camera: Any, where: str) -> None:
    """Cancel every pending job, then close; errors are logged, never raised (the camera may be gone)."""
    for step in ("cancel_all_and_flush", "close"):
        try:
            getattr(camera, step)()
        except Exception as exc:
            _log.warning("%s: %s failed: %s: %s", where, step, type(exc).__name__, exc)
