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
from dataclasses import dataclass

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


def _template(modules: GreyImage) -> GreyImage:
    """A module pattern (255 light) at `_PPM` pixels per module inside a one-module light ring."""
    big = np.kron(modules, np.ones((_PPM, _PPM), np.uint8))
    return as_grey(cv2.copyMakeBorder(big, _PPM, _PPM, _PPM, _PPM, cv2.BORDER_CONSTANT, value=255))


def _finder_template() -> GreyImage:
    pattern = np.zeros((7, 7), np.uint8)
    pattern[1:6, 1:6] = 255
    pattern[2:5, 2:5] = 0
    return _template(pattern)


def _align_template() -> GreyImage:
    pattern = np.zeros((5, 5), np.uint8)
    pattern[1:4, 1:4] = 255
    pattern[2, 2] = 0
    return _template(pattern)


def _locate(
    view: GreyImage, tpl: GreyImage, expect: tuple[float, float], reach: float, min_score: float
) -> tuple[float, float] | None:
    """Where `tpl` best matches `view` within `reach` modules of `expect` (module coordinates of `view`)."""
    half = tpl.shape[0] / 2
    x0, y0 = round(expect[0] * _PPM - half - reach * _PPM), round(expect[1] * _PPM - half - reach * _PPM)
    x1, y1 = round(expect[0] * _PPM + half + reach * _PPM), round(expect[1] * _PPM + half + reach * _PPM)
    if x0 < 0 or y0 < 0 or x1 > view.shape[1] or y1 > view.shape[0]:
        return None
    scores = cv2.matchTemplate(view[y0:y1, x0:x1], tpl, cv2.TM_CCOEFF_NORMED)
    _, best, _, loc = cv2.minMaxLoc(scores)
    if best < min_score:
        return None
    return ((x0 + loc[0] + half) / _PPM, (y0 + loc[1] + half) / _PPM)


def refine_grid(frame: BgrImage, to_frame: Matrix3, n: int, version: int) -> Matrix3 | None:
    """`to_frame` corrected by matching the finders (and the alignment pattern) where the grid puts them.

    The finder centres from the finder search are a fraction of a module off at small sizes, and three
    points cannot describe perspective; matching the patterns' templates at sub-module steps in the
    warped view fixes both. None when no pattern was found.
    """
    margin = 2
    shift = np.array([[1 / _PPM, 0, -margin], [0, 1 / _PPM, -margin], [0, 0, 1]], dtype=np.float64)
    size = (n + 2 * margin) * _PPM
    view = CHANNELS["min_rg"](np.asarray(cv2.warpPerspective(
        frame, to_frame @ shift, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    ), dtype=np.uint8))
    src: list[tuple[float, float]] = []
    seen: list[tuple[float, float]] = []
    hits = 0
    for cx, cy in ((3.5, 3.5), (n - 3.5, 3.5), (3.5, n - 3.5)):
        at = _locate(view, _finder_template(), (cx + margin, cy + margin), 1.5, 0.5)
        src.append((cx, cy))
        seen.append((cx, cy) if at is None else (at[0] - margin, at[1] - margin))
        hits += at is not None
    centre = _ALIGN.get(version)
    if centre is not None:
        c = centre + 0.5
        # the alignment pattern moves by the finders' correction plus perspective
        at = _locate(view, _align_template(), (c + margin, c + margin), 3.0, 0.45)
        if at is not None:
            src.append((c, c))
            seen.append((at[0] - margin, at[1] - margin))
            hits += 1
    if hits == 0:
        return None
    seen_frame = cv2.perspectiveTransform(np.array(seen, np.float64).reshape(-1, 1, 2), to_frame).reshape(-1, 2)
    if len(src) == 4:
        return np.asarray(
            cv2.getPerspectiveTransform(np.array(src, np.float32), seen_frame.astype(np.float32)), dtype=np.float64
        )
    affine = cv2.getAffineTransform(np.array(src, np.float32), seen_frame.astype(np.float32))
    return np.vstack([np.asarray(affine, dtype=np.float64), [0.0, 0.0, 1.0]])


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
        # defocus (a far card, a camera focused elsewhere) spreads every module over its neighbours;
        # an unsharp mask of about a module takes most of that spread back out
        soft = cv2.GaussianBlur(view, (0, 0), 0.8 * _PPM)
        yield as_grey(cv2.addWeighted(view, 2.0, soft, -1.0, 0))
        if deblur:
            angle, length = estimate_blur(view, _PPM)
            if length >= 2.0:
                for factor in (1.0, 0.6):
                    yield deconvolve(view, angle, max(2.0, length * factor))


