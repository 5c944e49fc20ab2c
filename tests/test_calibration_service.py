"""The calibration page's backend: overlay of the current frame, and the pose from nudged mat corners."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.calfile import Calibration
from calibration.camera import default_pose
from calibration.procedure import drift_px
from rules.kipukas.board_map import BoardMap
from tracker.errors import InputError
from tracker.overhead.calibration_service import CalibrationService, mat_corners_world, pose_from_corners
from tracker.overhead.layout import table_layout
from vision.synth import Renderer, TableScene

SIZE = (2028, 1520)


def test_corners_give_back_the_pose() -> None:
    layout = table_layout(BoardMap.packaged())
    truth = default_pose(layout, image_size=SIZE, yaw_deg=3.0, tilt_deg=6.0, offset_mm=(15.0, 10.0))
    nominal = default_pose(layout, image_size=SIZE)
    corners = truth.project(mat_corners_world(layout)).tolist()
    cal = pose_from_corners(corners, layout, nominal)
    assert cal.method == "manual" and drift_px(cal.pose, truth, layout) < 1.0


@pytest.mark.parametrize(("corners", "problem"), [
    ([[0, 0], [1, 1]], "expected 4"),
    ([[0, 0], [100, 0], [0, 100], [100, 100]], "cannot have that shape"),  # not in order: a twisted mat
    ([[0, 0], [1e9, 0], [1e9, 1e9], [0, 1e9]], "far outside"),
])
def test_bad_corners_are_refused(corners: list[list[float]], problem: str) -> None:
    layout = table_layout(BoardMap.packaged())
    with pytest.raises(InputError, match=problem):
        pose_from_corners(corners, layout, default_pose(layout, image_size=SIZE))


def test_service_draws_the_overlay_and_applies_nudged_corners() -> None:
    layout = table_layout(BoardMap.packaged())
    truth = default_pose(layout, image_size=SIZE, offset_mm=(25.0, 0.0))
    frame = Renderer(layout, truth, {"red": (40, 40, 210)}).render(TableScene({}), seed=2)
    current = [default_pose(layout, image_size=SIZE)]
    applied: list[Calibration] = []

    def apply(cal: Calibration) -> None:
        applied.append(cal)
        current[0] = cal.pose

    service = CalibrationService(layout, lambda: frame, lambda: current[0], apply)
    state = service.state()
    assert state["has_frame"] and state["image_size"] == list(SIZE) and len(state["corners"]) == 4
    jpeg = service.overlay_jpeg()
    assert jpeg is not None and cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).shape == (1520, 2028, 3)
    result = service.set_corners(truth.project(mat_corners_world(layout)).tolist())
    assert result["method"] == "manual" and drift_px(current[0], truth, layout) < 1.0 and len(applied) == 1
