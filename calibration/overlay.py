"""A picture of a calibration: the mat outline, every slot and every stand (at its height) drawn over the
frame, so a person can see at a glance whether the projection fits."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import TableLayout


def stand_outline_world(layout: TableLayout, stand_id: str, n: int = 24) -> NDArray[np.float64]:
    """The top outline of a stand in world mm (x, y, z)."""
    s = layout.stand(stand_id)
    x, y, z = layout.stand_world(stand_id)
    a = np.radians(s.angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    if s.kind == "territory":
        hw, hh = s.size_mm[0] / 2, s.size_mm[1] / 2
        local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    else:
        t = np.linspace(0, 2 * np.pi, n, endpoint=False)
        local = np.column_stack([np.cos(t), np.sin(t)]) * s.size_mm[0] / 2
    pts = local @ rot.T + np.array([x, y])
    return np.column_stack([pts, np.full(len(pts), z)])


def draw_overlay(frame: NDArray[np.uint8], layout: TableLayout, pose: CameraPose) -> NDArray[np.uint8]:
    out = frame.copy()
    w, h = layout.mat_size_mm
    mat = pose.project(np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], dtype=np.float64))
    cv2.polylines(out, [np.round(mat).astype(np.int32)], True, (0, 255, 255), 3, cv2.LINE_AA)
    for s in layout.slots:
        x0, y0, x1, y1 = s.rect_mm
        poly = pose.project(np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], dtype=np.float64))
        cv2.polylines(out, [np.round(poly).astype(np.int32)], True, (0, 200, 0), 2, cv2.LINE_AA)
        c = poly.mean(0)
        cv2.putText(out, s.id, (int(c[0]) - 12, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 160, 0), 2)
    if layout.roll_area_mm is not None:  # where dice are rolled and read (docs/dice.md)
        x0, y0, x1, y1 = layout.roll_area_mm
        poly = pose.project(np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], dtype=np.float64))
        cv2.polylines(out, [np.round(poly).astype(np.int32)], True, (255, 160, 0), 2, cv2.LINE_AA)
        c = poly.mean(0)
        cv2.putText(out, "dice", (int(c[0]) - 30, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 160, 0), 2)
    for st in layout.stands:
        poly = pose.project(stand_outline_world(layout, st.id))
        cv2.polylines(out, [np.round(poly).astype(np.int32)], True, (255, 0, 255), 2, cv2.LINE_AA)
        c = pose.project(np.array([layout.stand_world(st.id)]))[0]
        cv2.putText(out, st.id, (int(c[0]) + 10, int(c[1]) - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 0, 255), 2)
    return out
