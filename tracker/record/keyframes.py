"""Keyframes for judges: one JPEG per camera at every accepted and rejected action, within a disk budget.

Files are `<seq, 8 digits>-<camera>.jpg` in one folder, so a judge (or `ls`) sees them in game order and
the store can rebuild its index after a restart by listing the folder. Each is written to a temporary
file in the same folder and renamed into place, so a power cut leaves either the whole JPEG or none
(stale temporaries are removed on start).

Retention keeps an SD card from filling: when the total passes `limit_bytes`, the oldest keyframes (lowest
sequence number first) are deleted until it is under again; the newest one is never deleted. Crossing
`warn_fraction` of the limit calls `on_warning` once (again only after usage fell below and crossed
again). A folder that vanished is recreated; a failed write (disk full, read-only card) is a warning and
`save` returns None: the game goes on and no other keyframe is touched. Thread-safe.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

_log = logging.getLogger(__name__)
NAME = re.compile(r"^(\d{8,})-([a-z0-9_-]+)\.jpg$")
CAMERA = re.compile(r"^[a-z0-9_-]{1,32}$")
TEMP_PREFIX = ".keyframe-"
JPEG_QUALITY = 85


def _log_warning(message: str) -> None:
    _log.warning("%s", message)


def _megabytes(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB"


class KeyframeStore:
    """JPEG keyframes by (sequence number, camera) in `folder`, at most `limit_bytes` in total."""

    def __init__(self, folder: str | Path, limit_bytes: int, warn_fraction: float = 0.8,
                 on_warning: Callable[[str], object] | None = None, quality: int = JPEG_QUALITY) -> None:
        if limit_bytes <= 0:
            raise ValueError(f"keyframe store {folder}: limit_bytes must be positive, got {limit_bytes}")
        if not 0 < warn_fraction <= 1:
            raise ValueError(f"keyframe store {folder}: warn_fraction must be in (0, 1], got {warn_fraction}")
        if not 1 <= quality <= 100:
            raise ValueError(f"keyframe store {folder}: JPEG quality must be 1..100, got {quality}")
        self.folder = Path(folder)
        self.limit_bytes, self.warn_fraction, self.quality = limit_bytes, warn_fraction, quality
        self.on_warning: Callable[[str], object] = on_warning if on_warning is not None else _log_warning
        self._lock = threading.Lock()
        self._files: dict[tuple[int, str], int] = {}  # (seq, camera) -> size in bytes
        self._warned = False
        self._failing = False
        self._scan()

    def _name(self, seq: int, camera: str) -> Path:
        return self.folder / f"{seq:08d}-{camera}.jpg"

    def _scan(self) -> None:
        """Index the keyframes already in the folder (a restart) and drop interrupted temporaries."""
        self._files.clear()
        try:
            entries = list(os.scandir(self.folder))
        except FileNotFoundError:
            return
        except OSError as exc:
            self._warn(f"keyframes: cannot list {self.folder}: {exc.strerror or exc}")
            return
        for entry in entries:
            match = NAME.match(entry.name)
            try:
                if match:
                    self._files[(int(match[1]), match[2])] = entry.stat().st_size
                elif entry.name.startswith(TEMP_PREFIX):
                    os.unlink(entry.path)
            except OSError:
                continue

    def _warn(self, message: str) -> None:
        try:
            self.on_warning(message)
        except Exception:  # a broken listener must not lose the keyframe path
            _log.exception("keyframe warning listener failed; the warning was: %s", message)

    @staticmethod
    def _check(seq: int, camera: str) -> None:
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise ValueError(f"keyframe: sequence number must be a whole number >= 0, got {seq!r}")
        if not CAMERA.match(camera):
            raise ValueError(f"keyframe {seq}: camera name {camera!r} must be 1-32 of a-z, 0-9, _ and -")

    def _encode(self, seq: int, camera: str, image: npt.NDArray[np.uint8] | bytes) -> bytes:
        if isinstance(image, bytes | bytearray):
            if not bytes(image[:3]) == b"\xff\xd8\xff":
                raise ValueError(f"keyframe {seq} {camera}: the bytes given are not a JPEG")
            return bytes(image)
        if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3) or not image.size:
            what = f"{type(image).__name__} {getattr(image, 'dtype', '')} {getattr(image, 'shape', '')}"
            raise ValueError(f"keyframe {seq} {camera}: expected an 8-bit BGR or grey image or JPEG bytes, got {what}")
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            raise ValueError(f"keyframe {seq} {camera}: JPEG encoding failed for shape {image.shape}")
        return bytes(data.tobytes())

    def save(self, seq: int, camera: str, image: npt.NDArray[np.uint8] | bytes) -> Path | None:
        """Store the keyframe of action `seq` from `camera` (a BGR image or JPEG bytes); return its path.

        Returns None (after a warning) when it cannot be written; raises ValueError for bad arguments.
        Saving the same (seq, camera) again replaces the file.
        """
        self._check(seq, camera)
        data = self._encode(seq, camera, image)
        with self._lock:
            if not self.folder.is_dir() and self._files:
                self._warn(f"keyframes: the folder {self.folder} vanished; recreating it "
                           f"({len(self._files)} earlier keyframes are gone)")
                self._files.clear()
            path = self._name(seq, camera)
            try:
                self._write(path, data)
            except OSError as exc:
                if not self._failing:
                    self._warn(f"keyframes: cannot write {path.name} in {self.folder}: {exc.strerror or exc}; "
                               "keyframes are not being kept until this is fixed")
                self._failing = True
                return None
            self._failing = False
            self._files[(seq, camera)] = len(data)
            self._retain(keep=(seq, camera))
            self._check_warning()
            return path

    def _write(self, path: Path, data: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".tmp", dir=self.folder)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def _used(self) -> int:
        return sum(self._files.values())

    def _retain(self, keep: tuple[int, str]) -> None:
        used = self._used()
        for key in sorted(self._files):
            if used <= self.limit_bytes:
                break
            if key == keep:
                continue
            try:
                self._name(*key).unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                self._warn(f"keyframes: cannot delete {self._name(*key).name} in {self.folder}: "
                           f"{exc.strerror or exc}")
                break
            used -= self._files.pop(key)
            _log.info("keyframes: deleted %s to stay under %s", self._name(*key).name, _megabytes(self.limit_bytes))

    def _check_warning(self) -> None:
        used = self._used()
        threshold = self.warn_fraction * self.limit_bytes
        if used >= threshold and not self._warned:
            self._warned = True
            self._warn(f"keyframes in {self.folder} use {_megabytes(used)} of {_megabytes(self.limit_bytes)} "
                       f"({100 * used / self.limit_bytes:.0f}%, warning at {100 * self.warn_fraction:.0f}%); "
                       "past the limit the oldest keyframes are deleted")
        elif used < threshold:
            self._warned = False

    def path(self, seq: int, camera: str) -> Path | None:
        """The keyframe of action `seq` from `camera`, or None if there is none (never saved or deleted)."""
        self._check(seq, camera)
        with self._lock:
            path = self._name(seq, camera)
            if (seq, camera) not in self._files:
                return None
            if not path.is_file():
                del self._files[(seq, camera)]
                return None
            return path

    def usage(self) -> tuple[int, int]:
        """(bytes used by keyframes, limit in bytes)."""
        with self._lock:
            return self._used(), self.limit_bytes
