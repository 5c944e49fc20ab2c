"""The learned second opinion on every stand and slot: a small CNN over each region's patch.

The rule of ``vision.stands`` / ``vision.slots`` explains a region's pixels with one piece or card; it can
be fooled by what it was never told about (a phone lying flat over a stand looks like an empty, unchanged
top when there is no photo of the empty table; a teal base camp on the map's teal grows into a capital).
This module runs a small convolutional network, trained on domain-randomised renders
(``training/train_patches.py``), over the same light-normalised patch, as a **veto**: the rule's reading
stands unless the network is confident of something else (another class or an unknown object, calibrated
probability >= ``VETO``) or all but rules the rule's reading out (probability < ``FLOOR``); a vetoed region
is unknown. A network unsure of everything costs nothing: the rule, which never guesses, decides. Where
the rule itself is unsure but found nothing foreign, the network may **confirm** one of the rule's own
candidates at calibrated probability >= ``ACCEPT`` (``SecondOpinion.judge``): the rule's measurements
name what it could be, the network says which. All thresholds were tuned on the stress bench's seed 7
only (docs/overhead.md).

Runtime is onnxruntime when installed, else OpenCV's DNN module (``vision.patch_runtime``: the same
features to 1e-4, onnxruntime ~2.8x faster). The ONNX file holds the
network up to its last hidden layer (the features); the last layer (``W``, ``b``) and the temperature that
calibrates its probabilities are in a small ``.npz``, so ``vision.adapt`` can re-fit them for one table
in numpy. ``patch_classifier.json`` names both files with their SHA-256; a missing or altered file is a
``VisionError`` naming it, and the reader then reads nothing (every region unknown) rather than guess.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.errors import VisionError
from vision.light import normalise
from vision.patch_runtime import forward
from vision.regions import Region
from vision.stands import StandReading
from vision.warp import extract

FORMAT = "kipukas-patch-classifier/1"
MANIFEST = "patch_classifier.json"
INPUT = 32  # the network sees every patch at 32x32 (stands: about 1.1 px/mm; slots: 0.2 px/mm)
STAND_CLASSES = ("empty", "capital", "basecamp", "soul", "soul flipped", "unknown")
SLOT_CLASSES = ("empty", "down", "up", "landscape", "unknown")
VETO = 0.9  # calibrated probability of another reading (or of "unknown") that vetoes the rule's
FLOOR = 0.02  # the rule's reading is vetoed when the network gives it less than this
ACCEPT = 0.97  # calibrated probability of the rule's own unsure candidate that makes it confident
CONFIRM_BELOW = 0.8  # a rule's reading below this confidence is unsure (the reader's CONFIDENT_EMPTY)
F32 = NDArray[np.float32]


@dataclass(frozen=True)
class Head:
    """The network's last layer and its calibration: logits = features @ w.T + b, probabilities =
    softmax(logits / temperature)."""

    w: F32
    b: F32
    temperature: float

    def probs(self, feats: F32) -> F32:
        z = (feats @ self.w.T + self.b) / max(self.temperature, 1e-3)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def patch_input(img: NDArray[np.uint8], reg: Region, gains: F32,
                H: NDArray[np.float64] | None = None) -> NDArray[np.uint8]:
    """The network's input for one region: its rectified patch under the table's light (``gains`` from
    ``vision.light.channel_gains``), shrunk to INPUT x INPUT. ``H`` overrides the region's homography
    (training jitters it)."""
    return shrunk(normalise(extract(img, reg.H if H is None else H, reg.size), gains))


def shrunk(lit: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A light-normalised patch as the network sees it: INPUT x INPUT."""
    return np.asarray(cv2.resize(lit, (INPUT, INPUT), interpolation=cv2.INTER_AREA), np.uint8)


def to_blob(patches: list[NDArray[np.uint8]] | NDArray[np.uint8]) -> F32:
    """NCHW float input, BGR scaled to -0.5..0.5 (the training script uses the same function)."""
    arr = np.asarray(patches, np.float32).reshape(-1, INPUT, INPUT, 3)
    return np.ascontiguousarray(arr.transpose(0, 3, 1, 2) / 255.0 - 0.5, np.float32)


