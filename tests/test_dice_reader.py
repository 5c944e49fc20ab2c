"""The dice reader (issue 21, items 1 and 2) on seeded renders and on the three real pictures: it finds the
dice in the roll area, tells cube from D20 and the seat by colour, reads the face or says unknown, never
accepts a wrong face; a hand in the area is a hand, not dice. The bench (bench/bench_dice.py) measures the
rates; these tests hold what must never happen."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import default_pose
from calibration.errors import CalibrationFileError
from calibration.layout import load_mat, parse_mat
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.dice import DiceReader
from vision.dice_faces import FACES, mark
from vision.synth import Renderer, TableScene
from vision.synth.dice import Die, RollScene, random_die, render_roll
from vision.warp import paste, scale, translate

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}
SHARED = Path(__file__).resolve().parents[2] / "shared" / "kipukas" / "images"
LABELS = Path(__file__).resolve().parent / "data" / "dice_real.json"


@pytest.fixture(scope="module")
def setup() -> tuple[Renderer, DiceReader]:
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout, image_size=(2028, 1520))
    renderer = Renderer(layout, pose, PALETTE)
    return renderer, DiceReader(layout, pose, PALETTE, renderer.render(TableScene({}), seed=7))


def test_dice_at_rest_are_found_and_never_read_wrong(setup: tuple[Renderer, DiceReader]) -> None:
    renderer, reader = setup
    read = 0
    for seed in (101, 102):
        rng = np.random.default_rng(seed)
        dice = [random_die(k, PALETTE[s], xy, rng) for k, s, xy in
                (("d6", "red", (360.0, -60.0)), ("diel", "blue", (450.0, -45.0)), ("d20", "red", (520.0, -75.0)))]
        got = reader.read(render_roll(renderer, RollScene(dice=dice), seed=seed))
        assert not got.hand and len(got.dice) == 3
        for die in dice:
            [seen] = [d for d in got.dice if math.dist(d.centre_mm, die.at_mm) < 6.0]
            assert seen.inside and seen.owner == ("red" if die.colour == PALETTE["red"] else "blue")
            if seen.face is not None:
                assert (seen.kind, seen.face) == (die.kind, die.face)
                read += 1
            else:
                assert seen.why  # unknown says why
    assert read >= 2


def test_a_hand_over_the_area_is_no_roll_and_a_die_outside_is_marked(setup: tuple[Renderer, DiceReader]) -> None:
    renderer, reader = setup
    rng = np.random.default_rng(5)
    die = random_die("d6", PALETTE["red"], (420.0, -60.0), rng)
    hand = reader.read(render_roll(renderer, RollScene(dice=[die], hands_at=[(420.0, -60.0)]), seed=5))
    assert hand.hand
    out = random_die("d20", PALETTE["blue"], (580.0, -60.0), rng)  # 20 mm beyond the area's right edge
    got = reader.read(render_roll(renderer, RollScene(dice=[out]), seed=6))
    assert [d.inside for d in got.dice] == [False]


def test_the_real_pictures_are_read_as_labelled_or_unknown(setup: tuple[Renderer, DiceReader]) -> None:
    renderer, reader = setup
    labels = json.loads(LABELS.read_text())["dice"]
    if not (SHARED / labels[0]["file"]).is_file():
        pytest.fail(f"{SHARED} is missing: the real pictures live in ../shared beside the checkout")
    base, _ = renderer.compose(TableScene({}), 9)
    frame = base.copy()
    for i, label in enumerate(labels):
        img = cv2.imread(str(SHARED / label["file"]))
        x0, y0, x1, y1 = label["die_px"]
        crop = np.ascontiguousarray(img[y0:y1, x0:x1])
        white = (crop.astype(np.int32).sum(axis=2) > 700).astype(np.float32)
        alpha = np.clip(1.0 - cv2.GaussianBlur(white, (0, 0), 2.0), 0, 1).astype(np.float32)
        k = 20.0 / crop.shape[1]  # the die about 20 mm across: about 40 px in the frame
        at = (360.0 + 80 * i - 10.0, -70.0)
        paste(frame, crop, alpha, renderer.plane(17.0) @ translate(*at) @ scale(k))
    got = reader.read(renderer.finish(frame, 9))
    for i, label in enumerate(labels):
        near = [d for d in got.dice if math.dist(d.centre_mm, (360.0 + 80 * i, -60.0)) < 15.0]
        for d in near:  # the real dice are yellow, orange, green: no seat's colour, so never accepted
            assert not d.known or d.face == label["up"]
            assert d.owner is None and d.why


def test_every_face_mark_differs_and_a_bad_face_is_refused() -> None:
    for kind, faces in FACES.items():
        marks = [mark(kind, f, 32) for f in faces]
        for i in range(len(marks)):
            for j in range(i + 1, len(marks)):
                assert float(np.abs(marks[i] - marks[j]).sum()) > 5.0, (kind, faces[i], faces[j])
    with pytest.raises(ValueError, match="no face"):
        mark("d6", "7", 32)
    with pytest.raises(ValueError, match="no face"):
        Die("diel", "sun", (0, 0, 0), (0.0, 0.0)) and render_roll(  # the notation's words: day, night, storm
            Renderer(table_layout(BoardMap.packaged()), default_pose(table_layout(BoardMap.packaged()),
                                                                     image_size=(640, 480)), PALETTE),
            RollScene(dice=[Die("diel", "sun", (0, 0, 0), (400.0, -60.0))]))


def test_the_roll_area_is_configured_in_the_mat_file() -> None:
    mat = load_mat()
    assert mat.roll_area_mm == (300.0, -112.0, 560.0, -8.0)
    data = {"format": "kipukas-mat/1", "name": "m", "image": "x.jpg", "image_px": [100, 100], "size_mm": [100, 100],
            "map_square_px": [0, 0, 10, 10], "slots": [{"id": "1", "rect_px": [0, 0, 10, 10]}],
            "roll_area_mm": [0, 0, 10, 10]}
    with pytest.raises(CalibrationFileError, match="roll_area_mm"):
        parse_mat("m.json", data)


def test_the_calibration_overlay_draws_the_roll_area() -> None:
    from calibration.overlay import draw_overlay

    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout, image_size=(2028, 1520))
    blank = np.zeros((1520, 2028, 3), np.uint8)
    drawn = draw_overlay(blank, layout, pose)
    x0, y0, _, _ = layout.roll_area_mm or (0.0, 0.0, 0.0, 0.0)
    corner = pose.project(np.array([[x0, y0, 0.0]]))[0]
    patch = drawn[int(corner[1]) - 3:int(corner[1]) + 4, int(corner[0]) - 3:int(corner[0]) + 4]
    assert (patch == (255, 160, 0)).all(axis=2).any()  # the roll area's outline, in its colour
