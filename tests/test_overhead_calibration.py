"""Calibration: ChArUco intrinsics, markerless mat pose, corner stickers, the calibration file, the
start-up re-check and the `calibrate` command, all on synthetic frames with a known camera."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.calfile import load_calibration
from calibration.camera import default_pose, intrinsics, look_at
from calibration.charuco import SQUARE_MM, SQUARES, board_image, calibrate_intrinsics
from calibration.errors import CalibrationError, CalibrationFileError
from calibration.procedure import calibrate_frame, check_calibration, mat_artwork
from calibration.stickers import estimate_pose_stickers
from tests.overhead_support import PALETTE, layout, random_slots, random_tokens
from tracker.cli import main
from vision.assets import asset
from vision.synth import Renderer, TableScene
from vision.warp import scale


def table_frame(tilt: float, yaw: float, off: tuple[float, float], stickers: bool = False) -> tuple[np.ndarray, object]:
    p = default_pose(layout(), tilt_deg=tilt, yaw_deg=yaw, offset_mm=off)
    rng = np.random.default_rng(int(tilt * 10 + yaw))
    scene = TableScene(random_tokens(rng), random_slots(rng, 1), hands=1)
    return Renderer(layout(), p, PALETTE, stickers=stickers).render(scene, seed=4, blur=0.6), p


def stand_error_px(est_pose: object, true_pose: object) -> float:
    pts = np.array([layout().stand_world(s.id) for s in layout().stands])
    return float(np.linalg.norm(est_pose.project(pts) - true_pose.project(pts), axis=1).max())  # type: ignore[attr-defined]


def test_charuco_intrinsics_from_synthetic_views() -> None:
    img = board_image(dpi=150)
    k = 150 / 25.4
    K = intrinsics((1014, 760))
    rng = np.random.default_rng(0)
    centre = np.array([(SQUARES[0] * SQUARE_MM + 20) / 2, (SQUARES[1] * SQUARE_MM + 20) / 2, 0.0])
    views = []
    for _ in range(8):
        pos = centre + np.array([rng.uniform(-150, 150), rng.uniform(-150, 150), -rng.uniform(450, 650)])
        rvec, tvec = look_at(pos, centre, rng.uniform(-30, 30))
        R, _ = cv2.Rodrigues(rvec)
        H = K @ np.column_stack([R[:, 0], R[:, 1], tvec.reshape(3)]) @ scale(1 / k)
        views.append(cv2.warpPerspective(img, H, (1014, 760), borderValue=200))
    res = calibrate_intrinsics(views)
    assert res.views == 8 and res.rms_px < 1.0
    assert abs(res.K[0, 0] - K[0, 0]) / K[0, 0] < 0.02
    assert abs(res.K[0, 2] - K[0, 2]) < 10 and abs(res.K[1, 2] - K[1, 2]) < 10
    with pytest.raises(CalibrationError, match="found in 0 of 2"):
        calibrate_intrinsics([np.full((100, 100), 255, np.uint8)] * 2)


@pytest.mark.parametrize("tilt,yaw,off", [(0.0, 0.0, (0.0, 0.0)), (18.0, 8.0, (30.0, -20.0))])
def test_markerless_pose_projects_stands_within_3_px(tilt: float, yaw: float, off: tuple[float, float]) -> None:
    frame, true_pose = table_frame(tilt, yaw, off)
    art = mat_artwork(layout(), asset(layout().mat_image))
    cal = calibrate_frame(frame, layout(), art)  # no intrinsics given: nominal / from the homography
    assert cal.method == "artwork" and cal.reprojection_error_px < 2.5
    assert stand_error_px(cal.pose, true_pose) < 3.0


def test_corner_stickers_are_the_fallback() -> None:
    frame, true_pose = table_frame(12.0, -4.0, (0.0, 0.0), stickers=True)
    est = estimate_pose_stickers(frame, layout().mat_size_mm, true_pose.K)  # type: ignore[attr-defined]
    assert est.method == "stickers" and est.inliers >= 8  # a card or the hand may hide a sticker or two
    assert stand_error_px(est.pose, true_pose) < 3.0
    with pytest.raises(CalibrationError, match="found 0 of the 4 corner stickers"):
        estimate_pose_stickers(np.full((400, 600, 3), 255, np.uint8), layout().mat_size_mm)


def test_calibration_file_round_trip_and_errors(tmp_path: Path) -> None:
    frame, _ = table_frame(0.0, 0.0, (0.0, 0.0))
    cal = calibrate_frame(frame, layout(), mat_artwork(layout(), asset(layout().mat_image)))
    path = tmp_path / "cal.json"
    cal.save(path)
    back = load_calibration(path)
    assert back.method == cal.method and abs(back.reprojection_error_px - cal.reprojection_error_px) < 1e-3
    assert np.allclose(back.pose.project([[100.0, 100.0, 0.0]]), cal.pose.project([[100.0, 100.0, 0.0]]), atol=1e-3)
    data = json.loads(path.read_text())
    data["K"] = [[1, 0], [0, 1]]
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationFileError, match=r"cal\.json: K: expected finite numbers of shape \(3, 3\)"):
        load_calibration(path)
    path.write_text("{not json")
    with pytest.raises(CalibrationFileError, match=r"cal\.json: line 1: not JSON"):
        load_calibration(path)


def test_start_up_check_notices_a_moved_camera() -> None:
    frame, _ = table_frame(0.0, 0.0, (0.0, 0.0))
    art = mat_artwork(layout(), asset(layout().mat_image))
    cal = calibrate_frame(frame, layout(), art)
    again, _ = table_frame(0.0, 0.0, (0.0, 0.0))
    assert check_calibration(again, cal, layout(), art) < 2.0
    moved, _ = table_frame(0.0, 3.0, (25.0, 0.0))
    assert check_calibration(moved, cal, layout(), art) > 10.0


def test_calibrate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame, _ = table_frame(10.0, 0.0, (0.0, 0.0))
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), frame)
    out, overlay = tmp_path / "cal.json", tmp_path / "overlay.png"
    assert main(["calibrate", "--image", str(img), "--out", str(out), "--overlay", str(overlay)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["method"] == "artwork" and report["reprojection_error_px"] < 2.5
    assert load_calibration(out).pose.image_size == (2028, 1520)
    pic = cv2.imread(str(overlay))
    assert pic is not None and pic.shape == frame.shape and not np.array_equal(pic, frame)
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a picture")
    assert main(["calibrate", "--image", str(bad)]) == 2
    assert "not a readable image" in capsys.readouterr().err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 128, np.uint8))
    assert main(["calibrate", "--image", str(blank)]) == 2


def test_calibrate_command_on_the_real_map_photo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = Path(__file__).resolve().parents[1] / "vision" / "assets" / "map_top.jpeg"
    assert main(["calibrate", "--image", str(src), "--target", "map", "--overlay", str(tmp_path / "o.png")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["target"] == "map" and report["reprojection_error_px"] < 1.0


def charuco_views(size: tuple[int, int], n: int = 6) -> list[np.ndarray]:
    img = board_image(dpi=150)
    k = 150 / 25.4
    K = intrinsics(size)
    rng = np.random.default_rng(1)
    centre = np.array([(SQUARES[0] * SQUARE_MM + 20) / 2, (SQUARES[1] * SQUARE_MM + 20) / 2, 0.0])
    views = []
    for _ in range(n):
        pos = centre + np.array([rng.uniform(-150, 150), rng.uniform(-150, 150), -rng.uniform(600, 800)])
        rvec, tvec = look_at(pos, centre, rng.uniform(-30, 30))
        R, _ = cv2.Rodrigues(rvec)
        H = K @ np.column_stack([R[:, 0], R[:, 1], tvec.reshape(3)]) @ scale(1 / k)
        views.append(cv2.warpPerspective(img, H, size, borderValue=200))
    return views


def test_calibrate_command_with_charuco_photos(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame, true_pose = table_frame(8.0, 0.0, (0.0, 0.0))
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), frame)
    photos = []
    for i, v in enumerate(charuco_views((2028, 1520))):
        photos.append(str(tmp_path / f"board{i}.png"))
        cv2.imwrite(photos[-1], v)
    out = tmp_path / "cal.json"
    assert main(["calibrate", "--image", str(img), "--out", str(out), "--charuco", *photos]) == 0
    cal = load_calibration(out)
    assert abs(cal.pose.K[0, 0] - true_pose.K[0, 0]) / true_pose.K[0, 0] < 0.02  # type: ignore[attr-defined]
    assert stand_error_px(cal.pose, true_pose) < 3.0
    capsys.readouterr()
    assert main(["calibrate", "--image", str(img), "--charuco", str(img)]) == 2
    assert "board was found in 0 of 1" in capsys.readouterr().err
