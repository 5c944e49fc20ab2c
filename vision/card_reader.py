"""Reading Kipukas card QR codes from front-camera frames: `CardReader.read(frame) -> [CardRead]`.

The codes on card backs are camouflaged, so a plain decoder on the whole frame misses many, and trying
every image treatment on the whole frame is far too slow for a live feed. The reader chains cheap stages
and spends effort only where a code is likely:

1. one cheap full-frame decode (zxing-cpp on luma, about 2 ms on 1280x720) reads the easy codes;
2. finder patterns are found on a half-size frame (`vision.qr_finders`) and grouped into candidates;
   a candidate whose centre lies inside an already decoded code is done (early exit when all are);
3. each remaining candidate goes through a ladder of small views (`vision.qr_views`: crops at a few
   pixels-per-module, colour channels suited to the yellow/black camouflage, local contrast, adaptive
   thresholds, rectification from the finder geometry) and decoders, stopping at its first decode;
   then, for a candidate the ladder could not read, the module grid is sampled from the finder
   geometry and handed back to the decoders as a clean image (`vision.qr_grid`: local, glare-proof
   thresholds per module, deconvolution of a directional blur, finders repaired);
4. when no code was read, the frame is deconvolved along its estimated motion blur and searched for
   finders again (`vision.qr_deblur`), and two finders whose third is hidden (a finger, a glare band)
   are completed into hypotheses for the grid sampler (`qr_finders.pair_candidates`);
5. only when no candidate was found and nothing decoded, full-frame fallbacks run.
Every stage checks a time budget (CPU time of the calling thread: on a dedicated device that is the
wall time of a frame, and other processes' load cannot make results vary). Payloads are filtered by an
`accept` predicate supplied by the caller (the tracker passes `rules.kipukas.identity.is_kipukas_payload`:
vision does not know the rules), and identical payloads are reported once.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.qr_deblur import deconvolve, estimate_blur
from vision.qr_decoders import DECODERS, Corners, Decoded, Decoder, GreyImage, as_grey, order_corners
from vision.qr_finders import Candidate, Finder, find_finders, group_finders, pair_candidates
from vision.qr_grid import plan_grid, read_grid
from vision.qr_views import CHANNELS, BgrImage, Patch, binarise, crop_patch, rectified_patch, to_frame_points


@dataclass(frozen=True, slots=True)
class CardRead:
    """One code read in a frame: the raw payload and its four corners in frame pixels (x, y)."""

    raw: str
    corners: Corners


@dataclass(frozen=True, slots=True)
class Attempt:
    """One rung of the per-candidate ladder: how to make the view and which decoder to run on it."""

    view: str  # "crop" or "rectify"
    ppm: float
    channel: str
    binarised: bool
    decoder: str


def _default_ladder() -> tuple[Attempt, ...]:
    # Rectified views first: they undo rotation and shear and replace the lava around the code by a
    # quiet zone, which is what decoders need most; plain crops then catch codes whose finder geometry
    # was estimated poorly (the decoder finds the code itself in the crop).
    rungs: list[Attempt] = []
    for ppm in (6.0, 8.0):
        for channel in ("grey", "min_rg", "clahe"):
            for binarised in (False, True):
                rungs.extend(Attempt("rectify", ppm, channel, binarised, d) for d in ("zbar", "zxing"))
    for ppm in (6.0, 8.0, 4.0):
        for channel in ("grey", "min_rg", "green", "red", "clahe"):
            rungs.extend(Attempt("crop", ppm, channel, False, d) for d in ("zbar", "zxing"))
    for channel in ("grey", "min_rg"):
        rungs.extend(Attempt("crop", 6.0, channel, True, d) for d in ("zbar", "zxing"))
    return tuple(rungs)


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """Everything the reader's stages need; defaults are the measured configuration (bench/bench_qr.py)."""

    budget_ms: float = 130.0
    candidate_budget_ms: float = 80.0  # about one full ladder on this machine
    grid_after_rungs: int = 12  # ladder rungs tried before the module-grid sampler
    deblur_lengths: tuple[float, ...] = (1.0, 0.6, 1.5)  # multiples of the estimated blur length
    max_pair_hypotheses: int = 24
    max_pair_reads: int = 4  # best-ranked hypotheses decoded
    full_frame: tuple[str, ...] = ("zxing",)
    # (scale, adaptive-threshold block, box-blur size or 0), run in order while no candidate is found or
    # finders are left over. Full-size passes are smoothed first, which keeps sensor noise from turning
    # into thousands of contours; a light smoothing keeps small finders, a stronger one blurred finders.
    finder_passes: tuple[tuple[float, int, int], ...] = (
        (0.5, 21, 0), (1.0, 25, 2), (1.0, 25, 4), (0.5, 41, 0), (1.0, 11, 0),
    )
    finder_min_contrast: float = 4.0
    margin_modules: float = 5.0
    quiet_modules: float = 4.0
    ladder: tuple[Attempt, ...] = field(default_factory=_default_ladder)
    fallback_scales: tuple[float, ...] = (0.5, 1.0)
    fallback_channels: tuple[str, ...] = ("grey", "min_rg")

    def __post_init__(self) -> None:
        for name in self.full_frame:
            if name not in DECODERS:
                raise ValueError(f"unknown decoder {name!r} in full_frame")
        for a in self.ladder:
            if a.decoder not in DECODERS or a.channel not in CHANNELS or a.view not in ("crop", "rectify"):
                raise ValueError(f"bad ladder rung {a}")
        for name in self.fallback_channels:
            if name not in CHANNELS:
                raise ValueError(f"unknown channel {name!r} in fallback_channels")


