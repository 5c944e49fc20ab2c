"""Noticing that the camera moved since calibration, and following it when it did.

Every frame, a phase correlation of a small grey copy against the table's model tells how far the view
slid (a fraction of a millisecond at 1/8 resolution). When it slid more than a few pixels, an ECC fit of a
full homography (gain- and bias-invariant, so a new lamp does not matter) gives the correction from the
model's pixels to the frame's; every stand and slot is then read through it. A camera that rotated about
its centre is exactly a homography; one that also shifted by 20 mm at 1 m is one to within 0.5 mm for
stands 22 mm high. When the fit fails the board is unreadable ("camera moved"), never read where it was.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.light import SMALL, Image

Mat3 = NDArray[np.float64]
CHECK = 2  # the phase check works at 1/(SMALL*CHECK) resolution
MOVED_PX = 4.0  # full-resolution pixels of slide that trigger a new fit
MIN_ECC = 0.75
REFRESH = 2  # quiet frames between refreshes of the model (a cheap grey copy)


def _grey(small: Image) -> NDArray[np.float32]:
    """The phase check's grey copy: means of CHECK x CHECK pixels. The odd last column or row is left out,
    so the area resize works by a whole factor (by 507/253 it took 4x longer and drifted by up to a pixel
    from the CHECK scale the correction assumes)."""
    h, w = small.shape[:2]
    g = cv2.cvtColor(small[:h // CHECK * CHECK, :w // CHECK * CHECK], cv2.COLOR_BGR2GRAY)
    return np.asarray(cv2.resize(g, (w // CHECK, h // CHECK), interpolation=cv2.INTER_AREA), np.float32)


def _ecc(model: NDArray[np.float32], grey: NDArray[np.float32], init: NDArray[np.float32],
         mask: NDArray[np.uint8]) -> tuple[float, NDArray[np.float64]]:
    """ECC homography fit (model px -> ``grey`` px) from ``init``; (correlation, warp), 0 when it fails."""
    try:
        cc, warp = cv2.findTransformECC(model, grey, init, cv2.MOTION_HOMOGRAPHY,
                                        (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-5), mask, 5)
    except cv2.error:
        return 0.0, np.asarray(init, np.float64)
    return float(cc), np.asarray(warp, np.float64)


class MotionGuard:
    """Tracks the homography ``correction`` (model px -> frame px, full resolution) of one camera."""

    def __init__(self, model_small: Image) -> None:
        self.full = np.full(model_small.shape[:2], 255, np.uint8)
        self.check_full = np.full(_grey(model_small).shape, 255, np.uint8)
        self.quiet = 0
        self._set_model(model_small)
        self.window = np.asarray(cv2.createHanningWindow(self.check_model.shape[::-1], cv2.CV_32F), np.float32)
        self.small_warp: Mat3 = np.eye(3)  # model small px -> frame small px
        self.expected = self.check_model
        self.lost = False
        self.moved_px = 0.0
        self._seen: tuple[Image, NDArray[np.float32]] | None = None  # the last frame checked and its grey copy

    def _set_model(self, small: Image, check: NDArray[np.float32] | None = None) -> None:
        """``check``: ``_grey(small)`` when the caller has it already."""
        self.model = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), np.float32)
        self.check_model = _grey(small) if check is None else check

    @property
    def correction(self) -> Mat3:
        S = np.diag([float(SMALL), float(SMALL), 1.0])
        return np.asarray(S @ self.small_warp @ np.linalg.inv(S), np.float64)

    def moved(self) -> bool:
        return not np.allclose(self.small_warp, np.eye(3), atol=1e-6)

    def update(self, small: Image) -> bool:
        """Check ``small`` (quarter resolution); refit when the view slid. True when the correction changed."""
        cur = _grey(small)
        self._seen = (small, cur)
        (dx, dy), _ = cv2.phaseCorrelate(self.expected, cur, self.window)
        slide = float(np.hypot(dx, dy)) * SMALL * CHECK
        if slide < MOVED_PX and not self.lost:
            self.quiet += 1
            return False
        self.moved_px = slide
        grey = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), np.float32)
        half = np.diag([1.0 / CHECK, 1.0 / CHECK, 1.0])
        coarse0 = half @ self.small_warp @ np.linalg.inv(half)
        coarse0[0, 2] += dx
        coarse0[1, 2] += dy
        # coarse to fine: the 1/8 fit has the wider basin, the 1/4 fit the precision
        cc, coarse = _ecc(self.check_model, cur, coarse0.astype(np.float32), self.check_full)
        init = np.asarray(np.linalg.inv(half) @ coarse @ half, np.float32) if cc >= MIN_ECC else np.asarray(
            np.linalg.inv(half) @ coarse0 @ half, np.float32)
        cc, warp = _ecc(self.model, grey, init, self.full)
        if cc < MIN_ECC:
            self.lost = True
            return False
        self.lost = False
        self.small_warp = np.asarray(warp, np.float64)
        h, w = self.check_model.shape
        half = np.diag([1.0 / CHECK, 1.0 / CHECK, 1.0])
        H = half @ self.small_warp @ np.linalg.inv(half)
        self.expected = np.asarray(cv2.warpPerspective(self.check_model, H, (w, h), borderMode=cv2.BORDER_REPLICATE),
                                   np.float32)
        return True

    def refresh(self, aligned: Image) -> None:
        """Take ``aligned`` (a frame resampled into the calibrated view) as the model every REFRESH quiet
        frames, so the fit compares the table with itself as it is now (its pieces and cards), not with the
        empty photo."""
        if self.quiet >= REFRESH and not self.lost:
            seen = self._seen
            self._set_model(aligned, seen[1] if seen is not None and seen[0] is aligned else None)
            h, w = self.check_model.shape
            half = np.diag([1.0 / CHECK, 1.0 / CHECK, 1.0])
            H = half @ self.small_warp @ np.linalg.inv(half)
            self.expected = np.asarray(cv2.warpPerspective(self.check_model, H, (w, h),
                                                           borderMode=cv2.BORDER_REPLICATE), np.float32)
            self.quiet = 0

    def align(self, small: Image) -> Image:
        """``small`` resampled into the model's view (identity when the camera has not moved)."""
        if not self.moved():
            return small
        h, w = small.shape[:2]
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        return np.asarray(cv2.warpPerspective(small, self.small_warp, (w, h), flags=flags,
                                              borderMode=cv2.BORDER_REPLICATE), np.uint8)
