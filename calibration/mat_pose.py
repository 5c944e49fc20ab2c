"""The pose of the mat or the map from one frame, without markers.

Features of a reference design (the printed mat, the map's top texture) are matched to the frame from
straight-down and simulated oblique views (``calibration.features``); a RANSAC homography of the design's
plane picks the reliable ones; each match becomes a 3D point: its (x, y) from the design, its height from
the design's height map (the map's stand tops are 6-22 mm above its surface). Without given intrinsics the
focal length (and the principal point and one radial term when the view allows) is fitted together with
the pose (``calibration.camera_fit``); then every match the fitted camera explains, on the surface or on a
stand top, joins one final fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose, intrinsics, to_cv
from calibration.camera_fit import CameraFit, fit_camera
from calibration.errors import CalibrationError
from calibration.features import PlaneMatch, frame_features, match_plane
from calibration.plausibility import LIMITS

FloatArray = NDArray[np.float64]
MIN_INLIERS = 20
UNDETERMINED = 0.25  # a fitted focal length with a larger relative standard deviation is not used
# focal lengths (as a share of the image width) that seed the fit: 2.8 mm to 35 mm on a Pi HQ sensor
FOCAL_SEEDS = (0.45, 0.7, 1.0, 1.5, 2.5, 4.0, 7.0, 11.0)


@dataclass(frozen=True)
class Artwork:
    """A reference design: the image, the homography from its pixels to world (x, y) mm on the plane at
    height ``z_mm``, optionally a per-pixel height map (mm; e.g. the map's stand tops), the name used in
    messages ("mat", "map") and the design's outline in world (x, y) mm (default: the image's corners)."""

    image: NDArray[np.uint8]
    px_to_mm: FloatArray
    z_mm: float = 0.0
    heights: NDArray[np.float32] | None = None
    name: str = "mat"
    outline_mm: FloatArray | None = None

    def outline(self) -> FloatArray:
        if self.outline_mm is not None:
            return np.asarray(self.outline_mm, np.float64)
        h, w = self.image.shape[:2]
        return _apply(self.px_to_mm, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))

    def world(self, ref_px: FloatArray) -> FloatArray:
        """World (x, y, z) mm of reference pixels."""
        xy = _apply(self.px_to_mm, ref_px)
        z = np.full(len(ref_px), self.z_mm)
        if self.heights is not None:
            hh, hw = self.heights.shape
            ix = np.clip(np.round(ref_px[:, 0]).astype(int), 0, hw - 1)
            iy = np.clip(np.round(ref_px[:, 1]).astype(int), 0, hh - 1)
            z = self.heights[iy, ix].astype(np.float64)
        return np.column_stack([xy, z])


@dataclass(frozen=True)
class PoseEstimate:
    """A pose with how it was found: ``intrinsics`` says where K came from ("given" or "fitted"), ``std``
    the standard deviation (px, or unitless for k1) of each fitted intrinsic."""

    pose: CameraPose
    reprojection_error_px: float
    inliers: int
    method: str
    world_points: FloatArray
    image_points: FloatArray
    intrinsics: str = "given"
    std: dict[str, float] = field(default_factory=dict)


def _apply(H: FloatArray, pts: FloatArray) -> FloatArray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ np.asarray(H, np.float64).T
    return np.asarray(p[:, :2] / p[:, 2:], np.float64)


def focal_from_homography(H: FloatArray, size: tuple[int, int]) -> float | None:
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
    return float(np.sqrt(f2)) if f2 > 0 else None


def solve_pose(world: FloatArray, image: FloatArray, K: FloatArray, dist: FloatArray, size: tuple[int, int],
               method: str) -> PoseEstimate:
    """solvePnP (iterative, refined with Levenberg-Marquardt) with fixed intrinsics and the mean
    reprojection error."""
    obj = to_cv(world)
    try:
        ok, rvec, tvec = cv2.solvePnP(obj, image, K, dist, flags=cv2.SOLVEPNP_ITERATIVE)
    except cv2.error as exc:
        raise CalibrationError(f"{method}: solvePnP failed ({exc.err})") from None
    if not ok:
        raise CalibrationError(f"{method}: solvePnP found no pose")
    rvec, tvec = cv2.solvePnPRefineLM(obj, image, K, dist, rvec, tvec)
    pose = CameraPose(np.asarray(K, np.float64), np.asarray(dist, np.float64), np.asarray(rvec, np.float64),
                      np.asarray(tvec, np.float64), size)
    res = np.linalg.norm(pose.project(world) - image, axis=1)
    keep = res < max(3.0, 3.0 * float(np.median(res)))
    if len(world) > 30 and int(keep.sum()) >= 20 and not keep.all():
        # mismatched features that RANSAC's tolerance let through: drop them and refine once more
        return solve_pose(world[keep], image[keep], K, dist, size, method)
    return PoseEstimate(pose, float(res.mean()), len(world), method, world, image)


def _tolerance(size: tuple[int, int]) -> float:
    return max(3.0, 0.002 * max(size))


def focal_range(art: Artwork, H_world: FloatArray, size: tuple[int, int]) -> tuple[float, float]:
    """The focal lengths (px) that put the camera within the plausible distances of ``art``'s target, from
    the design's scale in the frame (px per mm at its centre; a tilted view needs up to sqrt(2) more)."""
    lim = LIMITS.get(art.name, LIMITS["mat"])
    c = art.outline().mean(0)
    quad = c + np.array([(-5, -5), (5, -5), (5, 5), (-5, 5)], np.float64)
    px = _apply(H_world, quad)
    px_per_mm = math.sqrt(max(float(cv2.contourArea(px.astype(np.float32))), 1e-9) / 100.0)
    lo = max(lim.min_focal_share * size[0], 0.9 * px_per_mm * lim.min_distance_mm)
    return lo, max(lo * 1.01, 0.98 * px_per_mm * lim.max_distance_mm)


