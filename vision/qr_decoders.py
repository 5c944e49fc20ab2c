"""Thin wrappers around the two QR decoders, with one result type and one corner convention.

`pyzbar` (zbar) is the decoder the design card names; `zxing-cpp` is a second, independent decoder that
reads some camouflaged codes zbar misses (and is very cheap when it finds nothing). Both take an 8-bit
single-channel image and return `Decoded` items whose corners are in that image's pixels, ordered
clockwise (in image coordinates) starting from the corner nearest the image origin, so that results of
both decoders compare and transform the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt
import zxingcpp
from pyzbar import pyzbar

Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]
GreyImage = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class Decoded:
    """One decoded QR symbol: its text and its outline in the pixels of the image it was read from."""

    text: str
    corners: Corners


Decoder = Callable[[GreyImage], list[Decoded]]

_QR_ONLY = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)


def as_grey(image: object) -> GreyImage:
    """`image` (an OpenCV result) typed as an 8-bit array; no copy when it already is one."""
    return np.asarray(image, dtype=np.uint8)


def order_corners(points: Sequence[tuple[float, float]]) -> Corners:
    """Four outline points, clockwise in image coordinates, starting nearest the origin.

    Takes any polygon (zbar may report more than four points) and reduces it to its minimum-area
    bounding quadrilateral's corners when it does not have exactly four.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) != 4:
        pts = cv2.boxPoints(cv2.minAreaRect(pts.astype(np.float32))).astype(np.float64)
    centre = pts.mean(axis=0)
    # Clockwise on screen (y down) is increasing atan2 angle.
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    pts = np.roll(pts, -start, axis=0)
    a, b, c, d = ((float(x), float(y)) for x, y in pts)
    return (a, b, c, d)


def decode_zbar(image: GreyImage) -> list[Decoded]:
    """QR symbols zbar finds in `image` (undecodable bytes are replaced, never raised)."""
    out: list[Decoded] = []
    for sym in pyzbar.decode(image, symbols=[pyzbar.ZBarSymbol.QRCODE]):
        points = [(float(p.x), float(p.y)) for p in sym.polygon]
        if len(points) < 3:
            continue
        out.append(Decoded(sym.data.decode("utf-8", errors="replace"), order_corners(points)))
    return out


def decode_zxing(image: GreyImage) -> list[Decoded]:
    """QR symbols zxing-cpp finds in `image` (its local-average binarizer, all rotations)."""
    out: list[Decoded] = []
    for sym in zxingcpp.read_barcodes(image, formats=_QR_ONLY):
        pos = sym.position
        points = [(float(p.x), float(p.y)) for p in (pos.top_left, pos.top_right, pos.bottom_right, pos.bottom_left)]
        out.append(Decoded(sym.text, order_corners(points)))
    return out


DECODERS: dict[str, Decoder] = {"zbar": decode_zbar, "zxing": decode_zxing}
