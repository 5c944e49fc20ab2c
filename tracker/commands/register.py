"""`kipukas-tracker register --out FILE (--camera N | --video FILE | --folder DIR)`: register a deck.

The player shows their cards one by one to the front camera; each presentation is added to the deck
list (the same physical card shown twice is refused with a message and the list goes on), and the deck
file is written when the source ends or on Ctrl-C. Checking that the list is a legal deck is
`kipukas-tracker deck check FILE` (the rules' `check_deck`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from rules.core.errors import PayloadError
from tracker.errors import UsageError
from tracker.front.camera import FrontCamera
from tracker.front.names import card_label
from tracker.front.registration import DeckRegistration, DuplicateCard
from tracker.sources.capture import FolderSource, Frame, SourceError, VideoCaptureSource


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `register` subcommand."""
    parser = subparsers.add_parser("register", help="register a deck by showing its cards to the front camera")
    parser.add_argument("--out", required=True, type=Path, help="deck file to write (one payload per line)")
    parser.add_argument("--owner", default="", help="seat colour or name, written in the file's header")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--camera", type=int, help="OpenCV camera index (USB front camera)")
    source.add_argument("--video", help="a recorded video file")
    source.add_argument("--folder", type=Path, help="a recorded folder of frames (sorted by name)")
    parser.add_argument("--fps", type=float, default=10.0, help="frame rate of --folder recordings")
    parser.add_argument("--gap", type=float, default=1.0, help="seconds a card must be gone to count again")
    parser.set_defaults(func=run)


def _source(args: argparse.Namespace) -> Iterable[Frame]:
    try:
        if args.folder is not None:
            return FolderSource(args.folder, fps=args.fps)
        if args.video is not None:
            if not Path(args.video).is_file():
                raise UsageError(f"{args.video}: no such file")
            return VideoCaptureSource(args.video)
        return VideoCaptureSource(int(args.camera))
    except SourceError as exc:
        raise UsageError(str(exc)) from exc


def _check_writable(path: Path) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UsageError(f"{path}: is a folder, not a deck file")
    if not folder.is_dir():
        raise UsageError(f"{path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{path}: cannot write the deck file there (permission denied)")


def run(args: argparse.Namespace) -> int:
    """Register until the source ends (or Ctrl-C), then write the deck file."""
    if args.gap <= 0:
        raise UsageError(f"--gap must be positive, got {args.gap}")
    _check_writable(args.out)  # before a single card is shown, not after all of them
    source = _source(args)
    deck = DeckRegistration(owner=args.owner)
    camera = FrontCamera(gap_s=args.gap)
    try:
        for shown in camera.events(source):
            try:
                deck.add(shown.payload)
            except (DuplicateCard, PayloadError) as exc:
                print(f"refused at {shown.timestamp:.1f} s: {exc}", file=sys.stderr, flush=True)
                continue
            print(f"{len(deck.payloads):3d}  {shown.physical_id}  {card_label(shown.physical_id.split('#')[0])}  "
                  f"(frame {shown.frame_index})", flush=True)
    except KeyboardInterrupt:
        pass
    if not deck.payloads:
        raise UsageError("no card was read from the source: nothing written (show each card's QR code to "
                         "the front camera, or check the folder or video)")
    try:
        deck.write(args.out)
    except OSError as exc:
        raise UsageError(f"{args.out}: cannot write the deck file ({exc.strerror})") from exc
    print(f"{len(deck.payloads)} cards written to {args.out}", file=sys.stderr)
    report = deck.check()
    print(json.dumps({"valid": report.valid, "problems": report.problems}), flush=True)
    return 0
