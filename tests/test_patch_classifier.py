"""The patch classifier: the shipped weights on fresh renders (seeds never trained or calibrated on), the
SHA-256 check of its files, and a reader whose classifier is missing or corrupt reads nothing rather than
guess."""

from __future__ import annotations

import json
import shutil
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from tests.overhead_support import PALETTE, layout, pose, random_tokens, renderer
from training.patch_data import PatchSet, build
from vision.board import BoardReader
from vision.errors import VisionError
from vision.patch_classifier import MANIFEST, SLOT_CLASSES, STAND_CLASSES, PatchClassifier, SecondOpinion, verdict
from vision.regions import stand_regions
from vision.synth import Renderer, TableScene, Token
from vision.synth.clutter import Clutter

FRESH_SEEDS = [913_000 + i for i in range(3)]  # trained: 100000.., 300000.., 500000..; calibrated: 200000.., 600000..


def shipped() -> Path:
    return Path(str(resources.files("vision") / "assets"))


@lru_cache(maxsize=1)
def fresh() -> PatchSet:
    return build(layout(), FRESH_SEEDS, shots=2, views=1, progress=False)


def merged(p: np.ndarray, classes: tuple[str, ...]) -> np.ndarray:
    """Probabilities with upright and flipped soul tokens as one class (the reader's agreement counts so)."""
    if "soul flipped" not in classes:
        return p
    q = p.copy()
    up, down = classes.index("soul"), classes.index("soul flipped")
    q[:, up] += q[:, down]
    q[:, down] = 0.0
    return q


@pytest.mark.parametrize("kind", ["stands", "slots"])
def test_shipped_weights_read_fresh_renders(kind: str) -> None:
    ps = fresh()
    c = PatchClassifier.load()
    net, x, y = (c.stands, ps.stands, ps.stand_labels) if kind == "stands" else (c.slots, ps.slots, ps.slot_labels)
    assert len(y) > 80 and len(set(y.tolist())) >= 4, np.bincount(y)
    if kind == "stands":
        y = np.where(y == STAND_CLASSES.index("soul flipped"), STAND_CLASSES.index("soul"), y)
    p = merged(net.probs(x), net.classes)
    pred, conf = p.argmax(1), p.max(1) >= 0.9
    accuracy = float((pred == y).mean())
    assert accuracy >= 0.9, f"{kind}: {accuracy:.3f} of {len(y)} fresh patches"
    # what the reader would accept on the classifier's side: confident readings, nearly never wrong
    wrong = float((pred[conf] != y[conf]).mean())
    assert wrong <= 0.05, f"{kind}: {wrong:.3f} of confident readings wrong"  # the rule must agree too
    assert float(conf.mean()) >= 0.75, f"{kind}: only {conf.mean():.2f} confident"


def test_verdict_vetoes_only_a_confident_objection() -> None:
    """The rule's reading stands unless the network is sure of something else or all but rules it out."""
    unsure = np.array([0.3, 0.25, 0.2, 0.15, 0.05, 0.05], np.float32)
    for rule in ("empty", "capital", "basecamp", "soul"):
        assert verdict(unsure, STAND_CLASSES, rule) is None, rule  # unsure of everything: the rule decides
    split = np.array([0.02, 0.01, 0.01, 0.5, 0.45, 0.01], np.float32)
    assert verdict(split, STAND_CLASSES, "soul") is None  # upright or flipped: one reading
    assert "reads soul" in str(verdict(split, STAND_CLASSES, "empty"))
    ruled_out = np.array([0.001, 0.6, 0.399, 0.0, 0.0, 0.0], np.float32)
    assert "rules out" in str(verdict(ruled_out, STAND_CLASSES, "empty"))
    other = np.array([0.01, 0.01, 0.01, 0.01, 0.96], np.float32)
    assert "something else" in str(verdict(other, SLOT_CLASSES, "empty"))


def copy_weights(tmp: Path) -> Path:
    out = tmp / "weights"
    shutil.copytree(shipped(), out, ignore=shutil.ignore_patterns("*.jpg", "*.jpeg"))
    return out


