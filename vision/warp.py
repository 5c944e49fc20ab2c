"""Warping small planar patches into or out of a frame without touching the whole image.

Both directions work on the bounding box of the patch only, which is what keeps the renderer and the
reader cheap at 2028 x 1520. ``extract`` keeps the sampling map of every homography it sees twice (the
reader's regions are fixed between calibrations), so a region costs one ``cv2.remap`` a frame instead of
a ``warpPerspective`` that recomputes every pixel's source: same pixels, about half the time. (OpenCV's
fixed-point maps, ``cv2.convertMaps``, would save a third of a ``remap`` more but move a textured pixel
by up to five levels: not taken.)

Within ``one_frame(frame)`` (``vision.board`` reads a frame inside one), a patch asked for twice (the rule's
reading and the patch classifier's input) is warped once: the kept patch is returned read-only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
Mat3 = NDArray[np.float64]


def translate(dx: float, dy: float) -> Mat3:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def scale(sx: float, sy: float | None = None) -> Mat3:
    return np.array([[sx, 0.0, 0.0], [0.0, sx if sy is None else sy, 0.0], [0.0, 0.0, 1.0]])


def rotate(deg: float) -> Mat3:
    a = np.radians(deg)
    c, s = float(np.cos(a)), float(np.sin(a))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def apply(H: Mat3, pts: NDArray[np.floating]) -> NDArray[np.float64]:
    """Apply homography H to (N, 2) points."""
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ H.T
    return np.asarray(q[:, :2] / q[:, 2:3], dtype=np.float64)


def bbox(pts: NDArray[np.floating], shape: tuple[int, ...], margin: int = 2) -> tuple[int, int, int, int] | None:
    """Integer (x0, y0, x1, y1) box around ``pts`` clipped to an image of ``shape``; None if outside."""
    x0 = max(int(np.floor(pts[:, 0].min())) - margin, 0)
    y0 = max(int(np.floor(pts[:, 1].min())) - margin, 0)
    x1 = min(int(np.ceil(pts[:, 0].max())) + margin + 1, shape[1])
    y1 = min(int(np.ceil(pts[:, 1].max())) + margin + 1, shape[0])
    if x1 <= x0 or y1 <= y0:
        return None
    return (x0, y0, x1, y1)


def paste(dst: Image, src: Image, alpha: NDArray[np.float32], H: Mat3) -> None:
    """Blend ``src`` (with per-pixel ``alpha`` in 0..1) into ``dst`` through homography H (src px -> dst px)."""
    h, w = src.shape[:2]
    corners = apply(H, np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))
    box = bbox(corners, dst.shape)
    if box is None:
        return
    x0, y0, x1, y1 = box
    Hb = translate(-x0, -y0) @ H
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(src, Hb, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpPerspective(alpha, Hb, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    roi = dst[y0:y1, x0:x1]
    if warped.ndim == 2:
        warped = warped[:, :, None]
    a3 = a[:, :, None]
    roi[:] = np.clip(roi * (1.0 - a3) + warped * a3, 0, 255).astype(np.uint8)


MAPS_KEPT = 384  # sampling maps kept (a table's regions and QR windows at a few poses: ~25 MB at most)
_Prepared = tuple[tuple[int, int, int, int] | None, NDArray[np.float32] | None]


class _MapCache:
    """Sampling maps of the homographies ``extract`` met more than once, least recently used dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.maps: OrderedDict[bytes, _Prepared] = OrderedDict()
        self.seen: OrderedDict[bytes, None] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: bytes) -> tuple[_Prepared | None, bool]:
        """(the kept map or None, whether to keep it now: the second time the homography is met)."""
        with self.lock:
            hit = self.maps.get(key)
            if hit is not None:
                self.maps.move_to_end(key)
                return hit, False
            if key in self.seen:
                return None, True
            self.seen[key] = None  # once: a passing homography (a camera being followed) is not kept
            if len(self.seen) > self.limit:
                self.seen.popitem(last=False)
            return None, False

    def put(self, key: bytes, value: _Prepared) -> None:
        with self.lock:
            self.seen.pop(key, None)
            self.maps[key] = value
            if len(self.maps) > self.limit:
                self.maps.popitem(last=False)


_MAPS = _MapCache(MAPS_KEPT)


def _box_and_warp(H: Mat3, size: tuple[int, int], shape: tuple[int, ...]) -> tuple[
        tuple[int, int, int, int] | None, Mat3]:
    w, h = size
    corners = apply(H, np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))
    box = bbox(corners, shape, margin=3)
    if box is None:
        return None, H
    return box, translate(-box[0], -box[1]) @ H


