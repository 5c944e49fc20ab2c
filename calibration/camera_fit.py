"""The camera's intrinsics and pose fitted together to 3D-2D correspondences of one view.

The map is not flat: its stand tops stand 6-22 mm above the surface, so one view of it constrains the
focal length as well as the pose (and an oblique view of any plane constrains it through perspective).
``fit_camera`` runs a robust (Huber) Levenberg-Marquardt over the pose and the free intrinsics, using
OpenCV's analytic projection Jacobian, and returns how well each intrinsic is determined (one standard
deviation from the fit's covariance). The focal length is always free; the principal point and one
radial term are freed only when they are determined well enough and explain the data better (BIC), so a
near-planar, near-frontal view falls back to the image centre and no distortion instead of inventing them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import to_cv
from calibration.errors import CalibrationError

FloatArray = NDArray[np.float64]

HUBER_PX = 1.5
MODELS: tuple[tuple[str, ...], ...] = (("f",), ("f", "k1"), ("f", "cx", "cy"), ("f", "cx", "cy", "k1"))
MAX_PP_STD = 0.02  # principal point std as a share of the image width, to keep it free
MAX_K1_STD = 0.03
MAX_POINTS = 700


@dataclass(frozen=True)
class CameraFit:
    """A fitted camera: K, dist (5 terms), rvec, tvec; the free intrinsics with one standard deviation
    each; the robust RMS and per-point residuals (px)."""

    K: FloatArray
    dist: FloatArray
    rvec: FloatArray
    tvec: FloatArray
    free: tuple[str, ...]
    std: dict[str, float]
    rms_px: float
    residuals_px: FloatArray
    f_bound: str = ""


def _columns(jac: FloatArray, free: tuple[str, ...]) -> FloatArray:
    cols = [jac[:, :6]]
    for name in free:
        if name == "f":
            cols.append((jac[:, 6] + jac[:, 7])[:, None])
        elif name == "cx":
            cols.append(jac[:, 8:9])
        elif name == "cy":
            cols.append(jac[:, 9:10])
        elif name == "k1":
            cols.append(jac[:, 10:11])
    return np.hstack(cols)


def _unpack(x: FloatArray, K0: FloatArray, d0: FloatArray,
            free: tuple[str, ...]) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    K, d = K0.copy(), d0.copy()
    for i, name in enumerate(free):
        v = float(x[6 + i])
        if name == "f":
            K[0, 0] = K[1, 1] = v
        elif name == "cx":
            K[0, 2] = v
        elif name == "cy":
            K[1, 2] = v
        elif name == "k1":
            d[0] = v
    return x[:3].reshape(3, 1), x[3:6].reshape(3, 1), K, d


def _pack(rvec: FloatArray, tvec: FloatArray, K: FloatArray, d: FloatArray, free: tuple[str, ...]) -> FloatArray:
    vals = {"f": K[0, 0], "cx": K[0, 2], "cy": K[1, 2], "k1": d[0]}
    return np.concatenate([rvec.reshape(3), tvec.reshape(3), [vals[n] for n in free]])


def _residuals(obj: FloatArray, img: FloatArray, x: FloatArray, K0: FloatArray, d0: FloatArray,
               free: tuple[str, ...]) -> tuple[FloatArray, FloatArray]:
    rvec, tvec, K, d = _unpack(x, K0, d0, free)
    px, jac = cv2.projectPoints(obj, rvec, tvec, K, d)
    r = (np.asarray(px, np.float64).reshape(-1, 2) - img).reshape(-1)
    return r, _columns(np.asarray(jac, np.float64), free)


def _huber(r: FloatArray) -> FloatArray:
    a = np.abs(r)
    return np.where(a <= HUBER_PX, 1.0, HUBER_PX / np.maximum(a, 1e-12))


def _lm(obj: FloatArray, img: FloatArray, x: FloatArray, K0: FloatArray, d0: FloatArray,
        free: tuple[str, ...], f_range: tuple[float, float],
        iters: int = 60) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Robust LM with the focal length kept in ``f_range``; returns x, the residual vector and the weighted
    normal matrix at the solution."""
    lam = 1e-3
    if "f" in free:
        x[6] = min(max(x[6], f_range[0]), f_range[1])
    r, J = _residuals(obj, img, x, K0, d0, free)
    w = _huber(r)
    cost = float(np.sum(w * r * r))
    for _ in range(iters):
        A = J.T @ (J * w[:, None])
        g = J.T @ (w * r)
        scale = np.sqrt(np.maximum(np.diag(A), 1e-12))
        An = A / np.outer(scale, scale)
        try:
            step = -np.linalg.solve(An + lam * np.eye(len(x)), g / scale) / scale
        except np.linalg.LinAlgError:
            break
        xn = x + step
        if "f" in free:
            xn[6] = min(max(xn[6], f_range[0]), f_range[1])
        rn, Jn = _residuals(obj, img, xn, K0, d0, free)
        wn = _huber(rn)
        cn = float(np.sum(wn * rn * rn))
        if cn < cost:
            done = cost - cn < 1e-10 * max(cost, 1e-12)
            x, r, J, w, cost, lam = xn, rn, Jn, wn, cn, max(lam / 10.0, 1e-9)
            if done:
                break
        else:
            lam *= 10.0
            if lam > 1e8:
                break
    return x, r, J.T @ (J * w[:, None])


