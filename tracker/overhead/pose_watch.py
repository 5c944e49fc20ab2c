"""The overhead pose follows the table during play.

Every ``interval_s`` seconds the current frame is checked against the calibration (``calibration.drift``:
free, textured patches of the empty table), and at once when a quick look (every frame: the whole view
phase-correlated at 1/8 resolution, made from the camera's low-resolution stream when it gives one, about a
millisecond) says the image shifted, so no frame of a knocked camera is read with the old pose.
A camera or mat moved by more than the tolerance is re-posed automatically and the pages say so; tracking
resumes with the new pose. When no pose can be found the pages say "board unreadable: camera moved" and
the loop takes no move from the frames until a later check finds the table again (or someone calibrates
on the calibration page).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.drift import PoseTracker
from calibration.errors import CalibrationError
from calibration.layout import TableLayout
from calibration.mat_pose import Artwork

UNREADABLE = "board unreadable: camera moved"


@dataclass(frozen=True)
class Watch:
    """What the loop should do with a frame: ``readable`` False means take no move from it; ``pose`` is a
    new pose to read with (after a re-pose), else None."""

    readable: bool
    pose: CameraPose | None = None


class PoseWatch:
    def __init__(self, layout: TableLayout, pose: CameraPose, arts: list[Artwork], warn: Callable[[str], None],
                 interval_s: float = 5.0, tolerance_px: float = 3.0) -> None:
        self.layout, self.arts, self.warn = layout, arts, warn
        self.interval_s, self.tolerance = interval_s, tolerance_px
        self.tracker: PoseTracker | None = None
        self.pose = pose
        self.next_check = 0.0
        self.lost = False

    def reset(self, pose: CameraPose, frame: NDArray[np.uint8] | None = None) -> None:
        """A new calibration (by hand, or at start-up): follow it from ``frame`` (or the next frame)."""
        self.pose, self.lost = pose, False
        self.tracker = None if frame is None else PoseTracker(self.layout, pose, frame, self.arts, self.tolerance)

    def process(self, frame: NDArray[np.uint8], now: float, lores: NDArray[np.uint8] | None = None) -> Watch:
        """Follow the pose through ``frame`` at ``now`` (seconds); ``lores``, the camera's low-resolution
        stream of the frame when it gives one, makes the every-frame quick look cheap."""
        if self.tracker is None:
            self.tracker = PoseTracker(self.layout, self.pose, frame, self.arts, self.tolerance)
            self.next_check = now + self.interval_s
            return Watch(True)
        if self.tracker.reference.shape != frame.shape[:2]:
            return Watch(not self.lost)  # not a frame of this camera mode: the reader reports it, not the watch
        # every few seconds in full; at once when a quick look at a few patches says the image moved
        if now < self.next_check and (self.lost or not self.tracker.moved(frame, lores=lores)):
            return Watch(not self.lost)
        self.next_check = now + self.interval_s
        detail = ""
        try:
            result = self.tracker.check(frame)
        except CalibrationError as exc:
            result = None
            detail = str(exc)
        if result is None or result.status == "lost":
            if not self.lost:
                why = detail if result is None else result.detail
                self.warn(f"{UNREADABLE} (the pose could not be found again: {why}); no moves are taken from "
                          "the overhead camera until it is: put the camera back or calibrate on the "
                          "calibration page")
            self.lost = True
            return Watch(False)
        if result.status == "reposed":
            self.pose = result.pose
            self.warn(f"overhead camera or mat moved by {result.moved_px:.0f} px: re-posed automatically "
                      f"({result.detail}); tracking resumes")
            self.lost = False
            return Watch(True, result.pose)
        if self.lost:
            self.warn("overhead camera: the table is back where the calibration says; tracking resumes")
            self.lost = False
        return Watch(True)