def grid_colour(frame: BgrImage, cand: Candidate, version: int) -> tuple[BgrImage, Matrix3]:
    """The candidate's modules as an upright colour image (alignment-refined when found) and its map."""
    n = 17 + 4 * version
    to_frame = module_homography(cand, n)
    refined = refine_grid(frame, to_frame, n, version)
    if refined is None:
        colour = _warp(frame, to_frame, n)
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


@dataclass(frozen=True, slots=True)
class GridPlan:
    """One way to read a candidate: a version, its module-to-frame maps (best first) and a timing score."""

    version: int
    mappings: tuple[Matrix3, ...]
    score: float


def timing_score(means: FloatGrid) -> float:
    """How well row 6 and column 6 alternate dark/light between the finders (1: perfectly).

    The timing patterns only line up with the sampled grid when the geometry and the version are
    right, so this ranks hypotheses cheaply before any decoding.
    """
    n = means.shape[0]
    alt = np.where(np.arange(8, n - 8) % 2 == 0, -1.0, 1.0)

    def corr(v: npt.NDArray[np.float32]) -> float:
        d = v.astype(np.float64) - float(v.mean())
        norm = float(np.linalg.norm(d) * np.linalg.norm(alt))
        return float(d @ alt) / norm if norm > 0 else 0.0

    # both lines: a wrong hypothesis built on two adjacent finders still has the true timing line
    # between them as one of its own, so one line alone cannot tell it from the right one
    return (corr(means[6, 8 : n - 8]) + corr(means[8 : n - 8, 6])) / 2


def plan_grid(frame: BgrImage, cand: Candidate, refine: bool = True) -> list[GridPlan]:
    """The plausible versions of `cand`, each with its maps, best timing score first."""
    plans: list[GridPlan] = []
    for version in versions_for(cand):
        n = 17 + 4 * version
        to_frame = module_homography(cand, n)
        refined = refine_grid(frame, to_frame, n, version) if refine else None
        maps = (refined, to_frame) if refined is not None else (to_frame,)
        means = module_means(CHANNELS["min_rg"](_warp(frame, maps[0], n)), n)
        plans.append(GridPlan(version, maps, timing_score(means)))
    return sorted(plans, key=lambda p: -p.score)


def read_plan(
    frame: BgrImage, plan: GridPlan, alive: Callable[[], bool], deblur: bool = True,
    windows: tuple[int, ...] = (7, 5, 9, 0),
) -> list[Decoded]:
    """Decode one plan; corners in frame pixels. Stops when `alive()` is False."""
    n = 17 + 4 * plan.version
    for mapping in plan.mappings:
        colour = _warp(frame, mapping, n)
        for view in _views(colour, deblur):
            found = decode_view(view, plan.version, alive, windows)
            if found:
                return [code_in_frame(d.text, mapping, n) for d in found]
            if not alive():
                return []
    return []


def read_grid(
    frame: BgrImage, cand: Candidate, alive: Callable[[], bool], deblur: bool = True,
    windows: tuple[int, ...] = (7, 5, 9, 0),
) -> list[Decoded]:
    """Decode `cand` by sampling its module grid; corners in frame pixels. Stops when `alive()` is False."""
    for plan in plan_grid(frame, cand):
        found = read_plan(frame, plan, alive, deblur, windows)
        if found or not alive():
            return found
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
