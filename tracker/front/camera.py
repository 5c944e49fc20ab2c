"""The live front-camera loop: frames in, one `CardShown` event per presentation of a card out.

A player holds a card up to the front camera for a moment; the reader sees it in many consecutive frames
(and may miss it in a few). `Presentations` turns per-frame reads into presentations: a payload read
again within `gap_s` of its last sighting continues the same presentation; after `gap_s` without a
sighting, the next read starts a new one. Each event keeps the frame it was first read on, for the record
judges can review. Used for deck registration before a game and for cards played revealed.
Frames are read through `vision.qr_presentation.PresentationReader`, which combines the recent frames of
a presentation when no single frame decodes (a moving glare band, a finger, motion blur).

The front camera shares one core with the overhead loop, so it reads at its own rate: a frame in which
nothing moved is not decoded (`vision.change.StillFrames`, on the camera's low-resolution stream when it
gives one), and with `cpu_per_frame_s` the decoder may spend on average that much CPU time per frame
(a token bucket: each frame adds it, up to `BURST_S`; a decode runs while the bucket is not empty and
takes what it used). A frame skipped for time is not read at all and reports no card (never the last
frame's: a card gone would otherwise stay "shown"); later frames are still compared with the frame read
last, so the first one that differs from it and finds time is read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from tracker.front.scan import ScannedCard, identify, kipukas_reader
from tracker.sources.capture import BgrImage, Frame
from vision.card_reader import CardReader
from vision.change import StillFrames
from vision.qr_decoders import Corners
from vision.qr_presentation import PresentationReader


@dataclass(frozen=True, slots=True)
class CardShown:
    """A card presented to the front camera. `payload` holds the owner's secret token: never broadcast."""

    payload: str
    physical_id: str
    frame_index: int
    timestamp: float
    frame: BgrImage
    corners: Corners


class Presentations:
    """Which reads start a new presentation: pure bookkeeping over (timestamp, payloads) sightings."""

    def __init__(self, gap_s: float = 1.0) -> None:
        if gap_s <= 0:
            raise ValueError(f"gap_s must be positive, got {gap_s}")
        self.gap_s = gap_s
        self._last_seen: dict[str, float] = {}

    def update(self, timestamp: float, payloads: Iterable[str]) -> list[str]:
        """Record the payloads seen at `timestamp`; return those that start a new presentation."""
        new: list[str] = []
        for payload in payloads:
            last = self._last_seen.get(payload)
            if last is None or timestamp - last > self.gap_s:
                new.append(payload)
            self._last_seen[payload] = timestamp
        return new


LIVE_CPU_PER_FRAME_S = 0.006  # the appliance's front-camera share; see docs/overhead.md, "Speed"
BURST_S = 0.3  # the most the bucket holds: a card shown after a quiet spell is read at once, at full effort


class FrontCamera:
    """Reads every frame of a source and yields one `CardShown` per presentation."""

    def __init__(self, reader: CardReader | None = None, gap_s: float = 1.0, cpu_per_frame_s: float | None = None,
                 clock: Callable[[], float] = time.thread_time) -> None:
        """``cpu_per_frame_s``: the decoder's average CPU time per frame (None: every moving frame is
        decoded, as a deck registration at the organiser's desk wants); ``clock``: CPU time of the thread
        that decodes."""
        if cpu_per_frame_s is not None and cpu_per_frame_s <= 0:
            raise ValueError(f"cpu_per_frame_s must be positive, got {cpu_per_frame_s}")
        self.reader = reader or kipukas_reader()
        self.frames = PresentationReader(self.reader)
        self.presentations = Presentations(gap_s)
        self.still = StillFrames()
        self.cpu_per_frame_s = cpu_per_frame_s
        self.clock = clock
        self.credit_s = BURST_S
        self.skipped = 0  # frames that moved but were not decoded for want of time
        self._last: dict[str, ScannedCard] = {}

    def process(self, frame: Frame) -> list[CardShown]:
        """Events started by this frame (usually none). A frame in which nothing moved since the last one
        read (``vision.change.StillFrames``) sees the cards that one saw, without decoding again."""
        if self.cpu_per_frame_s is not None:
            self.credit_s = min(self.credit_s + self.cpu_per_frame_s, BURST_S)
        if self.still.still(frame.image, frame.lores):
            cards = self._last
        elif self.cpu_per_frame_s is not None and self.credit_s <= 0.0:
            self.still.unread()
            self.skipped += 1
            cards = {}
        else:
            started = self.clock()
            cards = {r.raw: identify(r) for r in self.frames.read(frame.image)}
            self.credit_s -= self.clock() - started
            self._last = cards
        return [
            CardShown(raw, cards[raw].physical_id, frame.index, frame.timestamp, frame.image, cards[raw].corners)
            for raw in self.presentations.update(frame.timestamp, cards)
        ]

    def events(self, source: Iterable[Frame]) -> Iterator[CardShown]:
        """Events for the whole source, in frame order."""
        for frame in source:
            yield from self.process(frame)