@dataclass(frozen=True)
class Weights:
    """The verified bytes of one network (body) and its head, and the manifest they came with."""

    body: bytes
    head: Head
    classes: tuple[str, ...]


class PatchNet:
    """One network (stands or slots): features from its body (``vision.patch_runtime``: onnxruntime when
    installed, else OpenCV's DNN; ``runtime`` names one), probabilities from the head."""

    def __init__(self, weights: Weights, head: Head | None = None, runtime: str | None = None) -> None:
        self.classes = weights.classes
        self.head = head if head is not None else weights.head
        self.body = forward(weights.body, runtime)

    def features(self, patches: list[NDArray[np.uint8]] | NDArray[np.uint8]) -> F32:
        if len(patches) == 0:
            return np.zeros((0, self.head.w.shape[1]), np.float32)
        return self.body(to_blob(patches)).reshape(len(patches), -1)

    def probs(self, patches: list[NDArray[np.uint8]] | NDArray[np.uint8]) -> F32:
        return self.head.probs(self.features(patches))


class PatchClassifier:
    """The stand and slot networks. ``load`` checks every file against the manifest's SHA-256."""

    def __init__(self, stands: Weights, slots: Weights, config: dict[str, Any],
                 stand_head: Head | None = None, slot_head: Head | None = None) -> None:
        self.weights = (stands, slots)
        self.config = config
        self.stands = PatchNet(stands, stand_head)
        self.slots = PatchNet(slots, slot_head)

    @classmethod
    def load(cls, folder: Path | None = None) -> PatchClassifier:
        """The shipped classifier (``vision/assets``) or the one in ``folder``."""
        stands, slots, config = _verified(str(folder) if folder is not None else None)
        return cls(stands, slots, config)

    def adapted(self, stand_head: Head | None, slot_head: Head | None) -> PatchClassifier:
        """The same networks with last layers re-fitted to one table (``vision.adapt``)."""
        return PatchClassifier(*self.weights, self.config, stand_head, slot_head)


def verdict(probs: F32, classes: tuple[str, ...], rule: str) -> str | None:
    """Why the rule's reading ``rule`` must be unknown, or None when the network does not object: it is
    confident of another reading (>= VETO) or gives ``rule`` almost nothing (< FLOOR). An upright and a
    flipped soul token count as one reading."""
    p = {c: float(v) for c, v in zip(classes, probs, strict=True)}
    if "soul flipped" in p:
        p["soul"] += p.pop("soul flipped")
    other = max((c for c in p if c != rule), key=lambda c: p[c])
    if p[other] >= VETO:
        if other == "unknown":
            return f"classifier sees something else ({p['unknown']:.2f})"
        return f"classifier reads {other} ({p[other]:.2f}), the rule {rule}"
    if p.get(rule, 0.0) < FLOOR:
        return f"classifier rules out {rule} ({p.get(rule, 0.0):.3f})"
    return None


def agreement(probs: F32, classes: tuple[str, ...], rule: str) -> float:
    """The network's calibrated probability of the rule's reading ``rule`` (an upright and a flipped soul
    token count as one reading); 0 for a reading it has no class for."""
    p = {c: float(v) for c, v in zip(classes, probs, strict=True)}
    if "soul flipped" in p:
        p["soul"] += p.pop("soul flipped")
    return p.get(rule, 0.0)


