"""The QR code on the back of a face-down card in a mat slot, read through blur and at low resolution.

The overhead camera sees a card back's camouflaged modules at about 2.7 frame pixels each (2028 x 1520)
or 1.4 (1014 x 760), so a little defocus or a low resolution leaves nothing a decoder can binarise. But
the slot is rectified from the calibrated pose, so where the code lies, how big it is and which way up
are nearly known. This module exploits that:

1. the code's window is resampled from the frame at ``WINDOW_PX_PER_MM`` (about 5.6 px per module);
2. a Gaussian blur of each sigma of a short ladder (in frame pixels, so the same ladder serves every
   resolution) is undone by Wiener deconvolution of the window;
3. the three finder patterns are found by template matching at the module size the card's print implies
   (and one version up), and grouped into a right-angled, code-sized triple;
4. the module grid the finders fix is sampled from each deconvolved view (``vision.qr_grid``: local
   thresholds, function patterns repaired, redrawn clean) and handed to zxing-cpp.

Never a guessed payload: zxing-cpp checks the format information and corrects errors with the code's
Reed-Solomon blocks, and a payload is returned only when the caller's ``accept`` (a valid card id) says
it is one; a random grid that happens to decode (rare, but a redrawn grid makes it possible) is
dropped. What cannot be read is ``None``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.qr_decoders import GreyImage, as_grey, decode_zxing
from vision.qr_finders import Candidate
from vision.qr_grid import classify, module_means, plan_grid, render, repair_function_patterns
from vision.warp import Image, Mat3, apply, extract, scale, translate

WINDOW_PX_PER_MM = 4.0
WINDOW_MM = 64.0  # the card's centre +- 32 mm: the code (35 mm) wherever a card lies in its slot
QR_SIDE_MM = 35.0  # the printed symbol's side: 0.36-0.40 of the 95 mm card width
VERSIONS = (2, 3)  # a Kipukas payload needs version 2 (level L) or 3 (level H)
BLUR_LADDER = (0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25)  # Gaussian sigmas undone, in frame pixels
DIRECT_SIGMAS = (0.8, 1.2, 1.6)  # blurs undone before zxing-cpp searches the window itself
GUIDE_SIGMAS = (1.0,)  # blurs undone before the finder search
BASE_SIGMA = 0.4  # what resampling the frame into the window adds (a linear kernel of one frame pixel)
SNR = 0.01  # Wiener's noise-to-signal: the camera's noise after JPEG
_GRID_PPM = 5  # pixels per module of the sampled grid (as vision.qr_grid samples)
_WINDOWS = (7, 5, 9, 0)  # local-threshold windows in modules (0: one global Otsu)
_MIN_PEAK = 0.25

FloatImage = npt.NDArray[np.float32]
Accept = Callable[[str], bool]


@dataclass(frozen=True)
class QrWindow:
    """Where a slot's code window lies: window px -> frame px, its side in px and the frame's px per mm
    there (what converts a blur in frame pixels to window pixels)."""

    H: Mat3
    side: int
    frame_px_per_mm: float


def qr_window(H_slot: Mat3, k_slot: float, size: tuple[int, int], px_per_mm: float = WINDOW_PX_PER_MM) -> QrWindow:
    """The code window of a slot patch (``H_slot``: patch px -> frame px at ``k_slot`` px per mm, ``size``)."""
    n = round(WINDOW_MM * px_per_mm)
    cx, cy = size[0] / 2.0, size[1] / 2.0
    H = H_slot @ translate(cx, cy) @ scale(k_slot / px_per_mm) @ translate(-n / 2.0, -n / 2.0)
    c = n / 2.0
    p = apply(H, np.array([[c, c], [c + 1.0, c], [c, c + 1.0]], dtype=np.float64))
    e1, e2 = p[1] - p[0], p[2] - p[0]
    frame_px = math.sqrt(abs(float(e1[0] * e2[1] - e1[1] * e2[0])))
    return QrWindow(H, n, frame_px * px_per_mm)


def window_channel(colour: Image) -> GreyImage:
    """min(R, G): the camouflage's light modules are yellow, its lava orange and its blobs green, so this
    channel keeps the modules' contrast and flattens the distractors (``vision.qr_views``)."""
    out: GreyImage = np.minimum(colour[:, :, 1], colour[:, :, 2])
    return out


