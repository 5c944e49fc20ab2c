"""The learned face classifier of the dice: a small convolutional network run by OpenCV's `cv2.dnn`.

Its weights (`vision/assets/dice_faces.onnx`, under 1 MB) and their manifest (`dice_faces.json`: the
classes, the input, the temperature that calibrates the network's softmax, the acceptance per die kind,
the training command, seeds and figures) are shipped with the package. The loader checks the weights'
SHA-256 against the manifest: a missing, truncated or altered file is a `VisionError` naming it, and the
dice reader then answers "unknown" for every face (never a guess from weights nobody trained).

The network sees `vision.dice_crop.face_crop` crops (one channel, `CROP_PX` square) and answers, for each,
the probability of every (kind, face) of `vision.dice_faces.FACES`. It was trained by
`training/train_dice.py` on domain-randomised renders only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dice_crop import CROP_PX
from vision.dice_faces import FACES
from vision.errors import VisionError

MANIFEST = "dice_faces.json"
# the turns a die's crop is also read at (the views its squaring-up cannot tell apart), per shape of
# `vision.dice`: a cube's quarter turns, the D20 top triangle's thirds of a turn
VIEWS = {"cube": (0, 90, 180, 270), "icosahedron": (0, 120, 240)}
FORMAT = "kipukas-dice-net/1"
F32 = NDArray[np.float32]


def class_names() -> tuple[str, ...]:
    """The network's classes in order: `kind:face` for every face of every kind."""
    return tuple(f"{kind}:{face}" for kind, faces in FACES.items() for face in faces)


@dataclass(frozen=True)
class FaceGuess:
    """The network's best (kind, face) for one crop and its calibrated probability."""

    kind: str
    face: str
    probability: float


