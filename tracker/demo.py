"""The built-in demo table: renders the scripted game with `vision.synth`, reads it back with
`vision.board`, and drives the real table loop, so the demo exercises the whole pipeline."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from calibration.camera import default_pose
from rules.board_map import BoardMap
from tracker.demo_script import Step, demo_steps
from tracker.layout import table_layout
from tracker.loop import OverheadLoop
from tracker.service import Table
from vision.board import BoardReader
from vision.synth import Renderer, TableScene, Token

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
            scene_tokens = {s: Token(kind, owner, count) for s, (kind, owner, count) in step.tokens.items()}
            for k in range(self.hand_frames + self.settled_frames):
                hands = 1 if (k < self.hand_frames and index > 0) else 0
                n += 1
                frame = self.renderer.render(TableScene(scene_tokens, {}, hands), seed=self.seed * 100_000 + n)
                yield index, step, k == 0, frame


class DemoTable:
    """The demo pipeline; `run()` plays the script (in a loop when `repeat`), pacing frames at `fps`."""

    def __init__(self, fps: float | None = 4.0, repeat: bool = True, linger_s: float = 8.0,
                 hand_frames: int = 2, settled_frames: int = 4) -> None:
        self.board = BoardMap.packaged()
        self.table = Table(self.board, players=tuple(PALETTE))
        layout = table_layout(self.board)
        pose = default_pose(layout, image_size=DEMO_IMAGE_SIZE)
        self.renderer = Renderer(layout, pose, PALETTE)
        self.reader = BoardReader(layout, pose, PALETTE)
        self.fps = fps
        self.hand_frames = hand_frames
        self.settled_frames = settled_frames
        self.repeat = repeat
        self.linger_s = linger_s
        self.stop = threading.Event()
        self.rounds = 0
        self.step_index = -1

    def run(self) -> None:
        while not self.stop.is_set():
            self._play_once()
            self.rounds += 1
            if not self.repeat or self.stop.wait(self.linger_s):
                return
            self.table.reset()

    def _play_once(self) -> None:
        loop = OverheadLoop(self.table, self.reader)
        period = 1.0 / self.fps if self.fps else 0.0
        for index, step, first, frame in DemoFrames(self.renderer, demo_steps(), self.hand_frames,
                                                            self.settled_frames, seed=self.rounds).frames():
            started = time.monotonic()
            if self.stop.is_set():
                return
            if first:
                self.step_index = index
                for d in step.declare:
                    self.table.declare_soul(f"phone:{d.owner}", d.owner, d.payload, d.stand)
            loop.process(frame)
            if period:
                self.stop.wait(max(0.0, period - (time.monotonic() - started)))

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="demo-table", daemon=True)
        thread.start()
        return thread
