"""`kipukas-tracker calibrate`: calibrate the overhead camera from one still frame.

Prints one JSON line: {"image", "target", "method", "reprojection_error_px", "inliers", "image_size",
"intrinsics", "out", "overlay"}; "intrinsics" says whether K was given (--charuco, --intrinsics) or fitted
from the picture, with the focal length's standard deviation. Bad or unusable images (no mat or map in
view, an implausible pose) exit with status 2 and a one-line reason naming the failed check.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.calfile import Calibration, load_calibration
from calibration.charuco import calibrate_intrinsics
from calibration.errors import CalibrationError
from calibration.overlay import draw_overlay
from calibration.procedure import calibrate_frame
from rules.kipukas.board_map import BoardMap
from tracker.errors import UsageError
from tracker.overhead.layout import board_artwork, table_artworks, table_layout


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("calibrate", help="calibrate the overhead camera from a still frame")
    p.add_argument("--image", required=True, metavar="FRAME", help="a photo of the table from the camera")
    p.add_argument("--out", metavar="FILE", help="write the calibration file here")
    p.add_argument("--overlay", metavar="PNG", help="write the frame with the projected stands and slots")
    p.add_argument("--target", choices=("mat", "map"), default="mat",
                   help="match the mat artwork (default) or the map's top texture (a map photographed alone)")
    p.add_argument("--stickers", action="store_true", help="use only the ArUco corner stickers")
    p.add_argument("--intrinsics", metavar="FILE", help="take K and distortion from this calibration file")
    p.add_argument("--charuco", nargs="+", metavar="PHOTO",
                   help="compute K and distortion from these photos of the ChArUco board (charuco-board)")
    p.set_defaults(func=run)


def _charuco(paths: list[str], size: tuple[int, int]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    images: list[NDArray[np.uint8]] = []
    for path in paths:
        img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        if img is None:
            raise UsageError(f"{path}: not a readable image")
        images.append(np.asarray(img, np.uint8))
    try:
        intr = calibrate_intrinsics(images)
    except CalibrationError as exc:
        raise UsageError(str(exc)) from None
    if intr.image_size != size:
        raise UsageError(f"--charuco photos are {intr.image_size[0]}x{intr.image_size[1]}, "
                         f"the frame is {size[0]}x{size[1]}: use the same camera mode")
    return intr.K, intr.dist


def run(args: argparse.Namespace) -> int:
    raw = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if raw is None:
        raise UsageError(f"{args.image}: not a readable image")
    frame: NDArray[np.uint8] = np.asarray(raw, np.uint8)
    board = BoardMap.packaged()
    layout = table_layout(board)
    K = dist = None
    if args.charuco:
        K, dist = _charuco(args.charuco, (frame.shape[1], frame.shape[0]))
    elif args.intrinsics:
        try:
            intr = load_calibration(args.intrinsics).pose
        except CalibrationError as exc:
            raise UsageError(str(exc)) from None
        if intr.image_size != (frame.shape[1], frame.shape[0]):
            intr = intr.scaled((frame.shape[1], frame.shape[0]))
        K, dist = intr.K, intr.dist
    arts = table_artworks(board, layout) if args.target == "mat" else [board_artwork(board, layout)]
    try:
        stickers = True if args.stickers else (None if args.target == "mat" else False)
        cal: Calibration = calibrate_frame(frame, layout, arts, K, dist, stickers=stickers)
    except CalibrationError as exc:
        raise UsageError(f"{args.image}: {exc}") from None
    except cv2.error as exc:  # the boundary: no OpenCV exception reaches the user
        raise UsageError(f"{args.image}: {args.target} pose: OpenCV failed on this picture ({exc.err})") from None
    if args.out:
        cal.save(args.out)
    if args.overlay and not cv2.imwrite(args.overlay, draw_overlay(frame, layout, cal.pose)):
        raise UsageError(f"{args.overlay}: cannot write the overlay picture")
    print(json.dumps({
        "image": args.image, "target": args.target, "method": cal.method,
        "reprojection_error_px": round(cal.reprojection_error_px, 3), "inliers": cal.inliers,
        "image_size": list(cal.pose.image_size), "intrinsics": cal.intrinsics_summary(),
        "out": str(Path(args.out)) if args.out else None, "overlay": args.overlay or None,
    }))
    return 0
