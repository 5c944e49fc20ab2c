"""Module-grid sampling: read a candidate's modules from the finder geometry and let a real decoder judge.

When the decoders cannot find or binarise a camouflaged code themselves (motion blur, a glare band,
fingers or purple light across it), the three finder centres still fix where every module is. This
module samples that grid directly: it warps the candidate onto a module grid for each plausible version
(refining the perspective with the alignment pattern when it is found), optionally deconvolves the blur
the grid shows, and classifies each module against a *local* threshold (the mean of the modules around
it, so a glare band or a shadow moves the threshold with it). The known function patterns (finders,
separators, timing, alignment) are then written back exactly, which repairs finders a finger or a glare
band damaged, and the binary grid is rendered as a clean QR image and handed to zxing-cpp.

Never a guessed payload: the decoders check the format information and correct errors with the code's
Reed-Solomon blocks, and a grid that is wrong beyond what they can correct is simply not read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import cv2
import numpy as np
import numpy.typing as npt

from vision.qr_deblur import deconvolve, estimate_blur
from vision.qr_decoders import Decoded, GreyImage, as_grey, decode_zxing, order_corners
from vision.qr_finders import Candidate
from vision.qr_views import CHANNELS, BgrImage

FloatGrid = npt.NDArray[np.float32]
Matrix3 = npt.NDArray[np.float64]

_PPM = 5  # pixels per module of the sampled view
_RENDER_PPM = 4
_QUIET = 4
# Alignment-pattern centres (module indices) for versions 2-6; later versions have more and are not
# printed on cards (a Kipukas payload fits version 3 at correction level H).
_ALIGN = {2: 18, 3: 22, 4: 26, 5: 30, 6: 34}


def versions_for(cand: Candidate, spread: float = 0.18) -> list[int]:
    """Plausible versions (1-6) for `cand`'s estimated width, nearest first."""
    estimate = cand.modules
    out = [v for v in range(1, 7) if abs(17 + 4 * v - estimate) <= spread * estimate + 2]
    return sorted(out, key=lambda v: abs(17 + 4 * v - estimate))


def module_homography(cand: Candidate, n: int) -> Matrix3:
    """3x3 map from module coordinates (0..n) to frame pixels for an n-module symbol (affine part)."""
    tl, tr, bl = (np.array(p, dtype=np.float64) for p in (cand.top_left, cand.top_right, cand.bottom_left))
    e1, e2 = (tr - tl) / (n - 7), (bl - tl) / (n - 7)
    origin = tl - 3.5 * e1 - 3.5 * e2
    return np.array([[e1[0], e2[0], origin[0]], [e1[1], e2[1], origin[1]], [0.0, 0.0, 1.0]])


def _warp(frame: BgrImage, to_frame: Matrix3, n: int) -> BgrImage:
    """The symbol's n x n modules as an upright colour image, `_PPM` pixels per module."""
    scale = np.array([[1 / _PPM, 0, 0], [0, 1 / _PPM, 0], [0, 0, 1]], dtype=np.float64)
    size = n * _PPM
    return np.asarray(
        cv2.warpPerspective(frame, to_frame @ scale, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_REPLICATE),
        dtype=np.uint8,
    )


def _align_template() -> GreyImage:
    pattern = np.zeros((5, 5), np.uint8)
    pattern[1:4, 1:4] = 255
    pattern[2, 2] = 0
    big = np.kron(pattern, np.ones((_PPM, _PPM), np.uint8))
    return as_grey(cv2.copyMakeBorder(big, _PPM, _PPM, _PPM, _PPM, cv2.BORDER_CONSTANT, value=255))


def refine_with_alignment(view: GreyImage, to_frame: Matrix3, n: int, version: int) -> Matrix3 | None:
    """The perspective map corrected so the alignment pattern lands where it belongs, or None if not found."""
    centre = _ALIGN.get(version)
    if centre is None:
        return None
    tpl = _align_template()
    half = tpl.shape[0] / 2
    expect = (centre + 0.5) * _PPM
    reach = 3 * _PPM
    x0, y0 = round(expect - half - reach), round(expect - half - reach)
    window = view[max(y0, 0) : round(expect + half + reach), max(x0, 0) : round(expect + half + reach)]
    if window.shape[0] < tpl.shape[0] or window.shape[1] < tpl.shape[1]:
        return None
    scores = cv2.matchTemplate(window, tpl, cv2.TM_CCOEFF_NORMED)
    _, best, _, loc = cv2.minMaxLoc(scores)
    if best < 0.45:
        return None
    found = ((max(x0, 0) + loc[0] + half) / _PPM, (max(y0, 0) + loc[1] + half) / _PPM)  # module coordinates
    src = np.array([[3.5, 3.5], [n - 3.5, 3.5], [3.5, n - 3.5], [centre + 0.5, centre + 0.5]], np.float32)
    seen = np.array([[3.5, 3.5], [n - 3.5, 3.5], [3.5, n - 3.5], list(found)], np.float32)
    seen_frame = cv2.perspectiveTransform(seen.reshape(-1, 1, 2), to_frame).reshape(-1, 2)
    return np.asarray(cv2.getPerspectiveTransform(src, seen_frame.astype(np.float32)), dtype=np.float64)


def module_means(view: GreyImage, n: int) -> FloatGrid:
    """Mean of the central 3x3 pixels of each module (edges mix with neighbours under blur)."""
    cells = view[: n * _PPM, : n * _PPM].astype(np.float32).reshape(n, _PPM, n, _PPM)
    lo, hi = _PPM // 2 - 1, _PPM // 2 + 2
    return np.asarray(cells[:, lo:hi, :, lo:hi].mean(axis=(1, 3)), dtype=np.float32)