class SecondOpinion:
    """The reader's hook: one batch per network over the regions read this frame, then a veto per region.
    Without a classifier (missing or corrupt weights) every reading is vetoed with the reason: the reader
    never runs without the check it was tuned with."""

    def __init__(self, patches: PatchClassifier | None, error: str | None) -> None:
        self.patches = patches
        self.error = error
        self._probs: dict[str, tuple[F32, tuple[str, ...]]] = {}
        # the slots' patches under the frame's light, as the network's input was shrunk from: (frame, gains,
        # {slot: (its region, the patch)}), for the slot decision of the same frame (``lit``)
        self._lit: tuple[NDArray[np.uint8] | None, bytes, dict[str, tuple[Region, NDArray[np.uint8]]]] = (
            None, b"", {})

    @classmethod
    def build(cls, given: PatchClassifier | Path | None, stand_head: Head | None = None,
              slot_head: Head | None = None) -> SecondOpinion:
        """The shipped classifier (or ``given``, or the one in the folder ``given``), with the last layers
        re-fitted to one table when ``stand_head`` / ``slot_head`` are given (``vision.adapt``)."""
        try:
            base = given if isinstance(given, PatchClassifier) else PatchClassifier.load(given)
        except VisionError as exc:
            return cls(None, f"no patch classifier ({exc})")
        if stand_head is not None or slot_head is not None:
            base = base.adapted(stand_head, slot_head)
        return cls(base, None)

    def classify(self, img: NDArray[np.uint8], gains: F32, stands: dict[str, Region],
                 slots: dict[str, Region]) -> None:
        """Probabilities for the regions about to be read (forgetting the last frame's)."""
        self._probs = {}
        self._lit = (None, b"", {})
        if self.patches is None:
            return
        if stands:
            ids = list(stands)
            probs = self.patches.stands.probs([patch_input(img, stands[rid], gains) for rid in ids])
            self._probs.update((rid, (p, self.patches.stands.classes)) for rid, p in zip(ids, probs, strict=True))
        if slots:
            lit: dict[str, tuple[Region, NDArray[np.uint8]]] = {}
            for rid, reg in slots.items():
                patch = normalise(extract(img, reg.H, reg.size), gains)
                patch.flags.writeable = False
                lit[rid] = (reg, patch)
            probs = self.patches.slots.probs([shrunk(p) for _, p in lit.values()])
            self._probs.update((rid, (p, self.patches.slots.classes)) for rid, p in zip(lit, probs, strict=True))
            self._lit = (img, np.asarray(gains, np.float32).tobytes(), lit)

    def lit(self, rid: str, img: NDArray[np.uint8], gains: F32, reg: Region) -> NDArray[np.uint8] | None:
        """Slot ``rid``'s patch of ``img`` under the light ``gains`` (``normalise`` without a model), read-only,
        when this frame's batch cut it through ``reg`` (the network's input was shrunk from it); else None."""
        frame, light, kept = self._lit
        got = kept.get(rid)
        if got is None or frame is not img or got[0] is not reg or light != np.asarray(gains, np.float32).tobytes():
            return None
        return got[1]

    def confirms(self, rid: str, candidates: tuple[str, ...]) -> tuple[str, float, bool] | None:
        """Which of the rule's unsure ``candidates`` for ``rid`` the network is sure of this frame (calibrated
        probability >= ``ACCEPT``, an upright and a flipped soul token as one), with that probability and
        whether it sees a soul token flipped; None when it is sure of none (or did not classify ``rid``)."""
        got = self._probs.get(rid) if self.patches is not None else None
        if got is None:
            return None
        probs, classes = got
        for cand in candidates:
            p = agreement(probs, classes, cand)
            if p >= ACCEPT:
                named = dict(zip(classes, (float(v) for v in probs), strict=True))
                return cand, p, named.get("soul flipped", 0.0) > named.get("soul", 0.0)
        return None

    def judge(self, rid: str, r: StandReading) -> StandReading:
        """The stand reading ``r`` of the rule after this second opinion: made confident where the rule was
        unsure but found nothing foreign (not obstructed) and the network is sure of the rule's candidate or
        of a piece the measured size alone allows (``StandReading.alternatives``; the owner stays the rule's,
        from colour); a confident reading becomes such a piece when the network is sure of it (its shape and
        size disagree); unknown where the network vetoes it (``veto``); else unchanged."""
        if not r.obstructed and (r.confidence < CONFIRM_BELOW or r.alternatives):
            # an unsure reading may be confirmed as itself or as a piece its size allows; a confident one only
            # as such a piece: its shape (what blur and JPEG round off first) said one piece, its size allows
            # another, and the network is sure of that other
            sure = self.confirms(rid, (r.state, *r.alternatives) if r.confidence < CONFIRM_BELOW else r.alternatives)
            if sure is not None:
                state, p, flipped = sure
                r = replace(r, state=state, confidence=max(r.confidence, p), reason=None,
                            flipped=(r.flipped if state == r.state else flipped) and state == "soul")
        veto = None if r.obstructed else self.veto(rid, r.state)
        return r if veto is None else StandReading("unknown", None, 0, 0.0, True, False, veto)

    def veto(self, rid: str, rule: str) -> str | None:
        """Why the rule's reading ``rule`` of ``rid`` may not be accepted this frame, or None."""
        if self.patches is None:
            return self.error or "no patch classifier"
        got = self._probs.get(rid)
        if got is None:
            return "not classified"
        return verdict(got[0], got[1], rule)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=4)
