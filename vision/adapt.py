"""Adapting the reader to a real table from about fifty labelled frames of it.

Rendered tables are not real ones: the pieces' colours under this room's lamp, what each empty stand and
slot looks like, how large each kind of piece appears from this camera. From frames whose regions are
labelled (``labels.json``: frame file -> {stand or slot id -> "empty", "<owner> <kind>" or a slot face}),
``adapt`` measures all three:

- each player's colour: the median colour at the centre of the stands labelled with that player's pieces;
- each region's empty model: the median of its patches over the frames where it is labelled empty (a
  photo of the empty table, region by region, without ever clearing the table);
- the size of each kind of piece: the range of top areas of the labelled pieces, widened by 15 %;
- the patch classifier's last layers, re-fitted to the labelled regions (``vision.patch_adapt``).

The result is saved as one ``.npz`` file (``kipukas-reader-adaptation/1``) that ``BoardReader`` takes as
``adaptation``. It runs in seconds on a Pi: medians, and one small logistic regression per network in numpy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from vision.colour import F32, chroma
from vision.errors import VisionError
from vision.light import channel_gains, shrink
from vision.palette import learn_palette
from vision.patch_adapt import refit
from vision.patch_classifier import Head, PatchClassifier, patch_input
from vision.regions import STAND_READ_PX_PER_MM, Region, cut, slot_regions, stand_regions
from vision.stands import AREA_MM2, StandClassifier

FORMAT = "kipukas-reader-adaptation/1"
KINDS = ("capital", "basecamp", "soul")
SLOT_FACES = ("empty", "down", "up", "landscape")


@dataclass
class Adaptation:
    """What a table taught the reader: colours, empty regions, piece sizes."""

    palette: dict[str, tuple[int, int, int]]
    empty: dict[str, tuple[F32, F32]] = field(default_factory=dict)
    areas: dict[str, tuple[float, float]] = field(default_factory=dict)
    stand_head: Head | None = None  # the patch classifier's last layers re-fitted to this table
    slot_head: Head | None = None

    def save(self, path: Path) -> None:
        arrays: dict[str, NDArray[np.generic]] = {}
        for rid, (c, s) in self.empty.items():
            arrays[f"c:{rid}"] = c
            arrays[f"s:{rid}"] = s
        meta = {"format": FORMAT, "palette": {k: list(v) for k, v in self.palette.items()},
                "areas": {k: list(v) for k, v in self.areas.items()}}
        for kind, head in (("stands", self.stand_head), ("slots", self.slot_head)):
            if head is not None:
                arrays[f"head:{kind}:w"] = head.w
                arrays[f"head:{kind}:b"] = head.b
                arrays[f"head:{kind}:t"] = np.array([head.temperature], np.float32)
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
        with path.open("wb") as f:
            np.savez_compressed(f, allow_pickle=False, **arrays)

    @classmethod
    def load(cls, path: Path) -> Adaptation:
        try:
            with np.load(path) as z:
                meta = json.loads(bytes(z["meta"]).decode())
                arrays = {k: np.asarray(z[k], np.float32) for k in z.files if k != "meta"}
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
            raise VisionError(f"{path}: not a reader adaptation file ({exc})") from None
        if meta.get("format") != FORMAT:
            raise VisionError(f"{path}: format {meta.get('format')!r}, expected {FORMAT!r}")
        palette = {k: (int(v[0]), int(v[1]), int(v[2])) for k, v in meta["palette"].items()}
        areas = {k: (float(v[0]), float(v[1])) for k, v in meta["areas"].items()}
        empty = {k[2:]: (arrays[k], arrays["s:" + k[2:]]) for k in arrays if k.startswith("c:")}
        heads = {kind: Head(arrays[f"head:{kind}:w"], arrays[f"head:{kind}:b"], float(arrays[f"head:{kind}:t"][0]))
                 for kind in ("stands", "slots") if f"head:{kind}:w" in arrays}
        return cls(palette, empty, areas, heads.get("stands"), heads.get("slots"))


def parse_label(rid: str, text: str, slots: set[str]) -> tuple[str, str | None]:
    """(state, owner) of one label; raises VisionError naming the region for anything else."""
    words = text.split()
    if rid in slots:
        if text not in SLOT_FACES:
            raise VisionError(f"labels: slot {rid!r}: {text!r} is not one of {', '.join(SLOT_FACES)}")
        return text, None
    if text == "empty":
        return "empty", None
    if len(words) != 2 or words[1] not in KINDS:
        raise VisionError(f"labels: stand {rid!r}: {text!r} is not 'empty' or '<player> <capital|basecamp|soul>'")
    return words[1], words[0]


def load_frames(folder: Path) -> list[tuple[str, NDArray[np.uint8], dict[str, str]]]:
    """The labelled frames of ``folder`` (``labels.json`` next to the images)."""
    path = folder / "labels.json"
    try:
        labels = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise VisionError(f"{path}: {exc}") from None
    if not isinstance(labels, dict) or not labels:
        raise VisionError(f"{path}: expected {{frame file: {{region: label}}}}")
    out = []
    for name, regions in sorted(labels.items()):
        img = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        if img is None:
            raise VisionError(f"{folder / name}: not a readable image (named in labels.json)")
        if not isinstance(regions, dict):
            raise VisionError(f"{path}: {name}: expected {{region: label}}")
        out.append((name, np.asarray(img, np.uint8), {str(k): str(v) for k, v in regions.items()}))
    return out


def adapt(frames: list[tuple[str, NDArray[np.uint8], dict[str, str]]], layout: TableLayout,
          pose: CameraPose, patches: PatchClassifier | None = None) -> Adaptation:
    """Measure colours, empty regions and piece sizes from labelled frames, and re-fit ``patches``' last
    layers to them (none given: the adaptation carries no classifier layers)."""
    stands = stand_regions(layout, pose, STAND_READ_PX_PER_MM)  # as the reader decides: its empty models, sizes
    slots = slot_regions(layout, pose)
    regions = {**stands, **slots}
    palettes: dict[str, list[NDArray[np.float64]]] = {}
    empties: dict[str, list[tuple[F32, F32]]] = {}
    for name, img, labels in frames:
        unknown = set(labels) - set(regions)
        if unknown:
            raise VisionError(f"labels: {name}: unknown stand or slot ids {sorted(unknown)}")
        samples = {}
        for rid, text in labels.items():
            state, owner = parse_label(rid, text, set(slots))
            if state == "empty":
                reg = regions[rid]
                empties.setdefault(rid, []).append(chroma(cut(img, reg)))
            elif owner is not None:
                samples[rid] = owner
        if samples:
            for owner, bgr in learn_palette(img, layout, pose, samples).items():
                palettes.setdefault(owner, []).append(np.asarray(bgr, np.float64))
    if not palettes:
        raise VisionError("labels: no stand is labelled with a piece, so no player's colour can be learned")
    palette: dict[str, tuple[int, int, int]] = {}
    for o, cs in palettes.items():
        m = np.median(np.stack(cs), axis=0)
        palette[o] = (round(float(m[0])), round(float(m[1])), round(float(m[2])))
    empty = {rid: (np.median(np.stack([c for c, _ in ps]), axis=0).astype(np.float32),
                   np.median(np.stack([s for _, s in ps]), axis=0).astype(np.float32)) for rid, ps in empties.items()}
    areas = _piece_areas(frames, layout, stands, palette, empty)
    if patches is None:
        return Adaptation(palette, empty, areas)
    feats = classifier_features(frames, patches, stand_regions(layout, pose), slots)
    return Adaptation(palette, empty, areas, refit(patches.stands, *feats["stands"]),
                      refit(patches.slots, *feats["slots"]))


def classifier_features(frames: list[tuple[str, NDArray[np.uint8], dict[str, str]]], patches: PatchClassifier,
                        stands: dict[str, Region], slots: dict[str, Region]) -> dict[str, tuple[F32, list[str]]]:
    """The classifier's features of every labelled region and the class each label names, per network. The
    light is measured against the first frame, as the reader measures it against the first it sees."""
    first = shrink(frames[0][1])
    out: dict[str, tuple[F32, list[str]]] = {}
    for kind, regions, net in (("stands", stands, patches.stands), ("slots", slots, patches.slots)):
        feats: list[F32] = []
        names: list[str] = []
        for _, img, labels in frames:
            gains = channel_gains(shrink(img), first)
            ids = [rid for rid in labels if rid in regions]
            if ids:
                feats.append(net.features([patch_input(img, regions[rid], gains) for rid in ids]))
                names += [parse_label(rid, labels[rid], set(slots))[0] for rid in ids]
        out[kind] = (np.concatenate(feats) if feats else np.zeros((0, net.head.w.shape[1]), np.float32), names)
    return out


def _piece_areas(frames: list[tuple[str, NDArray[np.uint8], dict[str, str]]], layout: TableLayout,
                 stands: dict[str, Region], palette: dict[str, tuple[int, int, int]],
                 empty: dict[str, tuple[F32, F32]]) -> dict[str, tuple[float, float]]:
    """Each kind's range of measured top areas (mm^2) over the labelled pieces, widened by 15 %."""
    cl = StandClassifier(palette)
    seen: dict[str, list[float]] = {}
    for _, img, labels in frames:
        for rid, text in labels.items():
            if rid not in stands or text == "empty":
                continue
            kind = text.split()[1]
            reg = stands[rid]
            spec = layout.stand(rid)
            r = cl.classify(cut(img, reg), spec.kind, spec.size_mm, reg.px_per_mm, empty.get(rid),
                            strict=True)
            if r.area > 0:
                seen.setdefault(kind, []).append(r.area)
    out = dict(AREA_MM2)
    for kind, a in seen.items():
        out[kind] = (min(a) * 0.85, max(a) * 1.15)
    return out
