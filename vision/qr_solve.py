"""The module solver: a face-down card's QR modules solved for, where a pixel threshold cannot see them.

At 1014 x 760 a camouflaged module is about 1.4 frame pixels: every pixel mixes two to four modules, so
no binariser can read the code. But the calibration knows where the code lies, how large it is and which
way up, almost exactly, so the module values can be *solved* for: each pixel is a known linear mix
(pixel footprint x blur PSF) of a few modules. This module

1. registers the code by its fixed patterns alone (finders, separators, timing, alignment: the modules
   every code of a version shares), by correlating their expected image over the window for each
   version, size, tilt and upright/upside-down (``vision.qr_register``), then refines the grid's three
   finder centres so the *solved* modules separate dark from light best (the fixed patterns by their
   known values, the data modules by a local threshold);
2. samples the window on the module grid (``GRID_PPM`` px per module, a margin of modules around it so
   the light or camouflage beyond the code is solved for too, not folded into the edge modules) and
   solves, per blur of a short ladder, the regularised least squares ``min |K L - b|^2 + lam |L - p|^2``:
   ``b`` the cells' means, ``L`` the module lightnesses, ``K`` the separable blur-and-cell-average
   operator, ``p`` a prior: first flat, then the two-level (dark / light) reading of the last solution,
   which models the card art's camouflage as structured noise around two levels;
3. hands each solution, thresholded and with its function patterns written back exactly, to zxing-cpp
   (``vision.slot_qr.decode_means``).

Never a guessed payload: zxing-cpp checks the format information and the Reed-Solomon blocks, and only
what ``accept`` calls a card id is returned.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from vision.qr_register import Registration, register
from vision.slot_qr import WINDOW_PX_PER_MM, Accept, FloatImage, climb_centres, decode_means, function_modules
from vision.warp import Mat3, apply

GRID_PPM = 4  # samples per module (per axis) of the grid view the cells are averaged from
MARGIN = 2  # modules solved for around the code
BLURS_FRAME_PX = (0.0, 0.5, 0.8, 1.1, 1.5, 2.0)  # the camera blur ladder (Gaussian sigma, frame px)
RESAMPLE_SIGMA = 0.45  # frame px: the pixel footprint and the resampling into the window and the grid
LAMBDA = 0.001  # Tikhonov weight (of the cells' unit variance)
LAMBDAS = (LAMBDA, 0.0002)  # tried in turn: less smoothing undoes more blur, and amplifies more noise
SIGMAS_TRIED = 3  # blurs decoded: the fitted one and its nearest on the ladder
PRIOR_ROUNDS = 2  # two-level prior refinements after the flat one
SIGMA_STEP = 0.02  # blurs are rounded to this (modules) so their operators are computed once
SEPARATION_WEIGHT = 1.0  # of all modules' separation against the function patterns' in the grid fit
FISHER_MIN = 1.0  # fitted fixed patterns' separation below which no decoding is tried (a cost gate: on
# renders at 1014x760 and 2028x1520, codes fitted at 2.7-5 up to blur 2 px, windows without a code at 0.1-0.5)
FIT_STEPS = (0.3, 0.15, 0.07)  # corner-point search steps, in modules
FIT_TRIES = 72

BoolGrid = npt.NDArray[np.bool_]
F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SolveResult:
    """What the solver made of a window: the payload (None: nothing accepted), the modules it solved
    (True = dark, inner n x n; None when it found no code) and the registration it used."""

    payload: str | None
    modules: BoolGrid | None = None
    registration: Registration | None = None
    mapping: Mat3 | None = None  # the fitted grid (module units -> window px) the payload was read on
    sigma: float = 0.0  # the blur (modules) it was read with


@lru_cache(maxsize=64)
def cell_operator(size: int, sigma: float) -> tuple[F64, F64]:
    """The 1-D blur-and-cell-average operator over ``size`` cells (sigma in cells) as its eigenpairs:
    K[i, j] = integral of (1 - |u|) g(i - j + u) du over |u| < 1 (a cell's mean of a Gaussian-blurred
    unit cell)."""
    u = np.linspace(-1.0, 1.0, 81)
    w = 1.0 - np.abs(u)
    w /= w.sum()
    d = np.arange(size)
    taps_a = np.array([float((w * np.exp(-0.5 * ((k + u) / sigma) ** 2)).sum()) for k in range(size)])
    taps_a /= taps_a[0] + 2.0 * taps_a[1:].sum()
    K = taps_a[np.abs(d[:, None] - d[None, :])]
    # OpenCV's symmetric eigensolver: one thread, as the reader's other work (numpy's LAPACK may spin up
    # a thread pool that costs more than this small matrix)
    _, vals, vecs = cv2.eigen(K)
    return np.asarray(vals, np.float64).ravel(), np.asarray(vecs, np.float64).T


def grid_cells(view: FloatImage, mapping: Mat3, cells: int, margin: int = MARGIN) -> F64:
    """The mean of each module cell of ``view`` under ``mapping`` (module units -> view px), for the n
    code cells plus ``margin`` on each side (``cells`` = n + 2 margin)."""
    side = cells * GRID_PPM
    # output pixel (i, j) samples module ((i + 0.5) / GRID_PPM - margin, ...): centred in its sub-cell
    to_module = np.array([[1.0 / GRID_PPM, 0.0, 0.5 / GRID_PPM - margin],
                          [0.0, 1.0 / GRID_PPM, 0.5 / GRID_PPM - margin], [0.0, 0.0, 1.0]])
    out = cv2.warpPerspective(view, mapping @ to_module, (side, side),
                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    # an integer-factor area resize is the exact block mean
    return np.asarray(cv2.resize(out, (cells, cells), interpolation=cv2.INTER_AREA), np.float64)


def solve_cells(b: F64, sigma: float, lam: float = LAMBDA, prior: F64 | None = None) -> F64:
    """argmin_L |K L K^T - b|^2 + lam |L - prior|^2 for the separable operator of ``sigma`` (cells)."""
    vals, U = cell_operator(b.shape[0], round(sigma / SIGMA_STEP) * SIGMA_STEP)
    mean = float(b.mean())
    scale = float(b.std()) + 1e-6
    bt = U.T @ ((b - mean) / scale) @ U
    s = np.outer(vals, vals)
    pt = np.zeros_like(bt) if prior is None else U.T @ prior @ U
    lt = (s * bt + lam * pt) / (s * s + lam)
    return np.asarray(U @ lt @ U.T, np.float64)


def fisher(light: F64, version: int, margin: int = MARGIN) -> float:
    """How cleanly the solved function patterns separate dark from light (their known values)."""
    known, dark = function_modules(version)
    n = known.shape[0]
    inner = light[margin:margin + n, margin:margin + n]
    d, li = inner[known & dark], inner[known & ~dark]
    return (float(li.mean()) - float(d.mean())) / math.sqrt(float(d.var()) + float(li.var()) + 1e-6)


def separation(light: F64, version: int, margin: int = MARGIN) -> float:
    """How cleanly every module of the solved code falls into dark or light: the function patterns by
    their known values, the data modules by a local threshold (a misplaced grid leaves data modules
    half dark, half light, which no threshold separates)."""
    known, kd = function_modules(version)
    n = known.shape[0]
    inner = light[margin:margin + n, margin:margin + n]
    local = cv2.blur(inner.astype(np.float32), (7, 7), borderType=cv2.BORDER_REFLECT).astype(np.float64)
    dark = np.where(known, kd, inner < local)
    d, li = inner[dark], inner[~dark]
    return (float(li.mean()) - float(d.mean())) / math.sqrt(float(d.var()) + float(li.var()) + 1e-6)


def two_level(light: F64, version: int, margin: int = MARGIN) -> F64:
    """The two-level reading of ``light``: each cell set to the mean of the dark or the light cells of
    its neighbourhood, by a local threshold (the function patterns at their known values)."""
    local = cv2.blur(light.astype(np.float32), (7, 7), borderType=cv2.BORDER_REFLECT).astype(np.float64)
    dark = light < local
    known, kd = function_modules(version)
    n = known.shape[0]
    inner = dark[margin:margin + n, margin:margin + n]
    inner[known] = kd[known]
    lo = float(light[dark].mean()) if dark.any() else float(light.min())
    hi = float(light[~dark].mean()) if (~dark).any() else float(light.max())
    return np.where(dark, lo, hi)


def _decode(light: F64, version: int, accept: Accept, margin: int = MARGIN) -> tuple[str | None, BoolGrid]:
    n = 17 + 4 * version
    inner = np.asarray(light[margin:margin + n, margin:margin + n], np.float32)
    found = decode_means(inner, version, accept)
    local = cv2.blur(inner, (7, 7), borderType=cv2.BORDER_REFLECT)
    return found, np.asarray(inner < local)


def _corners(mapping: Mat3, n: int) -> F64:
    return apply(mapping, np.array([[3.5, 3.5], [n - 3.5, 3.5], [3.5, n - 3.5]]))


def _from_corners(pts: F64, n: int) -> Mat3:
    src = np.array([[3.5, 3.5], [n - 3.5, 3.5], [3.5, n - 3.5]], np.float32)
    affine = cv2.getAffineTransform(src, pts.astype(np.float32))
    return np.vstack([np.asarray(affine, np.float64), [0.0, 0.0, 1.0]])


def module_sigmas(mapping: Mat3, version: int, frame_px_per_mm: float) -> tuple[float, ...]:
    """``BLURS_FRAME_PX`` (with the resampling's own) in modules of the code ``mapping`` places."""
    n = 17 + 4 * version
    pts = _corners(mapping, n)
    module_frame_px = float(np.linalg.norm(pts[1] - pts[0])) / (n - 7) * frame_px_per_mm / WINDOW_PX_PER_MM
    return tuple(math.hypot(s, RESAMPLE_SIGMA) / max(module_frame_px, 1e-6) for s in BLURS_FRAME_PX)


def fit_registration(view: FloatImage, reg: Registration, sigmas: tuple[float, ...]) -> tuple[Mat3, float]:
    """``reg``'s grid refined by a coordinate search over its three finder centres (a fraction of a
    module at a time), scoring the solved function patterns, and the blur (in modules) that fits best."""
    n = 17 + 4 * reg.version
    cells = n + 2 * MARGIN

    def score(m: Mat3, sigma: float) -> float:
        light = solve_cells(grid_cells(view, m, cells), sigma)
        return fisher(light, reg.version) + SEPARATION_WEIGHT * separation(light, reg.version)

    sigma = max(sigmas, key=lambda s: score(reg.mapping, s))
    pts = _corners(reg.mapping, n)
    unit = float(np.linalg.norm(pts[1] - pts[0])) / (n - 7)
    _, pts = climb_centres(pts, unit, lambda p: score(_from_corners(p, n), sigma), FIT_STEPS, FIT_TRIES, 1e-4)
    mapping = _from_corners(pts, n)
    sigma = max(sigmas, key=lambda s: score(mapping, s))
    return mapping, sigma


def solve_at(view: FloatImage, mapping: Mat3, version: int, sigmas: list[float], accept: Accept,
             reg: Registration | None = None) -> SolveResult:
    """The payload of the code ``mapping`` places in ``view``, solved at each blur of ``sigmas`` (in
    modules, in order) with each of ``LAMBDAS`` and the two-level prior rounds."""
    b = grid_cells(view, mapping, 17 + 4 * version + 2 * MARGIN)
    modules: BoolGrid | None = None
    for s in sigmas:
        for lam in LAMBDAS:
            light = solve_cells(b, s, lam)
            for _ in range(PRIOR_ROUNDS + 1):
                found, dark = _decode(light, version, accept)
                if modules is None:
                    modules = dark
                if found is not None:
                    return SolveResult(found, dark, reg, mapping, s)
                light = solve_cells(b, s, lam * 5.0, two_level(light, version))
    return SolveResult(None, modules, reg, mapping)


def solve_window(view: FloatImage, frame_px_per_mm: float, accept: Accept, keep: int = 2) -> SolveResult:
    """The payload of the code in a code window (``vision.slot_qr.WINDOW_PX_PER_MM``), solved for module
    by module; ``frame_px_per_mm`` bounds the blur tried (resampling a coarse frame blurs the window)."""
    view = np.asarray(view, np.float32)
    first: SolveResult = SolveResult(None)
    for reg in register(view, frame_px_per_mm)[:keep]:
        sigmas = module_sigmas(reg.mapping, reg.version, frame_px_per_mm)
        mapping, sigma = fit_registration(view, reg, sigmas)
        light = solve_cells(grid_cells(view, mapping, 17 + 4 * reg.version + 2 * MARGIN), sigma)
        if fisher(light, reg.version) < FISHER_MIN:
            continue  # no code's fixed patterns there: not worth the decoding
        tried = list(dict.fromkeys((sigma, *sorted(sigmas, key=lambda x: abs(x - sigma)))))[:SIGMAS_TRIED]
        res = solve_at(view, mapping, reg.version, tried, accept, reg)
        if res.payload is not None:
            return res
        first = res if first.modules is None else first
    return first
