"""`run` reads dice (issue 21): the appliance's composition wires the roll area's reader and the desk into
the overhead loop, with no photo of the empty roll area: the reader learns the empty area from the first
still frames, then a D6 thrown for the capital roll-off becomes "read 5 - confirm" on the phones. The
empty model also heals when it was learned with a die lying in the area."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tests.table_helpers import KEY
from tracker.config import parse_config
from tracker.overhead.layout import table_layout
from tracker.record.store import GameRecord
from tracker.runtime.appliance import TableRuntime
from tracker.runtime.demo_script import DECKS
from tracker.sources.capture import Frame
from tracker.table.table import Table
from vision.dice import DiceReader
from vision.synth import Renderer, TableScene
from vision.synth.dice import Die, area_pose, draw_die


def noisy(frame: np.ndarray, seed: int) -> np.ndarray:
    """The same view again, with the sensor's fresh noise (consecutive frames of a still scene)."""
    noise = np.random.default_rng(seed).normal(0.0, 2.0, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def test_run_reads_a_roll_off_die_without_a_photo_of_the_empty_area(tmp_path: Path) -> None:
    decks = {p: list(c) for p, c in DECKS.items()}
    table = Table(BoardMap.packaged(), GameRecord(str(tmp_path / "g.sqlite"), KEY), decks)
    for line in ("red affinity Avian", "blue affinity Decrepit"):  # the D6 roll-off is due
        assert table.act(f"phone:{line.split()[0]}", line).accepted
    runtime = TableRuntime(parse_config("[recording]\nkeyframes = false\n"), table, tmp_path)
    assert runtime.dice_reader is not None and runtime.dice_reader.empty.model is None
    layout = table_layout(table.board)
    renderer = Renderer(layout, default_pose(layout, image_size=(2028, 1520)), runtime.palette)
    base, _ = renderer.compose(TableScene({}), 4)
    with_die = base.copy()
    rng = np.random.default_rng(4)
    draw_die(with_die, renderer, Die("d6", "5", runtime.palette["red"], (420.0, -58.0), 30.0), rng)
    empty, rolled = renderer.finish(base, 4), renderer.finish(with_die, 4)
    frames = [noisy(empty, i) for i in range(5)] + [noisy(rolled, 10 + i) for i in range(5)]
    runtime.dog.watch("overhead camera")
    runtime._frames = lambda name, cam: iter(Frame(i, i / 15, f) for i, f in enumerate(frames))  # type: ignore[method-assign]
    runtime.overhead_loop()
    assert not [w for w in table.warnings if "stopped" in w]
    assert runtime.dice_reader is not None and runtime.dice_reader.empty.learned
    [pending] = runtime.desk.pending
    assert (pending.player, pending.text, pending.label) == ("red", "red roll d6 5", "read 5")
    [row] = [e for e in table.entries() if e.kind == "dice"]
    assert row.source == "overhead"


def test_an_empty_model_learned_with_a_die_in_it_heals_when_the_die_is_picked_up() -> None:
    layout = table_layout(BoardMap.packaged())
    palette = {"red": (40, 40, 210), "blue": (200, 90, 30)}
    pose = area_pose(default_pose(layout, image_size=(2028, 1520)), layout)
    renderer = Renderer(layout, pose, palette)
    reader = DiceReader(layout, pose, palette, reference=None)
    base, _ = renderer.compose(TableScene({}), 8)
    left = base.copy()
    rng = np.random.default_rng(8)
    draw_die(left, renderer, Die("d20", "7", palette["blue"], (340.0, -60.0), 10.0), rng)
    lying = renderer.finish(left, 8)
    for i in range(3):  # the area still, a die lying in it: it becomes part of the model
        assert reader.read(noisy(lying, i)).empty
    assert reader.empty.learned
    thrown = base.copy()
    draw_die(thrown, renderer, Die("d6", "2", palette["red"], (470.0, -60.0), 50.0), rng)
    first = reader.read(noisy(renderer.finish(thrown, 8), 5))  # the d20 picked up, a d6 thrown
    assert [d.centre_mm[0] > 450 for d in first.dice] == [True]  # the hole the d20 left is not a die
    again = reader.read(noisy(renderer.finish(thrown, 8), 6))
    assert len(again.dice) == 1 and again.dice[0].owner == "red" and not again.unresolved