def _pose_of(fit: CameraFit, size: tuple[int, int]) -> CameraPose:
    return CameraPose(fit.K, fit.dist, fit.rvec, fit.tvec, size)


def estimate_pose(frame: NDArray[np.uint8], arts: Artwork | list[Artwork], K: FloatArray | None = None,
                  dist: FloatArray | None = None) -> PoseEstimate:
    """The camera from the designs seen in ``frame``: the first design must be found, the others (the map
    on the mat) add points when they are. Without K, the intrinsics are fitted with the pose."""
    designs = [arts] if isinstance(arts, Artwork) else list(arts)
    what = f"{designs[0].name} pose"
    size = (frame.shape[1], frame.shape[0])
    matches: list[tuple[Artwork, PlaneMatch]] = []
    features = frame_features(frame)
    for i, art in enumerate(designs):
        try:
            # the first design is searched at every simulated tilt; the others only add points
            matches.append((art, match_plane(features, art.image, what, max_level=2 if i == 0 else 1)))
        except CalibrationError:
            if i == 0:
                raise
    all_world = np.vstack([a.world(m.ref_px) for a, m in matches])
    all_image = np.vstack([m.frame_px for _, m in matches])
    plane_world = np.vstack([a.world(m.ref_px[m.inliers]) for a, m in matches])
    plane_image = np.vstack([m.frame_px[m.inliers] for _, m in matches])
    tol = _tolerance(size)
    d = np.zeros(5) if dist is None else np.asarray(dist, np.float64)
    if K is not None:
        est = solve_pose(plane_world, plane_image, K, d, size, "artwork")
        res = np.linalg.norm(est.pose.project(all_world) - all_image, axis=1)
        keep = res < tol
        if int(keep.sum()) >= MIN_INLIERS:
            est = solve_pose(all_world[keep], all_image[keep], K, d, size, "artwork")
        return est
    w = size[0]
    guesses = [s * w for s in FOCAL_SEEDS]
    H_world = _world_homography(plane_world, plane_image)
    f_h = focal_from_homography(H_world, size)
    if f_h is not None:
        guesses.insert(0, f_h)
    f_range = focal_range(designs[0], H_world, size)
    lim = LIMITS.get(designs[0].name, LIMITS["mat"])
    centre = np.append(designs[0].outline().mean(0), designs[0].z_mm)
    try:
        fit = fit_camera(plane_world, plane_image, size, guesses, f_range)
        for _ in range(3):
            res = np.linalg.norm(_pose_of(fit, size).project(all_world) - all_image, axis=1)
            keep = res < tol
            if int(keep.sum()) < MIN_INLIERS:
                break
            fit = fit_camera(all_world[keep], all_image[keep], size, [float(fit.K[0, 0]), *guesses], f_range)
            if fit.f_bound != "longest":
                continue
            # pinned at the longest plausible focal length. If the data clearly want a farther camera, the
            # distance is determined and implausible: keep that fit (the plausibility check refuses it).
            # Otherwise the view is near-orthographic: pin the camera at the farthest plausible distance
            # (the px-per-mm estimate of the range assumed a straight-down view).
            unbounded = fit_camera(all_world[keep], all_image[keep], size, [float(fit.K[0, 0]), *guesses],
                                   (f_range[0], 1000.0 * f_range[1]))
            if unbounded.rms_px < 0.8 * fit.rms_px - 0.05:
                fit = unbounded
                break
            far = float(np.linalg.norm(_pose_of(fit, size).centre_world() - centre))
            f_range = (f_range[0], max(f_range[0] * 1.01, f_range[1] * 0.98 * lim.max_distance_mm / far))
    except cv2.error as exc:
        raise CalibrationError(f"{what}: the camera fit failed ({exc.err})") from None
    res = np.linalg.norm(_pose_of(fit, size).project(all_world) - all_image, axis=1)
    keep = res < tol
    if int(keep.sum()) < MIN_INLIERS:
        raise CalibrationError(f"{what}: only {int(keep.sum())} matched features fit one camera")
    std = dict(fit.std)
    nominal = intrinsics(size)
    if (fit.f_bound or std["f"] > UNDETERMINED * float(fit.K[0, 0])) and f_range[0] <= nominal[0, 0] <= f_range[1]:
        # The fit ran to a bound or cannot tell the focal length (a flat design seen straight down): if the
        # nominal camera explains the points as well, assume it rather than an arbitrary focal length, and say so.
        est = solve_pose(all_world[keep], all_image[keep], nominal, np.zeros(5), size, "artwork")
        fitted_err = float(np.minimum(res[keep], tol).mean())
        nominal_err = float(np.minimum(np.linalg.norm(est.pose.project(all_world[keep]) - all_image[keep], axis=1),
                                       tol).mean())
        above = float(est.pose.centre_world()[2]) > float(centre[2])
        if above and nominal_err <= 1.05 * fitted_err + 0.05:
            return PoseEstimate(est.pose, est.reprojection_error_px, est.inliers, "artwork", est.world_points,
                                est.image_points, "nominal", {"f": std["f"]})
    if fit.f_bound:
        std["f_bound"] = 1.0 if fit.f_bound == "longest" else -1.0
    return PoseEstimate(_pose_of(fit, size), float(res[keep].mean()), int(keep.sum()), "artwork",
                        all_world[keep], all_image[keep], "fitted", std)


def _world_homography(world: FloatArray, image: FloatArray) -> FloatArray:
    """The homography from the world (x, y) of points on (nearly) one plane to their pixels."""
    H, _ = cv2.findHomography(world[:, :2], image, 0)
    if H is None:
        raise CalibrationError("the matched points do not define a plane")
    return np.asarray(H, np.float64)