class Deconvolver:
    """Wiener deconvolution of Gaussian blurs of one image: the image's spectrum is computed once, so each
    sigma tried costs one inverse DFT (reflect-padded so the edges do not ring)."""

    def __init__(self, view: GreyImage | FloatImage, snr: float = SNR, max_sigma: float = 12.0) -> None:
        self.view = np.asarray(view, dtype=np.float32)
        self.snr = snr
        self.pad = int(3 * max_sigma) + 4
        h0, w0 = self.view.shape
        h, w = cv2.getOptimalDFTSize(h0 + 2 * self.pad), cv2.getOptimalDFTSize(w0 + 2 * self.pad)
        img = cv2.copyMakeBorder(self.view, self.pad, h - h0 - self.pad, self.pad, w - w0 - self.pad,
                                 cv2.BORDER_REFLECT)
        self.spec = np.asarray(cv2.dft(img, flags=cv2.DFT_COMPLEX_OUTPUT), dtype=np.float32)
        fy = np.fft.fftfreq(h).astype(np.float32)[:, None]
        fx = np.fft.fftfreq(w).astype(np.float32)[None, :]
        self.freq2 = np.asarray(fx * fx + fy * fy, dtype=np.float32)

    def __call__(self, sigma: float) -> FloatImage:
        """The view with a Gaussian blur of ``sigma`` px undone (the view itself for 0)."""
        if sigma <= 0.0:
            return self.view
        otf = np.exp(-2.0 * math.pi ** 2 * sigma ** 2 * self.freq2)
        gain = otf / (otf * otf + self.snr)  # the Gaussian's transfer is real and even: no phase to undo
        out = cv2.idft(self.spec * gain[:, :, None], flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
        h0, w0 = self.view.shape
        return np.asarray(out[self.pad:self.pad + h0, self.pad:self.pad + w0], dtype=np.float32)


def _finder_template(module_px: float) -> GreyImage:
    """A finder pattern (7 modules) inside its one-module light ring, ``module_px`` per module."""
    p = np.full((9, 9), 255, np.uint8)
    p[1:8, 1:8] = 0
    p[2:7, 2:7] = 255
    p[3:6, 3:6] = 0
    side = max(9, round(9 * module_px))
    return as_grey(cv2.resize(p, (side, side), interpolation=cv2.INTER_AREA))


def _peaks(score: FloatImage, k: int, radius: float) -> list[tuple[float, float, float]]:
    s = score.copy()
    out: list[tuple[float, float, float]] = []
    for _ in range(k):
        _, best, _, loc = cv2.minMaxLoc(s)
        if best < _MIN_PEAK:
            break
        out.append((float(loc[0]), float(loc[1]), float(best)))
        cv2.circle(s, loc, max(1, round(radius)), -1.0, -1)
    return out


def find_code(view: GreyImage, px_per_mm: float, side_mm: float = QR_SIDE_MM,
              versions: tuple[int, ...] = VERSIONS, keep: int = 2) -> list[Candidate]:
    """Finder triples in ``view`` shaped like a code of ``side_mm`` (best first): three finder matches at
    two equal, perpendicular sides of (n - 7) modules for a version's n."""
    scored: list[tuple[float, Candidate]] = []
    for version in versions:
        n = 17 + 4 * version
        module = side_mm * px_per_mm / n
        tpl = _finder_template(module)
        score = np.asarray(cv2.matchTemplate(view, tpl, cv2.TM_CCOEFF_NORMED), dtype=np.float32)
        half = (tpl.shape[0] - 1) / 2.0
        peaks = [(x + half, y + half, v) for x, y, v in _peaks(score, 7, 4 * module)]
        want = (n - 7) * module
        for trio in itertools.combinations(peaks, 3):
            for i in range(3):
                corner = trio[i]
                p, q = (trio[j] for j in range(3) if j != i)
                d1 = np.array([p[0] - corner[0], p[1] - corner[1]])
                d2 = np.array([q[0] - corner[0], q[1] - corner[1]])
                l1, l2 = float(np.linalg.norm(d1)), float(np.linalg.norm(d2))
                if not (0.8 * want < l1 < 1.2 * want and 0.8 * want < l2 < 1.2 * want):
                    continue
                if abs(float(d1 @ d2)) > 0.15 * l1 * l2:
                    continue
                # clockwise on screen from the corner: top-right, then bottom-left (a code is never mirrored)
                right, below = (p, q) if d1[0] * d2[1] - d1[1] * d2[0] > 0 else (q, p)
                cand = Candidate((corner[0], corner[1]), (right[0], right[1]), (below[0], below[1]),
                                 (l1 + l2) / 2.0 / (n - 7))
                scored.append((corner[2] + p[2] + q[2], cand))
    scored.sort(key=lambda t: -t[0])
    out: list[Candidate] = []
    for _, cand in scored:
        if all(math.dist(cand.centre, o.centre) > 2 * cand.module for o in out):
            out.append(cand)
        if len(out) == keep:
            break
    return out


def grid_view(view: FloatImage, mapping: Mat3, n: int) -> GreyImage:
    """The n x n modules of ``view`` under ``mapping`` (module units -> view px), ``_GRID_PPM`` px each."""
    to_view = mapping @ scale(1.0 / _GRID_PPM)
    side = n * _GRID_PPM
    out = cv2.warpPerspective(view, to_view, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
    return as_grey(np.clip(out, 0, 255))


@lru_cache(maxsize=8)
def function_modules(version: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """(known, dark): the modules whose value the code's function patterns fix, and those values."""
    n = 17 + 4 * version
    off = repair_function_patterns(np.zeros((n, n), bool), version)
    on = repair_function_patterns(np.ones((n, n), bool), version)
    return np.asarray(off == on), off


def pattern_fit(means: FloatImage, version: int) -> float:
    """How cleanly the sampled function patterns separate dark from light (Fisher's ratio): highest when
    the blur undone is the blur there was (less leaves them mixed, more makes them ring)."""
    known, dark = function_modules(version)
    d, light = means[known & dark], means[known & ~dark]
    spread = math.sqrt(float(d.var()) + float(light.var()) + 1e-3)
    return (float(light.mean()) - float(d.mean())) / spread


def decode_means(means: FloatImage, version: int, accept: Accept) -> str | None:
    """The payload of an n x n grid of module lightnesses: thresholded locally (each of ``_WINDOWS``),
    function patterns written back, rendered clean and read by zxing-cpp; only what ``accept`` takes."""
    for window in _WINDOWS:
        grid = render(repair_function_patterns(classify(means, window), version))
        for found in decode_zxing(grid):
            if accept(found.text):
                return found.text
    return None


def climb_centres(pts: npt.NDArray[Any], unit: float, fit: Callable[[npt.NDArray[Any]], float],
                  steps: Sequence[float], max_tries: int, gain: float) -> tuple[float, npt.NDArray[Any]]:
    """The three finder centres ``pts`` (3x2) moved one coordinate at a time by ``step * unit`` for each
    step of ``steps`` while that raises ``fit`` by more than ``gain`` (at most ``max_tries`` trials in
    all), and the fit they reach: the grid search both grid readers share."""
    best = fit(pts)
    tries = 0
    for step in steps:
        improved = True
        while improved and tries < max_tries:
            improved = False
            for i in range(3):
                for axis in range(2):
                    for sign in (1.0, -1.0):
                        trial = pts.copy()
                        trial[i, axis] += sign * step * unit
                        score = fit(trial)
                        tries += 1
                        if score > best + gain:
                            best, pts, improved = score, trial, True
    return best, pts


def fit_geometry(view: FloatImage, mapping: Mat3, version: int, steps: tuple[float, ...] = (0.3, 0.12),
                 max_tries: int = 48) -> tuple[float, Mat3]:
    """``mapping`` (module units -> view px) nudged to fit the function patterns best: a coordinate search
    over the three finder centres' positions, a fraction of a module at a time (the finder search is a
    few tenths of a module off at these sizes, enough to sample the wrong side of many module edges)."""
    n = 17 + 4 * version
    src = np.array([[3.5, 3.5], [n - 3.5, 3.5], [3.5, n - 3.5]], np.float32)

    def mapped(pts: npt.NDArray[np.float32]) -> Mat3:
        affine = cv2.getAffineTransform(src, pts)
        # keep the perspective the mapping had: correct it by the affine change of the three centres
        base = cv2.getAffineTransform(src, apply(mapping, src).astype(np.float32))
        delta = np.vstack([affine, [0.0, 0.0, 1.0]]) @ np.linalg.inv(np.vstack([base, [0.0, 0.0, 1.0]]))
        return np.asarray(delta @ mapping, dtype=np.float64)

    def fit(pts: npt.NDArray[np.float32]) -> float:
        return pattern_fit(module_means(grid_view(view, mapped(pts), n), n), version)

    pts = apply(mapping, src).astype(np.float32)
    unit = float(np.linalg.norm(pts[1] - pts[0])) / (n - 7)
    best, pts = climb_centres(pts, unit, fit, steps, max_tries, 1e-3)
    return best, mapped(pts)


def read_grid(deconv: Deconvolver, sigmas: list[float], cand: Candidate, accept: Accept,
              tries: int = 3) -> str | None:
    """The payload of the code the finders of ``cand`` fix. For each plausible version, the blur whose
    undoing fits the function patterns best is found, the grid's geometry fitted to it, and the grid
    decoded after undoing the ``tries`` best-fitting blurs."""
    guide = as_grey(np.clip(deconv(sigmas[len(sigmas) // 2]), 0, 255))
    guide_bgr = np.asarray(cv2.cvtColor(guide, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    views = {s: deconv(s) for s in sigmas}
    for plan in plan_grid(guide_bgr, cand)[:1]:
        n = 17 + 4 * plan.version
        mapping = plan.mappings[0]
        fits = sorted(((pattern_fit(module_means(grid_view(v, mapping, n), n), plan.version), s)
                       for s, v in views.items()), reverse=True)
        _, mapping = fit_geometry(views[fits[0][1]], mapping, plan.version)
        for _, s in fits[:tries]:
            grid = grid_view(views[s], mapping, n)
            # what deconvolution left mixed between neighbouring modules, an unsharp mask of about a module
            # takes out (as vision.qr_grid does for defocus)
            soft = cv2.GaussianBlur(grid, (0, 0), 0.8 * _GRID_PPM)
            for g in (grid, as_grey(cv2.addWeighted(grid, 2.0, soft, -1.0, 0))):
                found = decode_means(module_means(g, n), plan.version, accept)
                if found is not None:
                    return found
    return None


def read_direct(views: list[FloatImage], accept: Accept) -> str | None:
    """A payload zxing-cpp finds in one of the views by itself (its own binariser and finder search)."""
    for view in views:
        for found in decode_zxing(as_grey(np.clip(view, 0, 255))):
            if accept(found.text):
                return found.text
    return None


def window_sigmas(frame_px_per_mm: float, ladder: tuple[float, ...] = BLUR_LADDER) -> list[float]:
    """The blurs of ``ladder`` (frame px, plus what resampling into the window added) in window px."""
    per_frame_px = WINDOW_PX_PER_MM / max(frame_px_per_mm, 1e-6)
    return [math.hypot(s, BASE_SIGMA) * per_frame_px if s > 0 else 0.0 for s in ladder]


def read_window(grey: GreyImage | FloatImage, frame_px_per_mm: float, accept: Accept,
                thorough: bool = True) -> str | None:
    """The payload of the code in a code window (``WINDOW_PX_PER_MM``; one frame or several averaged).
    Without ``thorough`` only zxing-cpp's own search runs (a few ms; enough for most blur up to 1.5 px),
    so a frame's budget reaches every slot before the grid sampling (tens of ms) is spent on any."""
    deconv = Deconvolver(grey)
    found = read_direct([deconv.view], accept)
    if found is not None:
        return found
    sigmas = window_sigmas(frame_px_per_mm)
    found = read_direct([deconv(s) for s in window_sigmas(frame_px_per_mm, DIRECT_SIGMAS)], accept)
    if found is not None or not thorough:
        return found
    seen: list[Candidate] = []
    for guide_sigma in GUIDE_SIGMAS:
        guide = as_grey(np.clip(deconv(window_sigmas(frame_px_per_mm, (guide_sigma,))[0]), 0, 255))
        for cand in find_code(guide, WINDOW_PX_PER_MM):
            if any(math.dist(cand.centre, o.centre) < 2 * cand.module for o in seen):
                continue
            seen.append(cand)
            found = read_grid(deconv, sigmas, cand, accept)
            if found is not None:
                return found
    return None


def window_of(frame: Image, win: QrWindow) -> GreyImage:
    """The code window of ``frame`` as the channel the reader uses."""
    return window_channel(extract(frame, win.H, (win.side, win.side)))
