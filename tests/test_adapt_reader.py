"""`kipukas-tracker adapt-reader`: labelled frames of one table (a lamp at 4000 K, players' colours the
nominal palette does not know) teach the reader that table's colours, empty regions and piece sizes, and
re-fit the patch classifier's last layers (in numpy) to it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.overhead_support import layout, pose, random_tokens
from tracker.cli import main
from vision.adapt import Adaptation, classifier_features
from vision.board import BoardReader
from vision.patch_adapt import nll, refit
from vision.patch_classifier import PatchClassifier
from vision.regions import slot_regions, stand_regions
from vision.synth import Renderer, TableScene, Token

TABLE_PALETTE = {"red": (30, 110, 235), "blue": (190, 150, 20)}  # this table's "red" is orange, "blue" cyan


def labelled_frames(folder: Path, n: int, seed: int) -> dict[str, dict[str, str]]:
    r = Renderer(layout(), pose(), TABLE_PALETTE)
    labels: dict[str, dict[str, str]] = {}
    for k in range(n):
        toks = random_tokens(np.random.default_rng([seed, k]), fill=0.5)
        clean, _ = r.compose(TableScene(toks), seed=seed * 100 + k)
        frame = r.finish(clean, seed=seed * 100 + k, kelvin=4000.0)
        name = f"frame{k:02d}.jpg"
        cv2.imwrite(str(folder / name), frame)
        labels[name] = {s.id: "empty" if s.id not in toks else f"{toks[s.id].owner} {toks[s.id].kind}"
                        for s in layout().stands}
        labels[name].update({sl.id: "empty" for sl in layout().slots})
    (folder / "labels.json").write_text(json.dumps(labels))
    return labels


@pytest.mark.slow
def test_adapting_to_a_table_reads_its_pieces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labelled_frames(tmp_path, 6, seed=71)
    out = tmp_path / "adapt.npz"
    assert main(["adapt-reader", "--frames", str(tmp_path), "--out", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["frames"] == 6 and report["empty_regions"] >= len(layout().stands) - 3, report
    assert report["stands_read_after"] >= 0.95, report
    for kind in ("stands", "slots"):
        fig = report["classifier"][kind]
        assert fig["regions"] > 0 and fig["log_loss_after"] < fig["log_loss_before"], report
    adaptation = Adaptation.load(out)
    assert adaptation.stand_head is not None and adaptation.slot_head is not None
    for owner, bgr in TABLE_PALETTE.items():
        learned = np.asarray(adaptation.palette[owner], float)
        assert np.linalg.norm(learned / learned.sum() - np.asarray(bgr, float) / sum(bgr)) < 0.06, owner
    # a fresh frame of the same table, never labelled: read by a reader that knows only the adaptation
    toks = {"T1": Token("capital", "red"), "T4": Token("basecamp", "blue"), "M1": Token("soul", "red")}
    r = Renderer(layout(), pose(), TABLE_PALETTE)
    frame = r.finish(r.compose(TableScene(toks), seed=7201)[0], seed=7201, kelvin=4000.0)
    nominal = {"red": (40, 40, 210), "blue": (200, 90, 30)}
    obs = BoardReader(layout(), pose(), nominal, adaptation=adaptation).read(frame)
    for sid, tok in toks.items():
        assert (obs.stands[sid].state, obs.stands[sid].owner) == (tok.kind, tok.owner), sid


def test_bad_labels_are_refused_naming_the_region(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cv2.imwrite(str(tmp_path / "a.jpg"), np.zeros((1520, 2028, 3), np.uint8))
    (tmp_path / "labels.json").write_text(json.dumps({"a.jpg": {"T1": "red castle"}}))
    assert main(["adapt-reader", "--frames", str(tmp_path), "--out", str(tmp_path / "x.npz")]) == 2
    assert "stand 'T1': 'red castle'" in capsys.readouterr().err


def test_a_corrupt_adaptation_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "adapt.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(Exception, match=r"adapt\.npz: not a reader adaptation file"):
        Adaptation.load(bad)


def test_refitting_the_classifier_helps_on_frames_it_never_saw(tmp_path: Path) -> None:
    """The re-fitted last layers read held-out frames of the same table better (lower log-loss), and a
    reader built with them still accepts what it should."""
    train_dir, held_dir = tmp_path / "train", tmp_path / "held"
    train_dir.mkdir()
    held_dir.mkdir()
    labelled_frames(train_dir, 5, seed=73)
    labelled_frames(held_dir, 2, seed=74)
    from vision.adapt import load_frames

    patches = PatchClassifier.load()
    regions = stand_regions(layout(), pose()), slot_regions(layout(), pose())
    fit = classifier_features(load_frames(train_dir), patches, *regions)
    held = classifier_features(load_frames(held_dir), patches, *regions)
    f, labels = fit["stands"]
    head = refit(patches.stands, f, labels)
    hf, hl = held["stands"]
    before, after = nll(patches.stands.head, hf, hl, patches.stands.classes), nll(head, hf, hl, patches.stands.classes)
    assert after < before, (before, after)
    assert refit(patches.stands, f[:0], []) is patches.stands.head  # nothing labelled: nothing changes
