"""A camera knocked after calibration: the same camera turned by a few degrees and shifted by some mm."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import CameraPose


def bumped_pose(pose: CameraPose, degrees: float, mm: float, rng: np.random.Generator) -> CameraPose:
    """``pose`` rotated by ``degrees`` about a random axis through the camera and moved ``mm`` sideways."""
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    R0, _ = cv2.Rodrigues(pose.rvec)
    dR, _ = cv2.Rodrigues(axis * np.radians(degrees))
    centre = -R0.T @ pose.tvec.reshape(3)
    move = rng.normal(size=3)
    move[2] = 0.0
    move *= mm / max(float(np.linalg.norm(move)), 1e-9)
    R1 = dR @ R0
    t1 = -R1 @ (centre + move)
    rvec, _ = cv2.Rodrigues(R1)
    return CameraPose(pose.K, pose.dist, rvec.reshape(3), t1.reshape(3), pose.image_size)
