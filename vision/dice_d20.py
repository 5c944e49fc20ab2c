"""A D20-only numeral network: reads the face of a die the shared face network has already typed D20.

The shared face network (`vision.dice_net`, all kinds in ~100 k weights) says which kind a die is; on the
D20 its numerals are the weak part (round 8: the unit digit's detail at ~14 px, docs/dice.md). This network
(trained by `training/train_d20.py` on the same crops, `vision.dice_crop.face_crop`; none is shipped: round 10's
did not beat the face network at 0 wrong, docs/dice.md; `DiceReader(d20_folder=...)` and `bench/bench_dice.py
--d20-net FOLDER` read with a candidate) answers only "which of the 20 numerals", read at the three turns the D20's
squaring-up leaves open and averaged, with its own calibrated temperature and its own acceptance (the most
confident wrong guess on calibration crops and tuning seeds, as the face network's). Its manifest
(`dice_d20.json`) holds the weights' SHA-256: a missing, truncated or altered file is a `VisionError` naming
it, and the reader then keeps the shared network's D20 reading (calibrated on its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dice_crop import CROP_PX
from vision.dice_net import FaceGuess, read_manifest, verified_net, views
from vision.errors import VisionError

D20_MANIFEST = "dice_d20.json"
D20_FORMAT = "kipukas-dice-d20/1"
NUMERALS = tuple(str(n) for n in range(1, 21))
F32 = NDArray[np.float32]


@dataclass
class D20Net:
    """The loaded D20 network: `read` turns crops of dice typed D20 into calibrated numeral guesses."""

    net: cv2.dnn.Net
    temperature: float
    accept: float
    where: str

    def logits(self, crops: list[F32]) -> NDArray[np.float64]:
        """(N, 20) logits of `crops`, averaged over the D20's turned views (`vision.dice_net.VIEWS`)."""
        if not crops:
            return np.zeros((0, 20), np.float64)
        seen = [views(c.reshape(CROP_PX, CROP_PX), "icosahedron") for c in crops]
        k = len(seen[0])
        batch = np.stack([v.reshape(1, CROP_PX, CROP_PX) for vs in seen for v in vs]).astype(np.float32)
        self.net.setInput(batch)
        flat = np.asarray(self.net.forward(), np.float64).reshape(len(crops), k, -1)
        return np.asarray(flat.mean(axis=1), np.float64)

    def read(self, crops: list[F32]) -> list[FaceGuess]:
        """The best numeral of each crop and its calibrated probability."""
        z = self.logits(crops) / self.temperature
        z -= z.max(axis=1, keepdims=True) if len(z) else 0.0
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        return [FaceGuess("d20", NUMERALS[int(np.argmax(row))], float(row.max())) for row in p]


def load_d20_net(folder: Path) -> D20Net:
    """The D20 network of `folder` (its `dice_d20.json` and the weights it names), its SHA-256 checked."""
    base = folder
    where = f"{base}/{D20_MANIFEST}"
    manifest = read_manifest(base / D20_MANIFEST, where, "the D20 network", D20_FORMAT)
    try:
        name, digest = str(manifest["model"]), str(manifest["sha256"])
        classes = tuple(str(c) for c in manifest["classes"])
        temperature, accept = float(manifest["temperature"]), float(manifest["accept"])
        px = int(manifest["input"]["px"])
    except (KeyError, TypeError, ValueError) as e:
        raise VisionError(f"{where}: missing or bad key {e}") from None
    model = f"{where.rsplit('/', 1)[0]}/{name}"
    if classes != NUMERALS or px != CROP_PX or temperature <= 0:
        raise VisionError(f"{where}: classes, input size or temperature do not fit this reader")
    net = verified_net(base / name, digest, model, "the D20 network")
    return D20Net(net, temperature, accept, model)
