"""A candidate D20 numeral network (issue 21 round 10, `vision.dice_d20`): its checks, and the reader without
one. Round 10's network did not beat the face network at 0 wrong (docs/dice.md), so none is shipped; these
check that a candidate's file is checked and named, and that the reader keeps the face network's reading."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.dice import DiceReader
from vision.dice_crop import CROP_PX
from vision.dice_d20 import D20_FORMAT, D20_MANIFEST, NUMERALS, load_d20_net
from vision.errors import VisionError
from vision.synth import Renderer, TableScene
from vision.synth.dice import area_pose, draw_die, random_die

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}


def candidate(folder: Path, raw: bytes, digest: str) -> Path:
    (folder / "dice_d20.onnx").write_bytes(raw)
    (folder / D20_MANIFEST).write_text(json.dumps({
        "format": D20_FORMAT, "model": "dice_d20.onnx", "sha256": digest, "classes": list(NUMERALS),
        "input": {"px": CROP_PX}, "temperature": 0.74, "accept": 0.98}))
    return folder


def read_one_d20(d20_folder: Path | None) -> tuple[DiceReader, str, str]:
    layout = table_layout(BoardMap.packaged())
    pose = area_pose(default_pose(layout, image_size=(2028, 1520)), layout)
    renderer = Renderer(layout, pose, PALETTE)
    reader = DiceReader(layout, pose, PALETTE, renderer.render(TableScene({}), seed=7), d20_folder=d20_folder)
    frame, _ = renderer.compose(TableScene({}), 5)
    rng = np.random.default_rng(5)
    draw_die(frame, renderer, random_die("d20", PALETTE["blue"], (400.0, -60.0), rng), rng)
    [die] = [d for d in reader.read(renderer.finish(frame, 5)).dice if math.dist(d.centre_mm, (400.0, -60.0)) < 6]
    assert die.shape == "icosahedron"
    return reader, die.guess, die.why


def test_a_corrupt_or_missing_candidate_is_named(tmp_path: Path) -> None:
    raw = b"not the weights the manifest was written for"
    folder = candidate(tmp_path, raw, hashlib.sha256(b"other weights").hexdigest())
    with pytest.raises(VisionError, match=r"dice_d20\.onnx: SHA-256 .* corrupt"):
        load_d20_net(folder)
    candidate(tmp_path, raw, hashlib.sha256(raw).hexdigest())
    with pytest.raises(VisionError, match=r"dice_d20\.onnx: OpenCV cannot load it"):
        load_d20_net(folder)
    (folder / "dice_d20.onnx").unlink()
    with pytest.raises(VisionError, match=r"dice_d20\.onnx: .* missing"):
        load_d20_net(folder)
    (folder / D20_MANIFEST).write_text(json.dumps({"format": "kipukas-dice-net/1"}))
    with pytest.raises(VisionError, match=r"dice_d20\.json: expected format"):
        load_d20_net(folder)
    (folder / D20_MANIFEST).unlink()
    with pytest.raises(VisionError, match=r"dice_d20\.json: .* missing"):
        load_d20_net(folder)


def test_the_reader_keeps_the_face_networks_d20_reading_without_a_working_candidate(tmp_path: Path) -> None:
    reader, guess, _ = read_one_d20(None)
    assert reader.d20 is None and guess.startswith("d20:")
    raw = b"\x00" * 64
    folder = candidate(tmp_path, raw, hashlib.sha256(b"something else").hexdigest())
    broken, broken_guess, _ = read_one_d20(folder)
    assert broken.d20 is None and "dice_d20.onnx" in broken.d20_error and broken.net is not None
    assert broken_guess == guess  # the face network's own reading, unchanged