def _clock() -> float:
    """Seconds of CPU time of this thread (the decoders run in it), the reader's budget clock."""
    return time.thread_time()


def _accept_all(_: str) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class FrameReading:
    """What one frame gave: the reads, the candidates no decoder read, and the finders seen.

    The live front camera keeps these across the frames of a presentation (`vision.qr_presentation`):
    a candidate seen but not read in one frame can be read in a sharper one, or in a fusion of several.
    """

    reads: list[CardRead]
    unread: list[Candidate]
    finders: list[Finder]


class CardReader:
    """Finds and decodes the card QR codes in BGR frames. Create once, call `read` per frame."""

    def __init__(self, config: ReaderConfig | None = None, accept: Callable[[str], bool] = _accept_all) -> None:
        self.config = config or ReaderConfig()
        self.accept = accept
        self._full: list[Decoder] = [DECODERS[name] for name in self.config.full_frame]
        self._budget_s = self.config.budget_ms / 1000.0
        self._candidate_s = self.config.candidate_budget_ms / 1000.0

    def read(self, frame: BgrImage) -> list[CardRead]:
        """Kipukas (accepted) payloads in `frame` with their corners, each distinct payload once."""
        return self.inspect(frame).reads

    def inspect(self, frame: BgrImage, budget_ms: float | None = None) -> FrameReading:
        """`read` with what was seen but not read; `budget_ms` overrides the configured budget."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected an 8-bit BGR frame, got shape {frame.shape} dtype {frame.dtype}")
        deadline = _clock() + (self._budget_s if budget_ms is None else budget_ms / 1000.0)
        grey = as_grey(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        found: list[Decoded] = []
        for decode in self._full:
            found.extend(decode(grey))
        finders, candidates = self._candidates(grey, deadline)
        unread = self.try_candidates(frame, candidates, found, deadline)
        if not _any_accepted(found, self.accept) and _clock() < deadline:
            # half of what is left for codes with a hidden finder, then the rest for a blurred frame
            now = _clock()
            unread += self.try_pairs(frame, finders, candidates, found, now + (deadline - now) / 2)
        if not _any_accepted(found, self.accept) and _clock() < deadline:
            more_finders, blurred = self._deblurred_candidates(grey, deadline)
            fresh = [c for c in blurred if not _near_any(c, candidates)]
            candidates += fresh
            unread += self.try_candidates(frame, fresh, found, deadline, grid_first=True)
            if not _any_accepted(found, self.accept) and _clock() < deadline:
                unread += self.try_pairs(frame, more_finders, fresh, found, deadline, deblur=True)
            finders = _merge_finders(finders, more_finders)
        if not candidates and not found:
            found.extend(self._fallback(frame, grey, deadline))
        reads = distinct_reads(found, self.accept)
        return FrameReading(reads, [c for c in unread if not covered(c, found)], finders)

    def try_candidates(
        self, frame: BgrImage, candidates: list[Candidate], found: list[Decoded], deadline: float,
        grid_first: bool = False,
    ) -> list[Candidate]:
        """Decode each candidate not yet covered by `found` (appended to); returns those left unread.

        `grid_first`: for candidates only a deblurred frame showed, the decoders will not find the code
        in the blurred frame's crops, so the (deblurring) grid sampler goes first.
        """
        unread: list[Candidate] = []
        for cand in candidates:
            now = _clock()
            if now > deadline:
                unread.append(cand)
                continue
            if covered(cand, found):
                continue
            got = self._climb(frame, cand, min(deadline, now + self._candidate_s), grid_first)
            found.extend(got)
            if not got:
                unread.append(cand)
        return unread

    def try_pairs(
        self, frame: BgrImage, finders: list[Finder], candidates: list[Candidate], found: list[Decoded],
        deadline: float, deblur: bool = False,
    ) -> list[Candidate]:
        """Grid-sample codes completed from two finders (the third hidden); returns the hypotheses tried."""
        used = [p for c in candidates for p in (c.top_left, c.top_right, c.bottom_left)]
        spare = [f for f in finders if not any(math.hypot(f.x - x, f.y - y) < 2 * f.module for x, y in used)]
        tried: list[Candidate] = []
        # rank every hypothesis and version by its timing patterns (cheap), then decode the best first
        ranked: list[tuple[float, Candidate]] = []
        for cand in pair_candidates(spare)[: self.config.max_pair_hypotheses]:
            if _clock() > deadline:
                break
            if not covered(cand, found):
                ranked.append((max((p.score for p in plan_grid(frame, cand, refine=False)), default=0.0), cand))
        for _, cand in sorted(ranked, key=lambda sc: -sc[0])[: self.config.max_pair_reads]:
            if _clock() > deadline:
                break
            got = read_grid(frame, cand, lambda: _clock() < deadline, deblur=deblur, windows=(7, 0))
            found.extend(got)
            if got:
                break
            tried.append(cand)
        return tried[:1] if len(spare) >= 2 else []

    def _candidates(self, grey: GreyImage, deadline: float) -> tuple[list[Finder], list[Candidate]]:
        # Finder passes accumulate (in frame pixels) until the finders found are explained by candidates:
        # two or more left over are evidence of a code the cheaper pass could not complete (a single
        # stray one is as often a blob of the art or of the scene).
        scaled: dict[float, GreyImage] = {1.0: grey}
        finders: list[Finder] = []
        cands: list[Candidate] = []
        for scale, block, smooth in self.config.finder_passes:
            if _clock() > deadline:
                break
            small = scaled.get(scale)
            if small is None:
                small = as_grey(cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA))
                scaled[scale] = small
            if smooth > 1:
                small = as_grey(cv2.blur(small, (smooth, smooth)))
            finders = _merge_finders(finders, _scaled_finders(small, block, self.config.finder_min_contrast, scale))
            cands = group_finders(finders)
            if cands and len(finders) - 3 * len(cands) < 2:
                break
        return finders, cands

    def _deblurred_candidates(self, grey: GreyImage, deadline: float) -> tuple[list[Finder], list[Candidate]]:
        # A card moved during the exposure loses its finders' light rings along the motion; deconvolving
        # the half-size frame along the estimated blur brings them back.
        small = as_grey(cv2.resize(grey, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
        angle, length = estimate_blur(small, 5.0)
        finders: list[Finder] = []
        for factor in self.config.deblur_lengths:
            if _clock() > deadline:
                break
            sharp = deconvolve(small, angle, min(14.0, max(3.0, length * factor)), snr=0.01)
            finders = _merge_finders(finders, _scaled_finders(sharp, 21, self.config.finder_min_contrast, 0.5))
            cands = group_finders(finders)
            if cands:
                return finders, cands
        return finders, []

    def _climb(self, frame: BgrImage, cand: Candidate, deadline: float, grid_first: bool = False) -> list[Decoded]:
        patches: dict[tuple[str, float], Patch] = {}
        grid_at = 0 if grid_first else self.config.grid_after_rungs
        for index, rung in enumerate(self.config.ladder):
            if _clock() > deadline:
                return []
            if index == grid_at:
                got = read_grid(frame, cand, lambda: _clock() < deadline)
                if got:
                    return got
            key = (rung.view, rung.ppm)
            patch = patches.get(key)
            if patch is None:
                if rung.view == "crop":
                    patch = crop_patch(frame, cand, rung.ppm, self.config.margin_modules)
                else:
                    patch = rectified_patch(frame, cand, rung.ppm, self.config.quiet_modules)
                patches[key] = patch
            if patch.bgr.size == 0:
                continue
            view = CHANNELS[rung.channel](patch.bgr)
            if rung.binarised:
                view = binarise(view, patch.module_px)
            decoded = DECODERS[rung.decoder](view)
            if decoded:
                return [
                    Decoded(d.text, order_corners(to_frame_points(d.corners, patch.to_frame))) for d in decoded
                ]
        return []

    def _fallback(self, frame: BgrImage, grey: GreyImage, deadline: float) -> list[Decoded]:
        decode = DECODERS["zbar"]
        for scale in self.config.fallback_scales:
            for channel in self.config.fallback_channels:
                # a full-frame zbar pass costs about 30 ms per megapixel: start one only if it fits
                if _clock() + 0.03 * scale * scale * frame.shape[0] * frame.shape[1] / 1e6 > deadline:
                    return []
                image = grey if channel == "grey" else CHANNELS[channel](frame)
                if scale != 1:
                    image = as_grey(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA))
                decoded = decode(image)
                if decoded:
                    return [
                        Decoded(d.text, order_corners([(x / scale, y / scale) for x, y in d.corners]))
                        for d in decoded
                    ]
        return []


def _scaled_finders(small: GreyImage, block: int, min_contrast: float, scale: float) -> list[Finder]:
    return [Finder(f.x / scale, f.y / scale, f.module / scale) for f in find_finders(small, block, min_contrast)]


def _merge_finders(finders: list[Finder], more: list[Finder]) -> list[Finder]:
    """`finders` plus those of `more` not within two modules of one already there."""
    out = list(finders)
    for f in more:
        if not any(math.hypot(f.x - g.x, f.y - g.y) < 2 * max(f.module, g.module) for g in out):
            out.append(f)
    return out


def _near_any(cand: Candidate, others: list[Candidate]) -> bool:
    cx, cy = cand.centre
    return any(math.hypot(cx - o.centre[0], cy - o.centre[1]) < 3 * o.module for o in others)


def _any_accepted(found: list[Decoded], accept: Callable[[str], bool]) -> bool:
    return any(accept(d.text) for d in found)


def covered(cand: Candidate, found: list[Decoded]) -> bool:
    """True when the candidate's centre lies inside (or within a module of) a decoded code."""
    cx, cy = cand.centre
    for d in found:
        poly = np.array(d.corners, dtype=np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(poly, (float(cx), float(cy)), True) > -cand.module:
            return True
    return False


def distinct_reads(found: list[Decoded], accept: Callable[[str], bool]) -> list[CardRead]:
    """The accepted payloads of `found`, each once (first outline kept)."""
    seen: set[str] = set()
    out: list[CardRead] = []
    for d in found:
        if d.text in seen or not accept(d.text):
            continue
        seen.add(d.text)
        out.append(CardRead(d.text, d.corners))
    return out