def _covariance(A: FloatArray) -> FloatArray:
    """The inverse normal matrix, infinite where the data do not determine a parameter (a flat design seen
    straight down cannot tell the focal length from the distance): no pseudo-inverse hiding that."""
    scale = np.sqrt(np.maximum(np.diag(A), 1e-300))
    An = A / np.outer(scale, scale)
    if np.linalg.cond(An) > 1e10:
        vals, vecs = np.linalg.eigh(An)
        weak = vals < vals.max() * 1e-10
        bad = np.abs(vecs[:, weak]).sum(axis=1) > 1e-3  # parameters in an undetermined direction
        good = ~weak
        cov = (vecs[:, good] / vals[good]) @ vecs[:, good].T
        cov[np.ix_(bad, bad)] = np.inf
        return np.asarray(cov / np.outer(scale, scale), np.float64)
    return np.asarray(np.linalg.inv(An) / np.outer(scale, scale), np.float64)


def _fit(obj: FloatArray, img: FloatArray, K0: FloatArray, d0: FloatArray, rvec: FloatArray, tvec: FloatArray,
         free: tuple[str, ...], f_range: tuple[float, float]) -> tuple[CameraFit, float]:
    x, r, A = _lm(obj, img, _pack(rvec, tvec, K0, d0, free), K0, d0, free, f_range)
    rv, tv, K, d = _unpack(x, K0, d0, free)
    w = _huber(r)
    dof = max(1, len(r) - len(x))
    sigma2 = float(np.sum(w * r * r)) / dof
    cov = _covariance(A) * sigma2
    std = {n: float(math.sqrt(max(cov[6 + i, 6 + i], 0.0))) for i, n in enumerate(free)}
    res = np.linalg.norm(r.reshape(-1, 2), axis=1)
    bic = len(r) * math.log(max(float(np.sum(w * r * r)) / len(r), 1e-12)) + len(x) * math.log(len(r))
    f = float(K[0, 0])
    bound = "longest" if f >= f_range[1] * 0.999 else "shortest" if f <= f_range[0] * 1.001 else ""
    fit = CameraFit(K, d, rv, tv, free, std, float(math.sqrt(np.mean(np.minimum(res, 3 * HUBER_PX) ** 2))), res,
                    bound)
    return fit, bic


def above(rvec: FloatArray, tvec: FloatArray, obj: FloatArray) -> bool:
    """Is the camera above the points? (OpenCV's object frame has z into the table.)"""
    R, _ = cv2.Rodrigues(rvec)
    centre = -R.T @ tvec.reshape(3)
    return bool(centre[2] < float(obj[:, 2].min()))


def _start(obj: FloatArray, img: FloatArray, K: FloatArray, d: FloatArray) -> tuple[FloatArray, FloatArray]:
    """A pose to start from, with the camera above the points. A near-orthographic view cannot tell above
    from below (the depth reversal): then the points of the most common height (the design's plane) give it."""
    z = np.round(obj[:, 2], 3)
    values, counts = np.unique(z, return_counts=True)
    for sel in (np.ones(len(obj), bool), z == values[np.argmax(counts)]):
        if int(sel.sum()) < 6:
            continue
        ok, r, t = cv2.solvePnP(obj[sel], img[sel], K, d, flags=cv2.SOLVEPNP_ITERATIVE)
        rvec, tvec = np.asarray(r, np.float64), np.asarray(t, np.float64)
        if ok and above(rvec, tvec, obj):
            return rvec, tvec
    raise CalibrationError("solvePnP found no pose with the camera above the design")


def fit_camera(world: FloatArray, image: FloatArray, size: tuple[int, int], focal_guesses: list[float],
               f_range: tuple[float, float]) -> CameraFit:
    """Intrinsics and pose from world points (mm, z up) and their pixels. ``focal_guesses`` (px) seed the
    search; the best robust fit over them wins, then extra intrinsics are freed when they pay off. The
    focal length stays within ``f_range`` (px): a nearly orthographic view (a far camera, a long lens)
    ends at the longest focal length the caller finds plausible, with ``f_bound`` saying so."""
    if len(world) < 8:
        raise CalibrationError(f"only {len(world)} points to fit a camera to (need 8)")
    obj = to_cv(world)
    img = np.asarray(image, np.float64).reshape(-1, 2)
    if len(obj) > MAX_POINTS:
        # an even subsample: the fit's cost grows with the points, its accuracy hardly beyond a few hundred
        pick = np.random.default_rng(0).choice(len(obj), MAX_POINTS, replace=False)
        obj, img = obj[pick], img[pick]
    w, h = size
    d0 = np.zeros(5)
    best: tuple[CameraFit, float] | None = None
    for f in focal_guesses:
        f = min(max(f, f_range[0]), f_range[1])
        K0 = np.array([[f, 0.0, w / 2.0], [0.0, f, h / 2.0], [0.0, 0.0, 1.0]])
        try:
            rvec, tvec = _start(obj, img, K0, d0)
        except (CalibrationError, cv2.error):
            continue
        cand = _fit(obj, img, K0, d0, rvec, tvec, ("f",), f_range)
        if above(cand[0].rvec, cand[0].tvec, obj) and (best is None or cand[1] < best[1]):
            best = cand
    if best is None:
        raise CalibrationError("no camera above the design fits the matched points")
    base = best[0]
    chosen = best
    for free in MODELS[1:]:
        cand = _fit(obj, img, base.K, base.dist, base.rvec, base.tvec, free, f_range)
        fit = cand[0]
        ok = above(fit.rvec, fit.tvec, obj) and fit.std.get("k1", 0.0) < MAX_K1_STD
        ok = ok and all(fit.std.get(n, 0.0) < MAX_PP_STD * w for n in ("cx", "cy"))
        ok = ok and abs(fit.K[0, 2] - w / 2) < 0.15 * w and abs(fit.K[1, 2] - h / 2) < 0.15 * h
        ok = ok and abs(float(fit.dist[0])) < 0.5
        if ok and cand[1] < chosen[1] - 10.0:
            chosen = cand
    return chosen[0]
