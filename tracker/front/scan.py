"""Card reading for the tracker: the vision reader with the rules' payload grammar, and card identities.

`vision` knows images, `rules` knows payloads; this module joins them: it builds a `CardReader` that only
accepts Kipukas payloads (`rules.kipukas.identity.is_kipukas_payload`) and turns each read into a `ScannedCard`
with the code and serial parsed by `rules.kipukas.identity`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rules.kipukas.identity import is_kipukas_payload, parse_payload
from vision.card_reader import CardRead, CardReader, ReaderConfig
from vision.qr_decoders import Corners
from vision.qr_views import BgrImage


@dataclass(frozen=True, slots=True)
class ScannedCard:
    """A card read in an image: raw payload (holds the owner's secret token), code, serial, corners."""

    raw: str
    code: str | None
    serial: str | None
    corners: Corners

    @property
    def physical_id(self) -> str:
        """``CODE#SERIAL`` (``CODE`` for older cards, the raw payload for binder links)."""
        if self.code is None:
            return self.raw
        return f"{self.code}#{self.serial}" if self.serial else self.code

    def to_json(self) -> dict[str, object]:
        """The `scan --json` card object of ARCHITECTURE's command-line contract."""
        return {
            "raw": self.raw,
            "code": self.code,
            "serial": self.serial,
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
        }


def kipukas_reader(config: ReaderConfig | None = None) -> CardReader:
    """A `CardReader` that reports Kipukas payloads only."""
    return CardReader(config, accept=is_kipukas_payload)


def identify(read: CardRead) -> ScannedCard:
    """Parse a read payload into its card identity (the reader only accepts parseable payloads)."""
    ref = parse_payload(read.raw)
    return ScannedCard(read.raw, ref.code, ref.serial, read.corners)


def scan_frame(reader: CardReader, frame: BgrImage) -> tuple[list[ScannedCard], float]:
    """Cards in `frame` and the decode time in milliseconds (the frame already loaded)."""
    start = time.perf_counter()
    reads = reader.read(frame)
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    return [identify(r) for r in reads], elapsed_ms
