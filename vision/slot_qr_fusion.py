"""Several frames of a face-down card that lies still, fused into one sharper look at its QR code.

A card put down stays for many frames. Its code window, rectified from the calibrated pose, shows the
same modules every frame, only the sensor noise and the JPEG blocks differ; their mean has less noise,
which lets the deconvolution of ``vision.slot_qr`` undo more blur before the noise it amplifies
swamps the modules. A new window is registered to the first by phase correlation: a card nudged by more
than ``MAX_SHIFT_PX`` starts a new stack (so a moved card is never mixed with where it was).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.qr_decoders import GreyImage
from vision.qr_solve import solve_at, solve_window
from vision.slot_qr import Accept, QrWindow, read_window, window_of
from vision.warp import Image, Mat3, translate

MAX_SHIFT_PX = 1.5  # window px (0.4 mm): more and the card moved
MAX_FRAMES = 8  # frames fused per card: after that the reader stops trying until the slot changes
MODULE_MM = 1.4  # a printed module (the code's 34-38 mm over 25 modules)
GRID_MIN_PX = 2.0  # frame px per module below which the grid sampling is not tried after the solver
HINT_SHIFT_PX = 8.0  # window px (2 mm): a card moved further is searched for again

FloatImage = npt.NDArray[np.float32]


@dataclass(frozen=True)
class _Hint:
    """Where the module solver read a slot's card: its window, grid, version and blur (modules)."""

    window: FloatImage
    mapping: Mat3
    version: int
    sigma: float


@dataclass
class _Stack:
    first: FloatImage
    total: FloatImage
    count: int


class QrFusion:
    """Per slot, the running sum of the code windows of the face-down card that lies there unread."""

    def __init__(self, max_frames: int = MAX_FRAMES, budget_s: float = 0.3) -> None:
        """``budget_s``: CPU seconds per frame for QR work beyond the plain decoders."""
        self._hints: dict[str, _Hint] = {}  # per slot, where the module solver last read a card
        self.max_frames = max_frames
        self.budget_s = budget_s
        self.spent = 0.0  # CPU seconds of QR work this frame
        self.pending: dict[str, tuple[FloatImage, QrWindow]] = {}  # unread cards this frame: view, window
        self._stacks: dict[str, _Stack] = {}

    def new_frame(self) -> None:
        """A new frame: its budget is whole again, no card is pending yet."""
        self.spent = 0.0
        self.pending.clear()

    def has_budget(self) -> bool:
        """Whether this frame's QR budget is not spent yet."""
        return self.spent < self.budget_s

    def read_pending(self, accept: Accept) -> dict[str, str]:
        """The thorough pass (``vision.slot_qr``) over the face-down cards the quick one missed this frame,
        in the order they were met, while the budget lasts: the payloads read, by slot."""
        out: dict[str, str] = {}
        for slot, (view, win) in self.pending.items():
            if not self.has_budget():
                break
            started = time.thread_time()
            payload = self.read(slot, view, win, accept, thorough=True)
            self.spent += time.thread_time() - started
            if payload is not None:
                out[slot] = payload
        return out

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

    def stack(self, frame: Image, slot: str, win: QrWindow, same: bool) -> FloatImage:
        """This frame's code window of ``slot`` added to its card's stack (a new stack unless ``same``: the
        slot did not change since the last frame); the stack's mean (this window alone when it is new)."""
        if not same:
            self.reset(slot)
        window = window_of(frame, win)
        mean = self.add(slot, window)
        return np.asarray(window, dtype=np.float32) if mean is None else mean

    def follow(self, frame: Image, slot: str, win: QrWindow, same: bool, accept: Accept, deep: bool) -> str | None:
        """A face-down card in ``slot`` that the plain decoders did not read this frame: its window added to
        the card's stack (``stack``), the fused view read by the quick pass when ``deep`` (the frame's
        budget lasts) and two or more frames are fused, else left pending for ``read_pending``."""
        view = self.stack(frame, slot, win, same)
        payload = self.read(slot, view, win, accept, thorough=False) if deep and self.frames(slot) > 1 else None
        if payload is None:
            self.pending[slot] = (view, win)
        return payload

    def read(self, slot: str, view: FloatImage, win: QrWindow, accept: Accept, thorough: bool) -> str | None:
        """The payload in ``view`` (``stack``'s result for ``slot``); a read card's stack is forgotten.
        First the grid where the solver last read a card here; the quick pass is zxing-cpp's own search
        (``vision.slot_qr``); the thorough one the module solver (``vision.qr_solve``: it reads more
        than the grid sampling, at all sizes, in about half the time, bench/qr_lowres_harness.py), then
        the grid sampling where a module is at least ``GRID_MIN_PX`` frame px (below, it never read what
        the solver missed)."""
        payload = self.read_at_hint(slot, view, accept)
        if payload is None and not thorough:
            payload = read_window(view, win.frame_px_per_mm, accept, thorough=False)
        elif payload is None:
            payload = self._solve(slot, view, win, accept)
            if payload is None and win.frame_px_per_mm * MODULE_MM >= GRID_MIN_PX:
                payload = read_window(view, win.frame_px_per_mm, accept, thorough=True)
        if payload is not None:
            self.reset(slot)
        return payload

    def _solve(self, slot: str, view: FloatImage, win: QrWindow, accept: Accept) -> str | None:
        """The module solver on ``view``; where it reads the card, its grid is kept as ``slot``'s hint."""
        res = solve_window(view, win.frame_px_per_mm, accept)
        if res.payload is not None and res.registration is not None and res.mapping is not None:
            self._hints[slot] = _Hint(np.asarray(view, np.float32), res.mapping, res.registration.version,
                                      res.sigma)
        return res.payload

    def read_at_hint(self, slot: str, view: FloatImage, accept: Accept) -> str | None:
        """The code solved where the last card read in ``slot`` lay (moved by the shift between the two
        windows): a slot the change detector flags again after a card was read is read again in a few ms,
        not searched for. Only a payload the decoder reads and ``accept`` takes is returned, so a card
        swapped for another at the same place reads as the other card, or not at all."""
        hint = self._hints.get(slot)
        if hint is None or hint.window.shape != view.shape:
            return None
        (dx, dy), _ = cv2.phaseCorrelate(hint.window, np.asarray(view, np.float32))
        if math.hypot(dx, dy) > HINT_SHIFT_PX:
            return None
        res = solve_at(view, translate(dx, dy) @ hint.mapping, hint.version, [hint.sigma], accept)
        return res.payload

    @staticmethod
    def _shift(a: FloatImage, b: FloatImage) -> float:
        (dx, dy), _ = cv2.phaseCorrelate(a, b)
        return float(np.hypot(dx, dy))
