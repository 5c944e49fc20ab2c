"""Table layout and camera model: the map on the mat's square, projections agree with OpenCV."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import default_pose
from calibration.errors import CalibrationFileError
from calibration.layout import load_mat, parse_mat
from tests.overhead_support import layout, pose


def test_map_sits_on_the_mats_square_and_slots_are_known() -> None:
    lay = layout()
    mat = load_mat()
    x0, y0, x1, y1 = mat.map_square_mm
    for s in lay.stands:
        x, y, z = lay.stand_world(s.id)
        assert x0 < x < x1 and y0 < y < y1 and z > 0
    assert {s.id for s in lay.slots} == {str(n) for n in range(1, 13)} | {"transit", "transit-2"}
    for s in lay.slots:  # every slot holds a 95 x 155 mm card portrait
        w, h = s.rect_mm[2] - s.rect_mm[0], s.rect_mm[3] - s.rect_mm[1]
        if s.up_deg in (90.0, 270.0):
            w, h = h, w
        assert w >= 95.0 and h >= 150.0, s.id


def test_default_pose_looks_at_the_mat_centre_from_above() -> None:
    lay = layout()
    p = pose()
    centre = np.array([[lay.mat_size_mm[0] / 2, lay.mat_size_mm[1] / 2, 0.0]])
    assert np.allclose(p.project(centre), [[1014.0, 760.0]], atol=1e-6)
    assert np.isclose(p.centre_world()[2], 1000.0)
    # the whole mat is in view
    w, h = lay.mat_size_mm
    corners = p.project(np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], dtype=float))
    assert (corners > 0).all() and (corners[:, 0] < 2028).all() and (corners[:, 1] < 1520).all()


@pytest.mark.parametrize("tilt,yaw,off", [(0.0, 0.0, (0.0, 0.0)), (15.0, 5.0, (30.0, -20.0)), (25.0, -90.0, (0, 0))])
def test_plane_homography_agrees_with_projection(tilt: float, yaw: float, off: tuple[float, float]) -> None:
    p = default_pose(layout(), tilt_deg=tilt, yaw_deg=yaw, offset_mm=off)
    rng = np.random.default_rng(0)
    for z in (0.0, 14.0, 22.0):
        pts = np.column_stack([rng.uniform(0, 800, 20), rng.uniform(0, 500, 20), np.full(20, z)])
        H = p.plane_homography(z)
        q = np.column_stack([pts[:, :2], np.ones(20)]) @ H.T
        assert np.allclose(q[:, :2] / q[:, 2:], p.project(pts), atol=1e-6)


def test_higher_stands_appear_further_from_the_image_centre() -> None:
    p = pose()
    lay = layout()
    x, y, z = lay.stand_world("T4")
    low, high = p.project(np.array([[x, y, 0.0], [x, y, z]]))
    c = np.array([1014.0, 760.0])
    assert np.linalg.norm(high - c) > np.linalg.norm(low - c) + 1.0  # parallax of a 22 mm stand


def test_mat_file_errors_name_the_key() -> None:
    good = {"format": "kipukas-mat/1", "name": "m", "image": "m.jpg", "image_px": [100, 50],
            "size_mm": [200, 100], "map_square_px": [10, 10, 40, 40],
            "slots": [{"id": "1", "rect_px": [0, 0, 10, 10], "up_deg": 0}]}
    assert parse_mat("m.json", good).slots[0].rect_mm == (0.0, 0.0, 20.0, 20.0)
    with pytest.raises(CalibrationFileError, match=r"m.json: slots\[0\].up_deg"):
        parse_mat("m.json", {**good, "slots": [{"id": "1", "rect_px": [0, 0, 10, 10], "up_deg": 45}]})
    with pytest.raises(CalibrationFileError, match=r"m\.json: size_mm: expected 2 numbers"):
        parse_mat("m.json", {**good, "size_mm": [1]})
