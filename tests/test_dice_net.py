"""The dice face network (issue 21, item 2): its weights are checked before use (a missing or corrupt file is
an error naming it, and the reader then says "unknown" for every face, never guesses), it runs under
OpenCV's `cv2.dnn`, and on a fresh seeded set of renders (poses, dice, light and seeds the network was
neither trained nor tuned on) it accepts no wrong face and reads at least what it read when these
weights were shipped."""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.dice import DiceReader
from vision.dice_crop import CROP_PX
from vision.dice_net import MANIFEST, class_names, load_face_net, packaged_face_net
from vision.errors import VisionError
from vision.synth import Renderer, TableScene
from vision.synth.dice import Die, area_pose, draw_die, random_die

ASSETS = Path(__file__).resolve().parents[1] / "vision" / "assets"
PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}
# seeds of this test's renders: not the training sessions (22xxxx), nor the bench's (1xxxxxx-4xxxxxx)
SEEDS = range(6_000, 6_010)
# measured 20/20, 20/20 and 7/20 read here with the shipped weights (issue 21 round 6: retrained on 3x the D20
# crops, each crop read at its die's symmetric turns) and acceptance (0.9 / 0.976 / 0.997: the most confident
# wrong guess of bench seed 1 and of the calibration crops plus a fifth of the way to 1, the D20's then raised
# above a wrong reading on report seed 3; docs/dice.md); the previous weights read 20, 19 and 3 (old set
# 5000-5009: 20, 20, 6 now). The D20 target is not met, and no wrong face may be accepted
# Round 7 (fine-tuned on dim and glaring cubes, acceptance 0.9 / 0.9 / 0.997): 20/20, 20/20, 7/20 here too
FLOOR = {"diel": 0.95, "d6": 0.95, "d20": 0.3}


def copy_assets(tmp_path: Path) -> Path:
    manifest = json.loads((ASSETS / MANIFEST).read_text())
    for name in (MANIFEST, manifest["model"]):
        shutil.copy(ASSETS / name, tmp_path / name)
    return tmp_path


def test_the_shipped_weights_are_small_checked_and_run_by_opencv() -> None:
    manifest = json.loads((ASSETS / MANIFEST).read_text())
    assert (ASSETS / manifest["model"]).stat().st_size < 1_000_000
    assert manifest["training"]["command"].startswith("nice -n 10")
    net = packaged_face_net()
    assert net.classes == class_names() and len(net.classes) == 29
    p = net.probabilities([np.zeros((CROP_PX, CROP_PX), np.float32), np.ones((CROP_PX, CROP_PX), np.float32)])
    assert p.shape == (2, 29) and np.allclose(p.sum(axis=1), 1.0, atol=1e-4)


def test_a_missing_or_corrupt_file_is_named_and_the_reader_says_unknown(tmp_path: Path) -> None:
    folder = copy_assets(tmp_path)
    model = folder / json.loads((folder / MANIFEST).read_text())["model"]
    raw = bytearray(model.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    model.write_bytes(bytes(raw))
    with pytest.raises(VisionError, match=r"dice_faces\.onnx: SHA-256 .* corrupt"):
        load_face_net(folder)
    model.unlink()
    with pytest.raises(VisionError, match=r"dice_faces\.onnx: .* missing"):
        load_face_net(folder)
    (folder / MANIFEST).unlink()
    with pytest.raises(VisionError, match=r"dice_faces\.json: .* missing"):
        load_face_net(folder)
    layout = table_layout(BoardMap.packaged())
    pose = area_pose(default_pose(layout, image_size=(2028, 1520)), layout)
    renderer = Renderer(layout, pose, PALETTE)
    reader = DiceReader(layout, pose, PALETTE, renderer.render(TableScene({}), seed=7), net_folder=folder)
    assert reader.net is None and "dice_faces.json" in reader.net_error
    frame, _ = renderer.compose(TableScene({}), 3)
    rng = np.random.default_rng(3)
    draw_die(frame, renderer, random_die("d6", PALETTE["red"], (400.0, -60.0), rng), rng)
    [die] = [d for d in reader.read(renderer.finish(frame, 3)).dice if math.dist(d.centre_mm, (400.0, -60.0)) < 6]
    assert die.face is None and die.owner == "red" and "dice_faces.json" in die.why


def test_fresh_seeded_renders_are_read_per_kind_with_no_wrong_face_accepted() -> None:
    layout = table_layout(BoardMap.packaged())
    assert layout.roll_area_mm is not None
    x0, y0, x1, y1 = layout.roll_area_mm
    pose = area_pose(default_pose(layout, image_size=(2028, 1520)), layout)  # the table's camera, its area only
    renderer = Renderer(layout, pose, PALETTE)
    reader = DiceReader(layout, pose, PALETTE, renderer.render(TableScene({}), seed=7))
    count: Counter[tuple[str, str]] = Counter()
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        dice: list[Die] = []
        for i, kind in enumerate(("diel", "d6", "d20", "d6", "diel", "d20")):
            at = (x0 + 25 + (i % 3) * (x1 - x0 - 50) / 2 + rng.uniform(-8, 8),
                  y0 + 28 + (i // 3) * (y1 - y0 - 56) + rng.uniform(-5, 5))
            dice.append(random_die(kind, PALETTE[("red", "blue")[i % 2]], at, rng))
        frame, _ = renderer.compose(TableScene({}), seed)
        for die in dice:
            draw_die(frame, renderer, die, rng)
        got = reader.read(renderer.finish(frame, seed, kelvin=float(rng.uniform(2700, 7500)),
                                          lighting=float(rng.uniform(0.6, 1.2))))
        for die in dice:
            [seen] = [d for d in got.dice if math.dist(d.centre_mm, die.at_mm) < 6.0]
            if seen.face is None:
                count[(die.kind, "unknown")] += 1
                assert seen.why
                continue
            assert (seen.kind, seen.face) == (die.kind, die.face), f"seed {seed}: {die} read as {seen}"
            count[(die.kind, "read")] += 1
    for kind, floor in FLOOR.items():
        n = count[(kind, "read")] + count[(kind, "unknown")]
        assert n == 20 and count[(kind, "read")] / n >= floor, (kind, count)
