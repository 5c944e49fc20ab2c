"""Shared test helpers: where the real data lives and how to draw a plain QR code."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "kipukas"
DEV_PHOTOS = SHARED / "qr-photos-dev"


def dev_truth() -> dict[str, list[str]]:
    """File name -> Kipukas payloads visible in that dev photo."""
    data = json.loads((DEV_PHOTOS / "truth.json").read_text(encoding="utf-8"))
    return {name: list(entry["cards"]) for name, entry in data["images"].items()}


def plain_qr(payload: str, module_px: int) -> npt.NDArray[np.uint8]:
    """A black-on-white QR code of `payload` (with its quiet zone) as a BGR image."""
    modules = cv2.QRCodeEncoder.create().encode(payload)
    big = cv2.resize(modules, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)
    return np.asarray(cv2.cvtColor(big, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
