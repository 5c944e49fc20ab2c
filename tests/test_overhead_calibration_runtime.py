"""The overhead calibration at run time: made from the first frame when missing, checked when stored,
and redone from the current frame when the camera has moved."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.calfile import Calibration
from calibration.camera import default_pose
from calibration.procedure import drift_px
from rules.kipukas.board_map import BoardMap
from tracker.overhead.auto_calibration import OverheadCalibration
from tracker.overhead.layout import table_layout
from vision.synth import Renderer, TableScene

SIZE = (2028, 1520)


@pytest.fixture(scope="module")
def scene() -> tuple[object, object, np.ndarray]:
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout, image_size=SIZE, yaw_deg=4.0, offset_mm=(20.0, -15.0))
    frame = Renderer(layout, pose, {"red": (40, 40, 210)}).render(TableScene({}), seed=3)
    return layout, pose, frame


def test_missing_calibration_is_made_from_the_first_frame(tmp_path: Path, scene: tuple) -> None:  # type: ignore[type-arg]
    layout, truth, frame = scene
    warnings: list[str] = []
    path = tmp_path / "calibration.json"
    cal = OverheadCalibration(layout, SIZE, str(path), warnings.append)
    assert "does not exist yet" in warnings[0]
    pose = cal.first_frame(frame)
    assert pose is not None and drift_px(pose, truth, layout) < 3.0
    assert path.exists() and "calibrated from the current frame" in warnings[-1]


def test_stored_calibration_is_checked_and_redone_when_the_camera_moved(tmp_path: Path, scene: tuple) -> None:  # type: ignore[type-arg]
    layout, truth, frame = scene
    path = tmp_path / "calibration.json"
    Calibration(truth, "artwork", 0.5, 100).save(path)
    warnings: list[str] = []
    cal = OverheadCalibration(layout, SIZE, str(path), warnings.append)
    assert cal.first_frame(frame) is None and warnings == []  # nothing moved
    moved = default_pose(layout, image_size=SIZE, yaw_deg=0.0, offset_mm=(0.0, 0.0))
    Calibration(moved, "artwork", 0.5, 100).save(path)
    cal = OverheadCalibration(layout, SIZE, str(path), warnings.append)
    pose = cal.first_frame(frame)
    assert any("calibration drift" in w for w in warnings)
    assert pose is not None and drift_px(pose, truth, layout) < 3.0


def test_corrupt_calibration_file_is_a_warning_not_a_crash(tmp_path: Path, scene: tuple) -> None:  # type: ignore[type-arg]
    layout, _, _ = scene
    path = tmp_path / "calibration.json"
    path.write_text('{"format": "kipukas-calibration/1", "K": [[1, 0]]}')
    warnings: list[str] = []
    OverheadCalibration(layout, SIZE, str(path), warnings.append)
    assert str(path) in warnings[0] and "calibrating from the first frame" in warnings[0]
