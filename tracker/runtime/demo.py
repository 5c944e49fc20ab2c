"""The built-in demo table: renders the scripted game with `vision.synth`, reads it back with
`vision.board`, and drives the real table (rules engine, hash-chained record) and its web service, so
the demo exercises the whole pipeline. Each round writes a fresh record into the demo's folder."""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from calibration.calfile import Calibration
from calibration.camera import default_pose
from rules.board_map import BoardMap
from tracker.overhead.calibration_service import CalibrationService
from tracker.overhead.layout import table_layout
from tracker.record.store import GameRecord
from tracker.runtime.demo_script import DECKS, Step, demo_steps
from tracker.service.service import TableService
from tracker.table.loop import OverheadLoop
from tracker.table.table import Table
from vision.board import BoardReader
from vision.synth import Renderer, SlotCard, TableScene, Token

PALETTE: dict[str, tuple[int, int, int]] = {"red": (40, 40, 210), "blue": (200, 90, 30)}
DEMO_IMAGE_SIZE = (2028, 1520)  # the Pi HQ camera binned mode the overhead reader is tuned for


@dataclass
class DemoFrames:
    """Frames of the scripted game: each step shows hands over the table, then the settled board."""

    renderer: Renderer
    steps: list[Step]
    hand_frames: int = 2
    settled_frames: int = 4
    seed: int = 0

    def frames(self) -> Iterator[tuple[int, Step, bool, np.ndarray]]:
        """Yield (step index, step, first frame of the step?, frame)."""
        n = 0
        for index, step in enumerate(self.steps):
            tokens = {s: Token(kind, owner, count) for s, (kind, owner, count) in step.tokens.items()}
            slots = {slot: [SlotCard(face, payload) for face, payload in cards] for slot, cards in step.cards.items()}
            for k in range(self.hand_frames + self.settled_frames):
                hands = 1 if k < self.hand_frames else 0
                n += 1
                yield index, step, k == 0, self.renderer.render(TableScene(tokens, slots, hands),
                                                                seed=self.seed * 100_000 + n)


def begin_step(table: Table, step: Step) -> None:
    """What the players do off the map when a step begins: phone actions, and cards shown to the front camera."""
    for line in step.say:
        table.act(f"phone:{line.split()[0]}", line)
    for card in step.shown:
        table.shown("front", card)


class DemoTable:
    """The demo pipeline; `run()` plays the script (again and again when `repeat`), pacing frames at `fps`."""

    def __init__(self, fps: float | None = 4.0, repeat: bool = True, linger_s: float = 10.0,
                 hand_frames: int = 2, settled_frames: int = 4, folder: Path | None = None) -> None:
        self.board = BoardMap.packaged()
        layout = table_layout(self.board)
        pose = default_pose(layout, image_size=DEMO_IMAGE_SIZE)
        self.layout, self.pose = layout, pose
        self.renderer = Renderer(layout, pose, PALETTE)
        # A frame of the empty table lets the reader tell a hand from a piece (0 false changes vs 2.3 %).
        self.reference = self.renderer.render(TableScene({}), seed=7)
        self.reader = BoardReader(layout, pose, PALETTE, reference=self.reference)
        self.folder = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="kipukas-demo-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.key = Ed25519PrivateKey.generate()
        self.fps, self.repeat, self.linger_s = fps, repeat, linger_s
        self.hand_frames, self.settled_frames = hand_frames, settled_frames
        self.stop = threading.Event()
        self.rounds = 0
        self.step_index = -1
        self.table = self._new_table()
        self.service = TableService(self.table)
        self.latest: np.ndarray | None = None
        self.palette = dict(PALETTE)
        self.service.calibration = CalibrationService(layout, lambda: self.latest, lambda: self.pose,
                                                      self._calibrated_by_hand, self._colours_learned,
                                                      lambda: self.palette)

    def _colours_learned(self, palette: dict[str, tuple[int, int, int]]) -> None:
        self.palette = {**self.palette, **palette}
        self._new_reader()

    def _calibrated_by_hand(self, cal: Calibration) -> None:
        """The calibration page moved the corners: read the synthetic table with the new pose."""
        self.pose = cal.pose
        self._new_reader()

    def _new_reader(self) -> None:
        self.reader = BoardReader(self.layout, self.pose, self.palette, reference=self.reference)

    def _new_table(self) -> Table:
        record = GameRecord(str(self.folder / f"demo-{self.rounds + 1:03d}.sqlite"), self.key)
        return Table(self.board, record, DECKS)

    def run(self) -> None:
        while not self.stop.is_set():
            self._play_once()
            self.rounds += 1
            if not self.repeat or self.stop.wait(self.linger_s):
                return
            self.table = self._new_table()
            self.service.replace(self.table)

    def _play_once(self) -> None:
        loop = OverheadLoop(self.table, self.reader)
        period = 1.0 / self.fps if self.fps else 0.0
        frames = DemoFrames(self.renderer, demo_steps(), self.hand_frames, self.settled_frames, seed=self.rounds)
        for index, step, first, frame in frames.frames():
            started = time.monotonic()
            if self.stop.is_set():
                return
            if first:
                self.step_index = index
                begin_step(self.table, step)
            self.latest = frame
            loop.reader = self.reader
            loop.process(frame)
            if period:
                self.stop.wait(max(0.0, period - (time.monotonic() - started)))

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="demo-table", daemon=True)
        thread.start()
        return thread
