"""Finding a planar reference design (the mat artwork, the map's top texture) in a frame seen from any
angle up to about 60 degrees off vertical.

Plain feature matching fails on oblique views: a descriptor computed on the straight-down reference does
not resemble the same spot foreshortened by half. So, as in ASIFT, the reference is also described as it
would look tilted (affine pre-warps of the reference at tilts 1.4 and 2 in several directions); each
simulated view is matched to the frame on its own (the ratio test needs distinct neighbours), the
keypoints are mapped back to reference pixels, and one RANSAC homography over the pooled matches keeps
the ones that agree on the design's plane.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import CalibrationError

FRAME_MAX_SIDE = 1600
REF_MAX_SIDE = 1000
MIN_MATCHES = 20
GOOD_INLIERS = 100
# (tilt t = 1 / cos(angle), in-plane directions) of the simulated reference views
TILTS: tuple[tuple[float, int], ...] = ((1.0, 1), (math.sqrt(2.0), 4), (2.0, 6))


@dataclass(frozen=True)
class PlaneMatch:
    """Matches of the reference in the frame: all ratio-test survivors (reference and frame pixels), the
    homography reference -> frame and which matches agree with it."""

    ref_px: NDArray[np.float64]
    frame_px: NDArray[np.float64]
    H: NDArray[np.float64]
    inliers: NDArray[np.bool_]


def gray(img: NDArray[np.uint8]) -> NDArray[np.uint8]:
    return np.asarray(img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), np.uint8)


def _shrink(img: NDArray[np.uint8], side: int) -> tuple[NDArray[np.uint8], float]:
    s = min(1.0, side / max(img.shape[:2]))
    if s >= 1.0:
        return img, 1.0
    return np.asarray(cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), np.uint8), s


def _detect(img: NDArray[np.uint8], n: int) -> tuple[NDArray[np.float64], NDArray[np.float32] | None]:
    sift = cv2.SIFT.create(nfeatures=n, contrastThreshold=0.02)
    kps, desc = sift.detectAndCompute(img, None)
    pts = np.array([k.pt for k in kps], np.float64).reshape(-1, 2)
    return pts, None if desc is None else np.asarray(desc, np.float32)


def _simulated_view(img: NDArray[np.uint8], tilt: float,
                    phi_deg: float) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """The reference rotated by ``phi_deg`` and squeezed by ``tilt`` along x; returns the view and the 2x3
    affine map from reference to view pixels."""
    h, w = img.shape[:2]
    A = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    out = img
    if phi_deg != 0.0:
        a = math.radians(phi_deg)
        c, s = math.cos(a), math.sin(a)
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) @ np.array([[c, -s], [s, c]])
        x0, y0 = corners.min(0)
        x1, y1 = corners.max(0)
        A = np.array([[c, s, -x0], [-s, c, -y0]])
        out = np.asarray(cv2.warpAffine(img, A, (math.ceil(x1 - x0), math.ceil(y1 - y0)), flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_CONSTANT, borderValue=0), np.uint8)
    if tilt != 1.0:
        # anti-alias along the squeezed axis before subsampling it (ASIFT's 0.8 * sqrt(t^2 - 1))
        sigma = 0.8 * math.sqrt(tilt * tilt - 1.0)
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), sigmaX=sigma, sigmaY=0.01), np.uint8)
        out = np.asarray(cv2.resize(out, (max(1, round(out.shape[1] / tilt)), out.shape[0]),
                                    interpolation=cv2.INTER_LINEAR), np.uint8)
        A = np.diag([1.0 / tilt, 1.0]) @ A
    return out, A


@lru_cache(maxsize=16)
def _reference_views(key: bytes, shape: tuple[int, int],
                     level: int) -> tuple[tuple[NDArray[np.float64], NDArray[np.float32]], ...]:
    """SIFT features of the simulated views of tilt level ``level`` (an index into ``TILTS``), with their
    keypoints mapped back to reference pixels; cached per reference."""
    img = np.frombuffer(key, np.uint8).reshape(shape)
    views = []
    tilt, n_dirs = TILTS[level]
    for k in range(n_dirs):
        view, A = _simulated_view(img, tilt, 180.0 * k / n_dirs)
        pts, desc = _detect(view, 2000)
        if desc is None or len(pts) < MIN_MATCHES:
            continue
        Ainv = cv2.invertAffineTransform(A)
        ref = np.column_stack([pts, np.ones(len(pts))]) @ np.asarray(Ainv, np.float64).T
        views.append((ref, desc))
    return tuple(views)


@dataclass(frozen=True)
class FrameFeatures:
    """SIFT keypoints (full-resolution pixels) and descriptors of a frame, computed once for all designs."""

    pts: NDArray[np.float64]
    desc: NDArray[np.float32] | None
    shape: tuple[int, int]


def frame_features(frame: NDArray[np.uint8]) -> FrameFeatures:
    small, s = _shrink(gray(frame), FRAME_MAX_SIDE)
    pts, desc = _detect(small, 8000)
    return FrameFeatures(pts / s, desc, (frame.shape[0], frame.shape[1]))


def match_plane(frame: NDArray[np.uint8] | FrameFeatures, reference: NDArray[np.uint8], what: str,
                ransac_px: float = 0.006, max_level: int = len(TILTS) - 1) -> PlaneMatch:
    """Matches of ``reference`` in ``frame`` (pixels of each, full resolution). ``ransac_px`` is the
    homography tolerance as a share of the frame's long side. ``what`` names the target in errors.

    The straight-down reference is tried first; the simulated oblique views (up to ``max_level``) are
    added only while the design is not found convincingly (``GOOD_INLIERS``), so a camera above the table
    pays for one."""
    ref_small, rs = _shrink(gray(reference), REF_MAX_SIDE)
    ff = frame if isinstance(frame, FrameFeatures) else frame_features(frame)
    fpts, fdesc = ff.pts, ff.desc
    if fdesc is None or len(fpts) < MIN_MATCHES:
        raise CalibrationError(f"{what}: too few features in the frame (is it the table, in focus and lit?)")
    matcher = cv2.FlannBasedMatcher({"algorithm": 1, "trees": 4}, {"checks": 48})
    best_dist = np.full(len(fpts), np.inf)
    best_ref = np.zeros((len(fpts), 2))
    result: PlaneMatch | CalibrationError = CalibrationError(f"{what}: no features of the design matched the frame")
    for level in range(min(max_level, len(TILTS) - 1) + 1):
        for ref_pts, ref_desc in _reference_views(ref_small.tobytes(), ref_small.shape[:2], level):
            for p in matcher.knnMatch(fdesc, ref_desc, k=2):
                if len(p) == 2 and p[0].distance < 0.8 * p[1].distance and p[0].distance < best_dist[p[0].queryIdx]:
                    best_dist[p[0].queryIdx] = p[0].distance
                    best_ref[p[0].queryIdx] = ref_pts[p[0].trainIdx]
        found = np.isfinite(best_dist)
        result = _plane(best_ref[found] / rs, fpts[found], ff.shape, ransac_px, what)
        if isinstance(result, PlaneMatch) and int(result.inliers.sum()) >= GOOD_INLIERS:
            return result
    if isinstance(result, CalibrationError):
        raise result
    return result


def _plane(ref_all: NDArray[np.float64], fr_all: NDArray[np.float64], shape: tuple[int, ...], ransac_px: float,
           what: str) -> PlaneMatch | CalibrationError:
    """The RANSAC homography over the matches, or the error saying why there is none."""
    n = len(ref_all)
    if n < MIN_MATCHES:
        return CalibrationError(f"{what}: only {n} features of the design matched the frame")
    # a design feature claimed by several frame features is ambiguous: keep it once
    _, first = np.unique(np.round(ref_all / 2.0), axis=0, return_index=True)
    ref_all, fr_all = ref_all[np.sort(first)], fr_all[np.sort(first)]
    tol = max(2.0, ransac_px * max(shape))
    H, inl = cv2.findHomography(ref_all, fr_all, cv2.USAC_MAGSAC, tol, maxIters=20000, confidence=0.9999)
    if H is None or inl is None:
        return CalibrationError(f"{what}: the {len(ref_all)} matched features do not agree on one plane")
    keep = inl.ravel() > 0
    if int(keep.sum()) < MIN_MATCHES:
        return CalibrationError(f"{what}: only {int(keep.sum())} of {len(ref_all)} matched features agree on "
                                "one plane (is the design in view?)")
    return PlaneMatch(ref_all, fr_all, np.asarray(H, np.float64), keep)
