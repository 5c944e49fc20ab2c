"""The tile-map table's overhead pose follows the table (issue 22 item 4), as on a Kipukas table: rendered
frames of a tile board whose camera is bumped during play are read with a re-posed camera (the pages say
so, the reading stays true and a move after the bump is still recorded), the new pose and empty-board frame
are saved for a restart, and a camera that no longer sees the table makes the board unreadable: no reading
is taken until it is found again, and reading resumes when it is."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from calibration.calfile import Calibration, load_calibration
from calibration.camera import CameraPose, default_pose
from calibration.procedure import drift_px
from tracker.config import parse_config
from tracker.overhead.pose_watch import UNREADABLE
from tracker.overhead.tiles import load
from tracker.record.keys import load_or_create_key
from tracker.record.store import GameRecord
from tracker.runtime.tile_camera import TileCamera, reference_of
from tracker.runtime.watchdog import Watchdog
from tracker.sources.capture import Frame
from tracker.table.games import GameTable
from vision.synth import Renderer, TableScene, Token

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}
START = {"d1": Token("capital", "red"), "d7": Token("capital", "blue")}
MOVED = {"d2": Token("capital", "red"), "d7": Token("capital", "blue")}


def bump(p: CameraPose, turn_deg: tuple[float, float, float], shift_mm: tuple[float, float, float]) -> CameraPose:
    R, _ = cv2.Rodrigues(p.rvec)
    dR, _ = cv2.Rodrigues(np.radians(np.array(turn_deg, float)))
    r, _ = cv2.Rodrigues(dR @ R)
    return CameraPose(p.K, p.dist, np.asarray(r, np.float64), p.tvec + np.array(shift_mm, float).reshape(3, 1),
                      p.image_size)


@lru_cache(maxsize=4)
def render(pose_key: str, scene: str, seed: int) -> np.ndarray:
    layout = load("skirmish").table_layout()
    p0 = default_pose(layout)
    pose = {"p0": p0, "bumped": bump(p0, (1.0, 0.5, 1.0), (15.0, 10.0, 5.0))}[pose_key]
    tokens = {"empty": {}, "start": START, "moved": MOVED}[scene]
    return Renderer(layout, pose, PALETTE).render(TableScene(tokens), seed=seed)


def table_at_d1(tmp_path: Path) -> GameTable:
    """A skirmish game where red's upkeep draws are done: red's unit on d1 may move, blue's stands on d7."""
    record = GameRecord(str(tmp_path / "t.sqlite"), load_or_create_key(tmp_path / "state"))
    table = GameTable.start(record, "tilemap", {"map": "skirmish", "seats": ["red", "blue"]})
    for line in ("red draw MILITIA", "red draw MILITIA", "red draw SPARK", "red draw ARCHER"):
        assert table.act(line, "phone:red").accepted
    return table


def test_a_bumped_tile_camera_is_re_posed_and_keeps_reading_true(tmp_path: Path) -> None:
    layout = load("skirmish")
    p0 = default_pose(layout.table_layout())
    p1 = bump(p0, (1.0, 0.5, 1.0), (15.0, 10.0, 5.0))
    assert drift_px(p0, p1, layout.table_layout()) > 10.0
    empty = render("p0", "empty", 1)
    cal = tmp_path / "calibration.json"
    Calibration(p0, "manual", 0.0, 0).save(cal)
    cv2.imwrite(str(cal.with_suffix(".empty.png")), empty)
    table = table_at_d1(tmp_path)
    cfg = parse_config(f'[table]\nplayers = ["red", "blue"]\n[overhead]\nsource = "folder"\npath = "{tmp_path}"\n'
                       f'[tracking]\ncalibration = "{cal}"\nframes_to_agree = 1\n[game]\nname = "tilemap"\n')
    camera = TileCamera.build(cfg, table, tmp_path / "state", lambda: table, Watchdog(stall_s=20.0),
                              threading.Event())
    assert camera is not None
    truth = {t: START[t].owner if t in START else None for t in layout.tiles()}
    bumped = render("bumped", "start", 3)
    camera.process(Frame(0, 0.0, render("p0", "start", 2)))
    last = table.record.last_seq
    assert table.observed == truth and table.differences == []
    camera.process(Frame(1, 0.05, bumped))
    assert any("re-posed automatically" in w for w in table.warnings), table.warnings
    assert drift_px(camera.pose, p1, layout.table_layout()) < 3.0
    assert table.record.last_seq == last and table.differences == [] and table.questions == []  # nothing new
    # the red unit moves d1 -> d2 after the bump: still its one legal move, from the camera
    camera.process(Frame(2, 0.10, render("bumped", "moved", 4)))
    rows = list(table.record.rows(after=last))
    assert [(r.kind, r.source, r.body.get("text")) for r in rows] == [
        ("board", "overhead", None), ("action", "overhead", "red move d1-d2")]
    assert rows[1].body["accepted"]
    # the re-posed calibration and the empty board warped to it are what a restart reads
    assert drift_px(load_calibration(cal).pose, p1, layout.table_layout()) < 3.0
    saved = reference_of(cal)
    assert saved is not None and saved.shape == empty.shape and not np.array_equal(saved, empty)


def test_a_tile_camera_that_lost_the_table_takes_no_reading(tmp_path: Path) -> None:
    layout = load("skirmish")
    p0 = default_pose(layout.table_layout())
    table = table_at_d1(tmp_path)
    cfg = parse_config('[table]\nplayers = ["red", "blue"]\n[tracking]\nframes_to_agree = 1\n')
    now = [0.0]
    camera = TileCamera(cfg, layout, p0, PALETTE, render("p0", "empty", 1), lambda: table, Watchdog(stall_s=20.0),
                        threading.Event(), clock=lambda: now[0])
    camera.process(Frame(0, 0.0, render("p0", "start", 2)))
    last = table.record.last_seq
    # knocked to face a plain wall: a smooth gradient with no design to find the table by; the patches'
    # quick look sees no shift in it, so the full check every few seconds is what notices
    ramp = np.linspace(90, 150, 2028, dtype=np.float64)[None, :, None] + np.zeros((1520, 1, 3))
    wall = np.asarray(ramp, np.uint8)
    for n in range(3):
        now[0] = 6.0 + n
        camera.process(Frame(1 + n, now[0], wall))
    assert [w for w in table.warnings if w.startswith(UNREADABLE)] and table.record.last_seq == last
    assert camera.watch.lost
    assert table.observed == {t: START[t].owner if t in START else None for t in layout.tiles()}
    # put back: the next full check finds the table where the calibration says, and reading resumes
    now[0] = 12.0
    camera.process(Frame(4, now[0], render("p0", "moved", 5)))
    assert not camera.watch.lost and "tracking resumes" in table.warnings[-1]
    assert [r.body.get("text") for r in table.record.rows(after=last)] == [None, "red move d1-d2"]