def classify(means: FloatGrid, window: int) -> npt.NDArray[np.bool_]:
    """Dark modules: below the mean of the `window` x `window` modules around them (0: one global Otsu)."""
    if window <= 0:
        lo, hi = float(means.min()), float(means.max())
        scaled = np.asarray((means - lo) * (255.0 / max(hi - lo, 1e-6)), dtype=np.uint8)
        level, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        return np.asarray(scaled <= level)
    local = cv2.blur(means, (window, window), borderType=cv2.BORDER_REFLECT)
    return np.asarray(means < local)


def repair_function_patterns(dark: npt.NDArray[np.bool_], version: int) -> npt.NDArray[np.bool_]:
    """`dark` with finders, separators, timing and the alignment pattern set to what they must be."""
    n = dark.shape[0]
    out = dark.copy()
    finder = np.zeros((7, 7), bool)
    finder[[0, 6], :] = finder[:, [0, 6]] = True
    finder[2:5, 2:5] = True
    for r, c in ((0, 0), (0, n - 7), (n - 7, 0)):
        out[r : r + 7, c : c + 7] = finder
    out[7, :8] = out[:8, 7] = False
    out[7, n - 8 :] = out[: 8, n - 8] = False
    out[n - 8, :8] = out[n - 8 :, 7] = False
    timing = np.arange(8, n - 8) % 2 == 0
    out[6, 8 : n - 8] = timing
    out[8 : n - 8, 6] = timing
    centre = _ALIGN.get(version)
    if centre is not None:
        align = np.ones((5, 5), bool)
        align[1:4, 1:4] = False
        align[2, 2] = True
        out[centre - 2 : centre + 3, centre - 2 : centre + 3] = align
    out[n - 8, 8] = True  # the dark module beside the bottom-left finder
    return out


def render(dark: npt.NDArray[np.bool_]) -> GreyImage:
    """A clean black-on-white image of the module grid with a quiet zone."""
    img = np.where(dark, 0, 255).astype(np.uint8)
    img = np.pad(img, _QUIET, constant_values=255)
    return as_grey(np.kron(img, np.ones((_RENDER_PPM, _RENDER_PPM), np.uint8)))


def _views(colour: BgrImage, deblur: bool) -> Iterator[GreyImage]:
    for channel in ("grey", "min_rg"):
        view = CHANNELS[channel](colour)
        yield view
        if deblur:
            angle, length = estimate_blur(view, _PPM)
            if length >= 2.0:
                for factor in (1.0, 0.6):
                    yield deconvolve(view, angle, max(2.0, length * factor))


def grid_colour(frame: BgrImage, cand: Candidate, version: int) -> tuple[BgrImage, Matrix3]:
    """The candidate's modules as an upright colour image (alignment-refined when found) and its map."""
    n = 17 + 4 * version
    to_frame = module_homography(cand, n)
    colour = _warp(frame, to_frame, n)
    refined = refine_with_alignment(CHANNELS["grey"](colour), to_frame, n, version)
    if refined is None:
        return colour, to_frame
    return _warp(frame, refined, n), refined


def decode_view(
    view: GreyImage, version: int, alive: Callable[[], bool], windows: tuple[int, ...] = (7, 5, 9, 0)
) -> list[Decoded]:
    """Decode one module-grid view (`_PPM` pixels per module); corners in module units times `_RENDER_PPM`."""
    n = 17 + 4 * version
    means = module_means(view, n)
    for window in windows:
        if not alive():
            return []
        grid = render(repair_function_patterns(classify(means, window), version))
        # zxing-cpp alone: on a clean render it reads what zbar reads, at a twentieth of the cost
        found = decode_zxing(grid)
        if found:
            return found
    return []


def read_grid(
    frame: BgrImage, cand: Candidate, alive: Callable[[], bool], deblur: bool = True,
    windows: tuple[int, ...] = (7, 5, 9, 0),
) -> list[Decoded]:
    """Decode `cand` by sampling its module grid; corners in frame pixels. Stops when `alive()` is False."""
    for version in versions_for(cand):
        n = 17 + 4 * version
        to_frame = module_homography(cand, n)
        colour = _warp(frame, to_frame, n)
        refined = refine_with_alignment(CHANNELS["grey"](colour), to_frame, n, version)
        maps = [refined, to_frame] if refined is not None else [to_frame]
        for mapping in maps:
            if mapping is not to_frame:
                colour = _warp(frame, mapping, n)
            for view in _views(colour, deblur):
                found = decode_view(view, version, alive, windows)
                if found:
                    return [code_in_frame(d.text, mapping, n) for d in found]
                if not alive():
                    return []
    return []


def fused_views(colours: list[BgrImage]) -> Iterator[GreyImage]:
    """Views of several frames' grids of one code: the mean (noise, moving glare) and the median (fingers)."""
    for channel in ("grey", "min_rg"):
        stack = np.stack([CHANNELS[channel](c).astype(np.float32) for c in colours])
        for fused in (stack.mean(axis=0), np.median(stack, axis=0)):
            view = as_grey(np.clip(fused, 0, 255))
            yield view
            angle, length = estimate_blur(view, _PPM)
            if length >= 2.0:
                yield deconvolve(view, angle, length)


def code_in_frame(text: str, mapping: Matrix3, n: int) -> Decoded:
    """A decoded `text` with the outline of its n-module grid under `mapping`, in frame pixels."""
    corners = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float64).reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(corners, mapping).reshape(-1, 2)
    return Decoded(text, order_corners([(float(x), float(y)) for x, y in pts]))
