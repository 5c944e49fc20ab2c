"""`kipukas-tracker scan [--json] IMAGE...`: decode the Kipukas cards in still images.

With `--json`, one JSON line per image as ARCHITECTURE's command-line contract fixes it. Without, a
table. An unreadable image is reported on stderr by name and the others are still scanned; the command
then exits 2 (bad input). The per-copy token is part of `raw`: the command prints what the card carries,
for its owner; broadcasting is the tracker's concern, not this command's.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from tracker.errors import UsageError
from tracker.front.scan import ScannedCard, kipukas_reader, scan_frame
from vision.qr_views import BgrImage


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `scan` subcommand."""
    parser = subparsers.add_parser("scan", help="decode Kipukas card QR codes in still images")
    parser.add_argument("--json", action="store_true", help="one JSON line per image")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG, ...)")
    parser.set_defaults(func=run)


def load_image(path: str) -> BgrImage:
    """The image at `path` as 8-bit BGR; `UsageError` naming the file if it cannot be read."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"{path}: no such file")
    data = np.fromfile(file, dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UsageError(f"{path}: not a readable image")
    return np.asarray(image, dtype=np.uint8)


def _table_rows(path: str, cards: list[ScannedCard], elapsed_ms: float) -> list[str]:
    if not cards:
        return [f"{path}  (no Kipukas card)  {elapsed_ms:.1f} ms"]
    rows = []
    for card in cards:
        cx = sum(x for x, _ in card.corners) / 4
        cy = sum(y for _, y in card.corners) / 4
        rows.append(f"{path}  {card.physical_id:<12}  at ({cx:.0f}, {cy:.0f})  {elapsed_ms:.1f} ms  {card.raw}")
    return rows


def run(args: argparse.Namespace) -> int:
    """Scan every image; exit 2 after the others if any could not be read."""
    reader = kipukas_reader()
    failures: list[str] = []
    for path in args.images:
        try:
            frame = load_image(path)
        except UsageError as exc:
            failures.append(str(exc))
            print(f"kipukas-tracker scan: {exc}", file=sys.stderr)
            continue
        cards, elapsed_ms = scan_frame(reader, frame)
        if args.json:
            line = {"image": path, "cards": [c.to_json() for c in cards], "elapsed_ms": round(elapsed_ms, 2)}
            print(json.dumps(line), flush=True)
        else:
            print("\n".join(_table_rows(path, cards, elapsed_ms)), flush=True)
    if failures:
        if len(failures) == 1:
            raise UsageError(f"1 image could not be read ({failures[0]})")
        raise UsageError(f"{len(failures)} images could not be read")
    return 0