def _sampling_map(Hb: Mat3, size: tuple[int, int]) -> NDArray[np.float32]:
    """Source (x, y) of every patch pixel, computed as OpenCV's own warpPerspective does (float32), so
    ``remap`` through it gives the very pixels ``warpPerspective`` would."""
    w, h = size
    M = Hb.astype(np.float32)
    u, v = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    W = M[2, 0] * u + M[2, 1] * v + M[2, 2]
    X = (M[0, 0] * u + M[0, 1] * v + M[0, 2]) / W
    Y = (M[1, 0] * u + M[1, 1] * v + M[1, 2]) / W
    return np.ascontiguousarray(np.dstack([X, Y]), dtype=np.float32)


def prepare(H: Mat3, size: tuple[int, int], shape: tuple[int, ...]) -> None:
    """Compute and keep the sampling map of a region ``extract`` will read every frame (at calibration)."""
    key = _key(H, size, shape)
    box, Hb = _box_and_warp(H, size, shape)
    _MAPS.put(key, (box, None if box is None else _sampling_map(Hb, size)))


def _key(H: Mat3, size: tuple[int, int], shape: tuple[int, ...]) -> bytes:
    return np.asarray(H, np.float64).tobytes() + np.array([size[0], size[1], *shape], np.int64).tobytes()


class _FramePatches(threading.local):
    """The patches of the frame being read on this thread (``one_frame``), by homography and size."""

    def __init__(self) -> None:
        self.frame: Image | None = None
        self.patches: dict[bytes, Image] = {}


_FRAME = _FramePatches()


@contextmanager
def one_frame(frame: Image) -> Iterator[None]:
    """While inside, ``extract`` from ``frame`` warps each patch once and returns it read-only after (the
    frame must not change meanwhile: the reader holds it for one read)."""
    outer = (_FRAME.frame, _FRAME.patches)
    _FRAME.frame, _FRAME.patches = frame, {}
    try:
        yield
    finally:
        _FRAME.frame, _FRAME.patches = outer


def extract(frame: Image, H: Mat3, size: tuple[int, int]) -> Image:
    """The patch of ``size`` (w, h) whose pixel (u, v) is frame pixel H @ (u, v): rectify a region."""
    key = _key(H, size, frame.shape)
    if _FRAME.frame is frame:
        kept = _FRAME.patches.get(key)
        if kept is None:
            kept = _extract(frame, H, size, key)
            kept.flags.writeable = False
            _FRAME.patches[key] = kept
        return kept
    return _extract(frame, H, size, key)


def _extract(frame: Image, H: Mat3, size: tuple[int, int], key: bytes) -> Image:
    w, h = size
    hit, keep = _MAPS.get(key)
    if hit is None:
        box, Hb = _box_and_warp(H, size, frame.shape)
        if box is not None:
            x0, y0, x1, y1 = box
            out = cv2.warpPerspective(frame[y0:y1, x0:x1], Hb, (w, h),
                                      flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        if keep:
            _MAPS.put(key, (box, None if box is None else _sampling_map(Hb, size)))
        if box is None:
            return np.zeros((h, w, 3), dtype=np.uint8)
        return np.asarray(out, dtype=np.uint8)
    box, xy = hit
    if box is None or xy is None:
        return np.zeros((h, w, 3), dtype=np.uint8)
    x0, y0, x1, y1 = box
    # map2 None: the two-channel float map alone (OpenCV's stubs do not admit None, OpenCV does)
    out = cv2.remap(frame[y0:y1, x0:x1], xy, None, cv2.INTER_LINEAR,  # type: ignore[call-overload]
                    borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8)


def extract_grey(frame: Image, H: Mat3, size: tuple[int, int]) -> Image:
    """``extract``'s patch in grey (``COLOR_BGR2GRAY``), the frame's box turned grey before the one-channel
    ``remap``: a third of the resampling of a BGR patch turned grey after (~0.29 -> ~0.1 ms for a 192x192
    code window). Pixels may differ from that order by a level of rounding; what is read from the patch was
    re-validated on the stress bench (docs/overhead.md, speed11)."""
    w, h = size
    key = _key(H, size, frame.shape)
    hit, keep = _MAPS.get(key)
    if hit is None:
        box, Hb = _box_and_warp(H, size, frame.shape)
        hit = (box, None if box is None else _sampling_map(Hb, size))
        if keep:
            _MAPS.put(key, hit)
    box, xy = hit
    if box is None or xy is None:
        return np.zeros((h, w), dtype=np.uint8)
    x0, y0, x1, y1 = box
    grey = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    out = cv2.remap(grey, xy, None, cv2.INTER_LINEAR,  # type: ignore[call-overload]
                    borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8)
