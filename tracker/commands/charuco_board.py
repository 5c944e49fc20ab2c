"""`kipukas-tracker charuco-board --out PNG [--dpi N]`: the printable ChArUco board for camera intrinsics."""

from __future__ import annotations

import argparse
import json

import cv2

from calibration.charuco import MARKER_MM, SQUARE_MM, SQUARES, board_image
from tracker.errors import UsageError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("charuco-board", help="write the printable ChArUco board (print at 100%% scale)")
    p.add_argument("--out", required=True, metavar="PNG")
    p.add_argument("--dpi", type=float, default=300.0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not 72 <= args.dpi <= 1200:
        raise UsageError(f"--dpi {args.dpi}: expected 72..1200")
    if not cv2.imwrite(args.out, board_image(args.dpi)):
        raise UsageError(f"{args.out}: cannot write the board picture")
    print(json.dumps({"out": args.out, "dpi": args.dpi, "squares": list(SQUARES), "square_mm": SQUARE_MM,
                      "marker_mm": MARKER_MM}))
    return 0
