"""Several frames of a face-down card that lies still, fused into one sharper look at its QR code.

A card put down stays for many frames. Its code window, rectified from the calibrated pose, shows the
same modules every frame, only the sensor noise and the JPEG blocks differ; their mean has less noise,
which lets the deconvolution of ``vision.slot_qr`` undo more blur before the noise it amplifies
swamps the modules. A new window is registered to the first by phase correlation: a card nudged by more
than ``MAX_SHIFT_PX`` starts a new stack (so a moved card is never mixed with where it was).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.qr_decoders import GreyImage
from vision.slot_qr import Accept, QrWindow, read_window, window_of
from vision.warp import Image

MAX_SHIFT_PX = 1.5  # window px (0.4 mm): more and the card moved
MAX_FRAMES = 8  # frames fused per card: after that the reader stops trying until the slot changes

FloatImage = npt.NDArray[np.float32]


@dataclass
class _Stack:
    first: FloatImage
    total: FloatImage
    count: int


class QrFusion:
    """Per slot, the running sum of the code windows of the face-down card that lies there unread."""

    def __init__(self, max_frames: int = MAX_FRAMES) -> None:
        self.max_frames = max_frames
        self._stacks: dict[str, _Stack] = {}

    def add(self, slot: str, window: GreyImage) -> FloatImage | None:
        """Add this frame's window of ``slot``; the mean of the stack when it holds two or more frames."""
        w = np.asarray(window, dtype=np.float32)
        stack = self._stacks.get(slot)
        if stack is None or stack.first.shape != w.shape or self._shift(stack.first, w) > MAX_SHIFT_PX:
            self._stacks[slot] = _Stack(w, w.copy(), 1)
            return None
        stack.total += w
        stack.count += 1
        return np.asarray(stack.total / stack.count, dtype=np.float32)

    def frames(self, slot: str) -> int:
        """How many frames of ``slot``'s card are fused (0: none)."""
        stack = self._stacks.get(slot)
        return 0 if stack is None else stack.count

    def exhausted(self, slot: str) -> bool:
        """Whether ``slot``'s card has been tried on enough frames that more would not help."""
        return self.frames(slot) >= self.max_frames

    def reset(self, slot: str) -> None:
        """Forget ``slot``'s stack: the card was read, moved, or left."""
        self._stacks.pop(slot, None)

    def read(self, frame: Image, slot: str, win: QrWindow, accept: Accept, read: bool) -> str | None:
        """This frame's code window of ``slot`` added to its card's stack (a new stack unless ``read``: the
        slot changed since the last frame); with ``read`` and two frames or more, their mean's payload."""
        if not read:
            self.reset(slot)
        mean = self.add(slot, window_of(frame, win))
        if mean is None or not read:
            return None
        payload = read_window(mean, win.frame_px_per_mm, accept)
        if payload is not None:
            self.reset(slot)
        return payload

    @staticmethod
    def _shift(a: FloatImage, b: FloatImage) -> float:
        (dx, dy), _ = cv2.phaseCorrelate(a, b)
        return float(np.hypot(dx, dy))