def views(crop: F32, shape: str) -> list[F32]:
    """`crop` at each turn of `VIEWS[shape]` (itself alone for an unknown shape): the same die seen at the
    turns the network was trained to read alike, so their answers can be averaged (real evidence: the same
    pixels, not a guess about the die). Quarter turns are exact; thirds resample as the training's turns do."""
    out = []
    c = (CROP_PX - 1) / 2.0
    for turn in VIEWS.get(shape, (0,)):
        if turn % 90 == 0:
            out.append(np.ascontiguousarray(np.rot90(crop, turn // 90), np.float32))
        else:
            M = cv2.getRotationMatrix2D((c, c), float(turn), 1.0)
            out.append(np.asarray(cv2.warpAffine(crop, M, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR,
                                                 borderMode=cv2.BORDER_REPLICATE), np.float32))
    return out


class FaceNet:
    """The loaded network and its calibration: `classify` turns crops into calibrated guesses. With
    `turned` (the manifest's `"views": "symmetry"`, its temperature fitted that way) a crop whose shape is
    known is read at every turn of `VIEWS` and the logits averaged."""

    def __init__(self, net: cv2.dnn.Net, classes: tuple[str, ...], temperature: float,
                 accept: dict[str, float], where: str, turned: bool = False,
                 accept_hidden: dict[str, float] | None = None) -> None:
        self.net = net
        self.classes = classes
        self.temperature = temperature
        self.accept = accept
        # for a die whose glare spot may have hidden part of its mark (`vision.dice_glare.hidden_mm2`): the
        # manifest's `accept_hidden`, never below `accept` (round 13, docs/dice.md)
        self.accept_hidden = dict(accept) if accept_hidden is None else accept_hidden
        self.where = where
        self.turned = turned

    def acceptance(self, hidden_mm2: float) -> dict[str, float]:
        """The acceptance per kind for a die whose glare may have hidden `hidden_mm2` of its top's mark."""
        return self.accept_hidden if hidden_mm2 > 0 else self.accept

    def logits(self, crops: list[F32], shapes: list[str] | None = None) -> NDArray[np.float64]:
        """(N, classes) raw logits of `crops`, averaged over the turns of each crop's shape when `turned`."""
        if not crops:
            return np.zeros((0, len(self.classes)), np.float64)
        if not self.turned or shapes is None:
            shapes = ["unknown"] * len(crops)
        seen = [views(c.reshape(CROP_PX, CROP_PX), s) for c, s in zip(crops, shapes, strict=True)]
        batch = np.stack([v.reshape(1, CROP_PX, CROP_PX) for vs in seen for v in vs]).astype(np.float32)
        self.net.setInput(batch)
        flat = np.asarray(self.net.forward(), np.float64).reshape(len(batch), -1)
        out, k = [], 0
        for vs in seen:
            out.append(flat[k:k + len(vs)].mean(axis=0))
            k += len(vs)
        return np.stack(out)

    def probabilities(self, crops: list[F32], shapes: list[str] | None = None) -> F32:
        """(N, classes) calibrated probabilities of `crops` (each `CROP_PX` square; `shapes` their dice's
        shapes from `vision.dice`, for the turned views)."""
        if not crops:
            return np.zeros((0, len(self.classes)), np.float32)
        z = self.logits(crops, shapes) / self.temperature
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return np.asarray(p / p.sum(axis=1, keepdims=True), np.float32)

    def classify(self, crops: list[F32], shapes: list[str] | None = None) -> list[FaceGuess]:
        out = []
        for row in self.probabilities(crops, shapes):
            k = int(np.argmax(row))
            kind, face = self.classes[k].split(":")
            out.append(FaceGuess(kind, face, float(row[k])))
        return out


@lru_cache(maxsize=1)
def packaged_face_net() -> FaceNet:
    """The package's network, loaded (and checked) once per process; a failure is not cached."""
    return load_face_net()


def load_face_net(folder: Path | Traversable | None = None) -> FaceNet:
    """The face network of `folder` (default: the package's `vision/assets`), its SHA-256 checked."""
    base: Path | Traversable = folder if folder is not None else resources.files("vision") / "assets"
    where = f"{base}/{MANIFEST}" if folder is not None else f"vision/assets/{MANIFEST}"
    manifest = read_manifest(base / MANIFEST, where, "the dice face network", FORMAT)
    try:
        name, digest = str(manifest["model"]), str(manifest["sha256"])
        classes = tuple(str(c) for c in manifest["classes"])
        temperature = float(manifest["temperature"])
        accept = {str(k): float(v) for k, v in dict(manifest["accept"]).items()}
        hidden = {str(k): float(v) for k, v in dict(manifest.get("accept_hidden", accept)).items()}
        px = int(manifest["input"]["px"])
        turned = manifest.get("views", "one") == "symmetry"
    except (KeyError, TypeError, ValueError) as e:
        raise VisionError(f"{where}: missing or bad key {e}") from None
    model = f"{where.rsplit('/', 1)[0]}/{name}"
    if classes != class_names() or px != CROP_PX or temperature <= 0 or set(accept) != set(FACES):
        raise VisionError(f"{where}: classes, input size, temperature or acceptance do not fit this reader")
    if set(hidden) != set(FACES) or any(hidden[k] < accept[k] for k in FACES):
        raise VisionError(f"{where}: accept_hidden must name every kind, none below its acceptance")
    net = verified_net(base / name, digest, model, "the dice face network")
    return FaceNet(net, classes, temperature, accept, model, turned, hidden)


def read_manifest(path: Path | Traversable, where: str, what: str, fmt: str) -> dict[str, Any]:
    """The JSON manifest at ``path`` (``where`` names it in errors) of ``what``, if it is of format ``fmt``."""
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise VisionError(f"{where}: {what}'s manifest is missing") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise VisionError(f"{where}: not a readable manifest ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != fmt:
        raise VisionError(f"{where}: expected format {fmt!r}")
    return manifest


def verified_net(path: Path | Traversable, digest: str, model: str, what: str) -> Any:
    """The ONNX network at ``path`` (``model`` names it in errors) loaded by OpenCV once its SHA-256 is the
    manifest's ``digest``: a missing, altered or unloadable file is a ``VisionError`` naming it."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise VisionError(f"{model}: {what}'s weights are missing") from None
    got = hashlib.sha256(raw).hexdigest()
    if got != digest:
        raise VisionError(f"{model}: SHA-256 {got[:12]}... is not the manifest's {digest[:12]}...: "
                          "a corrupt or replaced file")
    try:
        return cv2.dnn.readNetFromONNX(np.frombuffer(raw, np.uint8))
    except cv2.error as e:
        raise VisionError(f"{model}: OpenCV cannot load it ({str(e).strip().splitlines()[-1]})") from None
