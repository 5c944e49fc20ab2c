"""The pose of the mat from one frame, without markers: features of the mat's own artwork are matched
between the printed design and the frame (ORB, ratio test, RANSAC homography), the inliers become
3D-2D correspondences on the mat plane (z = 0), and ``solvePnP`` gives the camera pose.

The reference artwork is any planar design with known size: the mat image (the default) or the map's top
texture for a map photographed on its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose, intrinsics, to_cv
from calibration.errors import CalibrationError

MAX_SIDE = 1400
MIN_INLIERS = 25


@dataclass(frozen=True)
class Artwork:
    """A planar reference design: the image, and the homography from its pixels to world (x, y) mm on the
    plane at height ``z_mm``."""

    image: NDArray[np.uint8]
    px_to_mm: NDArray[np.float64]
    z_mm: float = 0.0


@dataclass(frozen=True)
class PoseEstimate:
    pose: CameraPose
    reprojection_error_px: float
    inliers: int
    method: str
    world_points: NDArray[np.float64]
    image_points: NDArray[np.float64]


def _features(gray: NDArray[np.uint8]) -> tuple[list[cv2.KeyPoint], NDArray[np.uint8] | None, float]:
    s = min(1.0, MAX_SIDE / max(gray.shape))
    small = cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1.0 else gray
    orb = cv2.ORB.create(nfeatures=6000, scaleFactor=1.2, nlevels=8, fastThreshold=10)
    kps, desc = orb.detectAndCompute(small, None)
    return list(kps), None if desc is None else np.asarray(desc, np.uint8), s


def _gray(img: NDArray[np.uint8]) -> NDArray[np.uint8]:
    return np.asarray(img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), np.uint8)


def match_artwork(frame: NDArray[np.uint8], art: Artwork) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Inlier correspondences: world (x, y, z) mm of artwork features and their frame pixels."""
    k1, d1, s1 = _features(_gray(art.image))
    k2, d2, s2 = _features(_gray(frame))
    if d1 is None or d2 is None or len(k1) < MIN_INLIERS or len(k2) < MIN_INLIERS:
        raise CalibrationError("mat pose: too few features in the frame (is it the table, in focus and lit?)")
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(d1, d2, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < 0.8 * p[1].distance]
    if len(good) < MIN_INLIERS:
        raise CalibrationError(f"mat pose: only {len(good)} features of the artwork matched the frame")
    src = np.array([k1[m.queryIdx].pt for m in good], np.float64) / s1
    dst = np.array([k2[m.trainIdx].pt for m in good], np.float64) / s2
    H, inl = cv2.findHomography(src, dst, cv2.RANSAC, 4.0)
    if H is None or inl is None or int(inl.sum()) < MIN_INLIERS:
        raise CalibrationError("mat pose: the matched features do not agree on one plane")
    keep = inl.ravel() > 0
    pts = np.column_stack([src[keep], np.ones(int(keep.sum()))]) @ art.px_to_mm.T
    world = np.column_stack([pts[:, :2] / pts[:, 2:], np.full(int(keep.sum()), art.z_mm)])
    return world, dst[keep]


def focal_from_homography(H: NDArray[np.float64], size: tuple[int, int]) -> float | None:
    """The focal length (px) implied by a plane's homography, principal point at the image centre and
    square pixels (Zhang's orthogonality constraint); None when the view is too frontal to tell."""
    T = np.array([[1, 0, -size[0] / 2], [0, 1, -size[1] / 2], [0, 0, 1]], dtype=np.float64)
    h = T @ H
    h1, h2 = h[:, 0], h[:, 1]
    num = -(h1[0] * h2[0] + h1[1] * h2[1])
    den = h1[2] * h2[2]
    if abs(den) < 1e-12:
        return None
    f2 = num / den
    return math.sqrt(f2) if f2 > 0 else None


def solve_pose(world: NDArray[np.float64], image: NDArray[np.float64], K: NDArray[np.float64],
               dist: NDArray[np.float64], size: tuple[int, int], method: str) -> PoseEstimate:
    """solvePnP (iterative, refined with Levenberg-Marquardt) and the mean reprojection error."""
    obj = to_cv(world)
    ok, rvec, tvec = cv2.solvePnP(obj, image, K, dist, flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        raise CalibrationError(f"{method}: solvePnP found no pose")
    rvec, tvec = cv2.solvePnPRefineLM(obj, image, K, dist, rvec, tvec)
    pose = CameraPose(np.asarray(K, np.float64), np.asarray(dist, np.float64), np.asarray(rvec, np.float64),
                      np.asarray(tvec, np.float64), size)
    res = np.linalg.norm(pose.project(world) - image, axis=1)
    keep = res < max(3.0, 3.0 * float(np.median(res)))
    if len(world) > 30 and int(keep.sum()) >= 20 and not keep.all():
        # mismatched features that RANSAC's 4 px tolerance let through: drop them and refine once more
        return solve_pose(world[keep], image[keep], K, dist, size, method)
    return PoseEstimate(pose, float(res.mean()), len(world), method, world, image)


def estimate_pose(frame: NDArray[np.uint8], art: Artwork, K: NDArray[np.float64] | None = None,
                  dist: NDArray[np.float64] | None = None) -> PoseEstimate:
    """The camera pose from the artwork seen in ``frame``. Without K, the focal length comes from the
    homography when the view is oblique enough, else from the nominal Pi HQ camera with a 6 mm lens."""
    size = (frame.shape[1], frame.shape[0])
    world, image = match_artwork(frame, art)
    d = np.zeros(5) if dist is None else dist
    if K is not None:
        return solve_pose(world, image, K, d, size, "artwork")
    # no intrinsics: the nominal camera, or the focal length the homography implies if that fits better
    nominal = intrinsics(size)
    best = solve_pose(world, image, nominal, d, size, "artwork")
    H, _ = cv2.findHomography(world[:, :2], image, 0)
    f = focal_from_homography(np.asarray(H, np.float64), size)
    if f is not None and 0.5 * nominal[0, 0] < f < 2.0 * nominal[0, 0]:
        K2 = nominal.copy()
        K2[0, 0] = K2[1, 1] = f
        other = solve_pose(world, image, K2, d, size, "artwork")
        if other.reprojection_error_px < 0.9 * best.reprojection_error_px:
            best = other
    return best
