"""A live presentation is one read: combine what consecutive frames of a held-up card saw.

A player holds a card to the front camera for about a second (15-30 frames). Frame by frame, a code
under a moving glare band, a finger or motion blur may never decode, yet every frame shows part of it.
`PresentationReader` reads each frame with the `CardReader` and, while nothing is read, keeps the
recent frames' unread candidates and finders (a short window) and tries, within its own time budget:

1. **the union of finder candidates**: a candidate found in one frame lends its geometry to another
   frame where only two of its finders were found (moved by those two finders' displacement), and the
   best-focused such frame is grid-sampled (`vision.qr_grid`);
2. **fusion of aligned frames**: each frame's view of one code, warped onto the module grid by its own
   finder geometry (so the frames are aligned module by module), is averaged (sensor noise, a glare
   band or a blur direction that changes) and median-combined (a finger covering different modules in
   different frames), and the fused grid is decoded. The sharpest frames of the window are used.

Every payload still comes from a decoder with its error-correction check; fusion only chooses the
image. Pure: no camera, no clock other than the reader's CPU-time budget, no tracker.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.card_reader import CardRead, CardReader, distinct_reads
from vision.qr_decoders import Decoded
from vision.qr_finders import Candidate, Finder
from vision.qr_grid import code_in_frame, decode_view, fused_views, grid_colour, read_grid, versions_for
from vision.qr_views import BgrImage


@dataclass(frozen=True, slots=True)
class Seen:
    """One recent frame that read nothing: the frame, its unread candidates and finders, its sharpness."""

    index: int
    frame: BgrImage
    unread: tuple[Candidate, ...]
    finders: tuple[Finder, ...]
    sharpness: float


@dataclass(frozen=True, slots=True)
class PresentationConfig:
    """How many frames are kept and how much CPU time combining them may take per attempt."""

    window: int = 8
    fuse_every: int = 2  # frames between attempts while a code stays unread
    min_frames: int = 3  # frames of one code before fusing them
    stack_frames: int = 6  # sharpest frames fused
    budget_ms: float = 80.0

    def __post_init__(self) -> None:
        if self.window < 2 or self.min_frames < 2 or self.stack_frames < 2 or self.fuse_every < 1:
            raise ValueError(f"presentation config needs window, min_frames, stack_frames >= 2: {self}")
        if self.budget_ms <= 0:
            raise ValueError(f"budget_ms must be positive, got {self.budget_ms}")


def sharpness(frame: BgrImage, cand: Candidate | None) -> float:
    """Variance of the Laplacian around the candidate (the whole half-size frame without one)."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if cand is None:
        region = cv2.resize(grey, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    else:
        pts = np.array(cand.outline())
        h, w = grey.shape
        x0, y0 = np.clip(pts.min(axis=0), 0, [w, h]).astype(int)
        x1, y1 = np.clip(pts.max(axis=0), 0, [w, h]).astype(int)
        region = grey[y0:y1, x0:x1]
    if region.size == 0:
        return 0.0
    return float(cv2.Laplacian(region, cv2.CV_32F).var())


class PresentationReader:
    """Reads a stream of frames; when single frames fail, combines the recent ones (see module doc)."""

    def __init__(self, reader: CardReader, config: PresentationConfig | None = None) -> None:
        self.reader = reader
        self.config = config or PresentationConfig()
        self._recent: deque[Seen] = deque(maxlen=self.config.window)
        self._index = 0
        self._last_attempt = -(10**9)
        self.fused_reads = 0  # reads that needed more than one frame (for the bench and the logs)

    def read(self, frame: BgrImage) -> list[CardRead]:
        """Payloads read in this frame, or, when none, from this frame combined with the recent ones."""
        index = self._index
        self._index += 1
        reading = self.reader.inspect(frame)
        if reading.reads:
            self._recent.clear()
            return reading.reads
        if not reading.unread and len(reading.finders) < 2:
            return []
        best = max(reading.unread, key=lambda c: c.module, default=None)
        seen = Seen(index, frame, tuple(reading.unread), tuple(reading.finders), sharpness(frame, best))
        self._recent.append(seen)
        if index - self._last_attempt < self.config.fuse_every or len(self._recent) < self.config.min_frames:
            return []
        self._last_attempt = index
        reads = self._combine()
        if reads:
            self.fused_reads += 1
            self._recent.clear()
        return reads

    def _combine(self) -> list[CardRead]:
        deadline = time.thread_time() + self.config.budget_ms / 1000.0

        def alive() -> bool:
            return time.thread_time() < deadline

        found: list[Decoded] = []
        for track in self._tracks():
            if not alive():
                break
            if len(track) >= self.config.min_frames:
                found.extend(self._fuse(track, alive))
            if not found:
                found.extend(self._lend(track, alive))
            if found:
                break
        return distinct_reads(found, self.reader.accept)

    def _tracks(self) -> list[list[tuple[Seen, Candidate]]]:
        """Unread candidates of the recent frames grouped by code (close centres, similar module)."""
        tracks: list[list[tuple[Seen, Candidate]]] = []
        for seen in self._recent:
            for cand in seen.unread:
                for track in tracks:
                    last = track[-1][1]
                    close = math.dist(cand.centre, last.centre) < 0.3 * last.module * last.modules
                    if close and max(cand.module, last.module) < 1.3 * min(cand.module, last.module):
                        if track[-1][0] is not seen:
                            track.append((seen, cand))
                        break
                else:
                    tracks.append([(seen, cand)])
        return sorted(tracks, key=len, reverse=True)

    def _fuse(self, track: list[tuple[Seen, Candidate]], alive: Callable[[], bool]) -> list[Decoded]:
        sharpest = sorted(track, key=lambda sc: sc[0].sharpness, reverse=True)[: self.config.stack_frames]
        ref_seen, ref = sharpest[0]
        for version in versions_for(ref):
            n = 17 + 4 * version
            grids = [grid_colour(seen.frame, cand, version) for seen, cand in sharpest]
            for view in fused_views([colour for colour, _ in grids]):
                if not alive():
                    return []
                found = decode_view(view, version, alive)
                if found:
                    mapping = grid_colour(ref_seen.frame, ref, version)[1]
                    return [code_in_frame(d.text, mapping, n) for d in found]
        return []

    def _lend(self, track: list[tuple[Seen, Candidate]], alive: Callable[[], bool]) -> list[Decoded]:
        """Grid-sample frames where only two finders of the code were found, with a neighbour's geometry."""
        _, cand = track[0]
        frames = sorted(self._recent, key=lambda s: s.sharpness, reverse=True)
        for seen in frames:
            if not alive():
                return []
            if any(c is cand for c in seen.unread):
                continue
            moved = _moved(cand, seen.finders)
            if moved is None:
                continue
            found = read_grid(seen.frame, moved, alive, deblur=True, windows=(7, 0))
            if found:
                return found
        return []



def _moved(cand: Candidate, finders: tuple[Finder, ...]) -> Candidate | None:
    """`cand` moved onto `finders` when at least two of its three finders are among them (within 3 modules)."""
    points = [cand.top_left, cand.top_right, cand.bottom_left]
    matched: list[tuple[float, float] | None] = []
    for x, y in points:
        near = [f for f in finders if math.hypot(f.x - x, f.y - y) < 3 * cand.module]
        best = min(near, key=lambda f: math.hypot(f.x - x, f.y - y), default=None)
        matched.append(None if best is None else (best.x, best.y))
    hits = [(p, m) for p, m in zip(points, matched, strict=True) if m is not None]
    if len(hits) < 2:
        return None
    dx = sum(m[0] - p[0] for p, m in hits) / len(hits)
    dy = sum(m[1] - p[1] for p, m in hits) / len(hits)
    tl, tr, bl = (m if m is not None else (p[0] + dx, p[1] + dy) for p, m in zip(points, matched, strict=True))
    return Candidate(tl, tr, bl, cand.module)