def _verified(folder: str | None) -> tuple[Weights, Weights, dict[str, Any]]:
    def read(name: str) -> bytes:
        where = f"{folder}/{name}" if folder is not None else f"vision/assets/{name}"
        try:
            if folder is not None:
                return (Path(folder) / name).read_bytes()
            return (resources.files("vision") / "assets" / name).read_bytes()
        except OSError as exc:
            raise VisionError(f"{where}: patch classifier file missing ({exc.strerror or exc})") from None

    label = f"{folder}/{MANIFEST}" if folder is not None else f"vision/assets/{MANIFEST}"
    try:
        manifest = json.loads(read(MANIFEST))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise VisionError(f"{label}: not a patch classifier manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise VisionError(f"{label}: format {manifest.get('format') if isinstance(manifest, dict) else None!r}, "
                          f"expected {FORMAT!r}")
    nets = []
    for kind, classes in (("stands", STAND_CLASSES), ("slots", SLOT_CLASSES)):
        entry = manifest.get(kind)
        if not isinstance(entry, dict) or tuple(entry.get("classes", ())) != classes:
            raise VisionError(f"{label}: {kind!r} must list the classes {list(classes)}")
        files = {}
        for part in ("body", "head"):
            name, want = str(entry[part]["file"]), str(entry[part]["sha256"])
            data = read(name)
            if sha256(data) != want:
                where = f"{folder}/{name}" if folder is not None else f"vision/assets/{name}"
                raise VisionError(f"{where}: SHA-256 {sha256(data)[:12]}... does not match the manifest's "
                                  f"{want[:12]}... (corrupt or replaced weights)")
            files[part] = data
        head = load_head(files["head"], f"{kind} head")
        if head.w.shape[0] != len(classes):
            raise VisionError(f"{label}: the {kind} head has {head.w.shape[0]} outputs for {len(classes)} classes")
        nets.append(Weights(files["body"], head, classes))
    try:
        probe = PatchNet(nets[0])
        probe.features(np.zeros((1, INPUT, INPUT, 3), np.uint8))
    except cv2.error as exc:
        raise VisionError(f"{label}: OpenCV cannot run the stands network ({str(exc).splitlines()[-1]})") from None
    return nets[0], nets[1], dict(manifest.get("training", {}))


def load_head(data: bytes, what: str) -> Head:
    import io

    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            return Head(np.asarray(z["w"], np.float32), np.asarray(z["b"], np.float32), float(z["temperature"]))
    except (OSError, ValueError, KeyError) as exc:
        raise VisionError(f"{what}: not a classifier head ({exc})") from None


def head_bytes(head: Head) -> bytes:
    import io

    buf = io.BytesIO()
    np.savez(buf, w=head.w, b=head.b, temperature=np.float32(head.temperature))
    return buf.getvalue()


def with_temperature(head: Head, t: float) -> Head:
    return replace(head, temperature=float(t))
