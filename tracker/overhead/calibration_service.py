"""The calibration page's backend: the current overhead frame with the calibration drawn on it, and
nudging the mat's four corners to re-solve the camera pose (method ``manual``) when the automatic
calibration is off. Every change is saved to the calibration file and handed to the board reader."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.calfile import Calibration
from calibration.camera import CameraPose
from calibration.layout import TableLayout
from calibration.overlay import draw_overlay
from tracker.errors import InputError

Frame = NDArray[np.uint8]


def mat_corners_world(layout: TableLayout) -> NDArray[np.float64]:
    w, h = layout.mat_size_mm
    return np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], dtype=np.float64)


def pose_from_corners(corners_px: Sequence[Sequence[float]], layout: TableLayout, base: CameraPose) -> Calibration:
    """The pose that puts the mat's corners (top-left, top-right, bottom-right, bottom-left) on the given
    pixels, with the intrinsics of `base`."""
    pts = np.asarray(corners_px, dtype=np.float64)
    if pts.shape != (4, 2) or not np.all(np.isfinite(pts)):
        raise InputError(f"corners: expected 4 [x, y] pixel pairs, got {np.asarray(corners_px).shape}")
    w, h = base.image_size
    if np.any(pts < -w) or np.any(pts[:, 0] > 2 * w) or np.any(pts[:, 1] > 2 * h):
        raise InputError("corners: far outside the image")
    world = mat_corners_world(layout)
    best: tuple[float, CameraPose] | None = None
    for flags in (cv2.SOLVEPNP_ITERATIVE, cv2.SOLVEPNP_IPPE):
        ok, rvec, tvec = cv2.solvePnP(world, pts, base.K, base.dist, flags=flags)
        if not ok or not (np.all(np.isfinite(rvec)) and np.all(np.isfinite(tvec))) or float(tvec[2][0]) <= 0:
            continue  # no solution, or the mat behind the camera
        pose = CameraPose(base.K, base.dist, np.asarray(rvec, np.float64), np.asarray(tvec, np.float64),
                          base.image_size)
        error = float(np.linalg.norm(pose.project(world) - pts, axis=1).mean())
        if np.isfinite(error) and (best is None or error < best[0]):
            best = (error, pose)
    if best is None:
        raise InputError("corners: no camera pose puts the mat there (are they in order, clockwise from the "
                         "top-left?)")
    error, pose = best
    if error > 5.0:
        raise InputError(f"corners: the mat cannot have that shape (reprojection error {error:.1f} px)")
    return Calibration(pose, "manual", error, 4)


GOOD_PX = 1.0     # reprojection error of a calibration a judge need not look at again
USABLE_PX = 2.5   # the most `calibration.plausibility` accepts: above it the matches do not fit one camera


def quality(cal: Calibration | None) -> dict[str, Any] | None:
    """The calibration page's quality figure and verdict: the mean reprojection error (how far, in pixels
    of the camera's picture, the calibrated model puts the points it was solved from), the method and the
    points it used; ``good`` up to `GOOD_PX`, ``usable`` up to `USABLE_PX`, ``poor`` above."""
    if cal is None:
        return None
    err = float(cal.reprojection_error_px)
    if err <= GOOD_PX:
        verdict, advice = "good", "nothing to do"
    elif err <= USABLE_PX:
        verdict, advice = "usable", "stands near the edges may be misread: drag the corners closer and save"
    else:
        verdict, advice = "poor", "readings cannot be trusted: drag the corners onto the mat's corners and save"
    return {"method": cal.method, "reprojection_error_px": round(err, 2), "points": int(cal.inliers),
            "verdict": verdict, "advice": advice}


class CalibrationService:
    def __init__(self, layout: TableLayout, frame: Callable[[], Frame | None], pose: Callable[[], CameraPose],
                 apply: Callable[[Calibration], None],
                 colours: Callable[[dict[str, tuple[int, int, int]]], None] | None = None,
                 palette: Callable[[], dict[str, tuple[int, int, int]]] | None = None,
                 current: Callable[[], Calibration | None] | None = None) -> None:
        """`current`: the calibration in use (the automatic one, or the last saved); without it, the page's
        quality figure is that of the last corners saved here."""
        self.layout = layout
        self._frame, self._pose, self._apply = frame, pose, apply
        self._colours, self._palette = colours, palette
        self._current = current
        self._saved: Calibration | None = None
        self._lock = threading.Lock()

    def state(self) -> dict[str, Any]:
        pose = self._pose()
        corners = pose.project(mat_corners_world(self.layout))
        palette = self._palette() if self._palette else {}
        cal = self._current() if self._current is not None else self._saved
        return {"image_size": list(pose.image_size), "corners": np.round(corners, 1).tolist(),
                "has_frame": self._frame() is not None, "quality": quality(cal),
                "palette": {k: f"#{v[2]:02x}{v[1]:02x}{v[0]:02x}" for k, v in palette.items()}}

    def overlay_jpeg(self) -> bytes | None:
        frame = self._frame()
        if frame is None:
            return None
        ok, data = cv2.imencode(".jpg", draw_overlay(frame, self.layout, self._pose()), [cv2.IMWRITE_JPEG_QUALITY, 80])
        return bytes(data) if ok else None

    def set_corners(self, corners_px: Sequence[Sequence[float]]) -> dict[str, Any]:
        with self._lock:
            cal = pose_from_corners(corners_px, self.layout, self._pose())
            self._apply(cal)
            self._saved = cal
        return {"method": cal.method, "reprojection_error_px": round(cal.reprojection_error_px, 3),
                "quality": quality(cal)}

    def learn_colours(self, samples: dict[str, str]) -> dict[str, Any]:
        """Learn each player's token colour from the current frame: `samples` maps a stand to the player
        whose token stands on it. Colours the reader could not keep apart (too close to each other or to
        the map's own colours) are refused, naming them and suggesting others."""
        from vision.errors import VisionError
        from vision.palette import learn_palette, palette_problems

        frame = self._frame()
        if frame is None or self._colours is None:
            raise InputError("no overhead frame to learn colours from yet")
        try:
            palette = learn_palette(frame, self.layout, self._pose(), samples)
        except VisionError as exc:
            raise InputError(str(exc)) from exc
        problems = palette_problems(palette, frame, self.layout, self._pose(), samples)
        if problems:
            raise InputError("token colours refused: " + "; ".join(problems))
        with self._lock:
            self._colours(palette)
        return {"palette": {k: list(v) for k, v in palette.items()}}

    def colour_names(self) -> list[str]:
        """The token colours an organiser may choose from (each as a camera sees it under neutral light)."""
        from vision.palette import SUGGESTIONS

        return list(SUGGESTIONS)

    def choose_colours(self, choice: dict[str, str]) -> dict[str, Any]:
        """The organiser's page: each seat's token colour by name. Checked as learned colours are (too close
        to each other or to the map's own colours in the current frame: refused, naming them and suggesting
        others), then used by the reader until the calibration page learns the pieces' exact colours."""
        from vision.errors import VisionError
        from vision.palette import SUGGESTIONS, palette_problems

        unknown = sorted(f"{seat}: {name!r}" for seat, name in choice.items() if name not in SUGGESTIONS)
        if unknown:
            raise InputError(f"unknown token colour ({', '.join(unknown)}); choose from {', '.join(SUGGESTIONS)}")
        frame = self._frame()
        if frame is None or self._colours is None:
            raise InputError("the colour check needs the overhead camera's view of the map, and there is none yet")
        palette = {seat: SUGGESTIONS[name] for seat, name in choice.items()}
        try:
            problems = palette_problems(palette, frame, self.layout, self._pose())
        except VisionError as exc:
            raise InputError(str(exc)) from exc
        if problems:
            raise InputError("seat colours refused: " + "; ".join(problems))
        with self._lock:
            self._colours(palette)
        return {"palette": {k: f"#{v[2]:02x}{v[1]:02x}{v[0]:02x}" for k, v in palette.items()}}