def test_manifest_hashes_every_file(tmp_path: Path) -> None:
    manifest = json.loads((shipped() / MANIFEST).read_text())
    files = [manifest[k][p]["file"] for k in ("stands", "slots") for p in ("body", "head")]
    assert sum((shipped() / f).stat().st_size for f in files) < 1_000_000
    assert manifest["training"]["seed"] != manifest["training"]["val_seed"]
    PatchClassifier.load(copy_weights(tmp_path))  # an intact copy loads


def test_a_corrupt_weights_file_is_named(tmp_path: Path) -> None:
    folder = copy_weights(tmp_path)
    body = folder / "patch_stands.onnx"
    data = bytearray(body.read_bytes())
    data[len(data) // 2] ^= 0xFF
    body.write_bytes(bytes(data))
    with pytest.raises(VisionError, match=r"patch_stands\.onnx: SHA-256 .* does not match"):
        PatchClassifier.load(folder)


def test_a_missing_weights_file_is_named(tmp_path: Path) -> None:
    folder = copy_weights(tmp_path)
    (folder / "patch_slots_head.npz").unlink()
    with pytest.raises(VisionError, match=r"patch_slots_head\.npz: patch classifier file missing"):
        PatchClassifier.load(folder)


def test_a_reader_without_its_classifier_reads_nothing(tmp_path: Path) -> None:
    folder = copy_weights(tmp_path)
    (folder / "patch_stands.onnx").write_bytes(b"garbage")
    reader = BoardReader(layout(), pose(), PALETTE, patches=folder)
    toks = random_tokens(np.random.default_rng(5), fill=0.5)
    obs = reader.read(renderer().render(TableScene(toks), seed=5))
    assert all(o.obstructed and o.confidence == 0.0 for o in obs.stands.values())
    assert all(o.obstructed for o in obs.slots.values())
    assert obs.unreadable is not None and "patch_stands.onnx" in obs.unreadable
    assert "patch_stands.onnx" in str(next(iter(obs.stands.values())).reason)


CLOSE = {"purple": (150, 40, 140), "teal": (140, 140, 30)}  # near the map's magenta and green (the stress bench's)


def test_the_veto_catches_the_two_readings_the_rule_got_wrong() -> None:
    """The categories of the two wrong readings the rule alone accepted: a teal base camp on map-like colours
    read as a capital, and a stand under a phone read as empty. Whatever the rule said there, the network
    vetoes it, and lets the right reading through."""
    lay = layout()
    territory = [s.id for s in lay.stands if s.kind == "territory"]
    camps = {sid: Token("basecamp", "teal" if i % 2 else "purple") for i, sid in enumerate(territory[::2])}
    r = Renderer(lay, pose(), CLOSE)
    frame = r.render(TableScene(camps), seed=61)
    opinion = SecondOpinion.build(None)
    regions = stand_regions(lay, pose())
    opinion.classify(frame, np.ones(3, np.float32), regions, {})
    assert sum(opinion.veto(sid, "capital") is not None for sid in camps) >= 0.8 * len(camps)
    assert sum(opinion.veto(sid, "basecamp") is None for sid in camps) >= 0.8 * len(camps)
    empty = [sid for sid in territory if sid not in camps]
    assert sum(opinion.veto(sid, "capital") is not None for sid in empty) >= 0.8 * len(empty)

    x, y, z = lay.stand_world(empty[0])
    phone = r.render(TableScene(camps, clutter=[Clutter("phone", (x, y, z + 2.0))]), seed=62)
    opinion.classify(phone, np.ones(3, np.float32), {empty[0]: regions[empty[0]]}, {})
    assert "something else" in str(opinion.veto(empty[0], "empty"))


def test_a_veto_needs_the_network_to_have_seen_the_region() -> None:
    opinion = SecondOpinion.build(None)
    assert opinion.veto("T1", "empty") == "not classified"
    broken = SecondOpinion.build(Path("/nonexistent/weights"))
    assert broken.patches is None and "no patch classifier" in str(broken.veto("T1", "empty"))
