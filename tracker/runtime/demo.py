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

import cv2
import numpy as np

from calibration.calfile import Calibration
from calibration.camera import CameraPose, default_pose
from calibration.drift import moved_reference
from rules.kipukas.board_map import BoardMap
from rules.kipukas.identity import is_kipukas_payload
from tracker.overhead.calibration_service import CalibrationService
from tracker.overhead.layout import table_artworks, table_layout
from tracker.overhead.pose_watch import PoseWatch
from tracker.record.keys import load_or_create_key
from tracker.record.store import GameRecord
from tracker.runtime.demo_dice import DiceFrames, dice_steps
from tracker.runtime.demo_script import DECKS, Step, demo_steps
from tracker.service.service import TableService
from tracker.sources.capture import simulated_lores
from tracker.table.dice_roll import DiceDesk
from tracker.table.loop import OverheadLoop
from tracker.table.table import Table, open_table
from vision.board import BoardReader
from vision.dice import DiceReader
from vision.synth import Renderer, SlotCard, TableScene, Token

PALETTE: dict[str, tuple[int, int, int]] = {"red": (40, 40, 210), "blue": (200, 90, 30)}
NOMINAL_FPS = 4.0


def bumped_pose(pose: CameraPose) -> CameraPose:
    """The demo camera after a knock: turned by about a degree and shifted by a centimetre."""
    R, _ = cv2.Rodrigues(pose.rvec)
    turn, _ = cv2.Rodrigues(np.radians(np.array([0.6, -0.4, 0.8])))
    rvec, _ = cv2.Rodrigues(turn @ R)
    return CameraPose(pose.K, pose.dist, np.asarray(rvec, np.float64), pose.tvec + np.array([[8.0], [-5.0], [0.0]]),
                      pose.image_size)
DEMO_IMAGE_SIZE = (2028, 1520)  # the Pi HQ camera binned mode the overhead reader is tuned for


@dataclass
class DemoFrames:
    """Frames of the scripted game: each step shows hands over the table, then the settled board."""

    renderer: Renderer
    steps: list[Step]
    hand_frames: int = 2
    settled_frames: int = 4
    seed: int = 0
    bumped: tuple[int, Renderer] | None = None  # from this step on, the camera has been knocked

    def frames(self) -> Iterator[tuple[int, Step, bool, np.ndarray]]:
        """Yield (step index, step, first frame of the step?, frame)."""
        n = 0
        lamp = float(np.random.default_rng(self.seed).uniform(0.0, 2.0 * np.pi))  # its gradient's direction
        for index, step in enumerate(self.steps):
            tokens = {s: Token(kind, owner, count) for s, (kind, owner, count) in step.tokens.items()}
            slots = {slot: [SlotCard(face, payload) for face, payload in cards] for slot, cards in step.cards.items()}
            renderer = self.bumped[1] if self.bumped and index >= self.bumped[0] else self.renderer
            # pieces and cards keep the place they were put on for the whole step (one composition per
            # step and hands or not; a real piece does not jump about between frames) and the lamp stays
            # where it is; the camera's noise and JPEG differ in every frame
            placed = {hands: renderer.compose(TableScene(tokens, slots, hands), seed=self.seed * 100_000 + index)[0]
                      for hands in {int(k < self.hand_frames) for k in range(self.hand_frames + self.settled_frames)}}
            for k in range(self.hand_frames + self.settled_frames):
                n += 1
                yield index, step, k == 0, renderer.finish(placed[int(k < self.hand_frames)],
                                                           seed=self.seed * 100_000 + n, light_angle=lamp)


def begin_step(table: Table, step: Step) -> None:
    """What the players do off the map when a step begins: phone actions, and cards shown to the front camera."""
    for line in step.say:
        table.act(f"phone:{line.split()[0]}", line)
    for card in step.shown:
        table.shown("front", card)


def after_throw(table: Table, desk: DiceDesk, step: Step) -> None:
    """What the players (and the judge) do once the dice of `step` are at rest: tap "read N - confirm", type
    a roll, decide. A roll the camera could not read (a question) is answered on the roller's phone."""
    for seat in step.tap:
        waiting = [p for p in desk.pending if p.player == step.dice[0][1] or p.prefix.split()[2] == "diel"]
        if waiting:
            desk.confirm(seat, waiting[-1].id)
            continue
        kind, roller, face = step.dice[0]
        what = {"d6": "d6", "d20": "d20", "diel": "diel"}[kind]
        table.act(f"phone:{roller}", f"{roller} roll {what} {face}")
    for line in step.typed:
        seat = line.split()[0]
        if desk.typed(seat, line) is None:
            table.act(f"phone:{seat}", line)
    for line in step.judge:
        table.act("judge", line)


class DemoTable:
    """The demo pipeline; `run()` plays the script (again and again when `repeat`), pacing frames at `fps`."""

    def __init__(self, fps: float | None = 4.0, repeat: bool = True, linger_s: float = 10.0,
                 hand_frames: int = 2, settled_frames: int = 4, folder: Path | None = None,
                 bump_at_step: int | None = None, script: str = "game") -> None:
        """`script`: "game" (the scripted game read from the board and the mat), "dice" (the dice round,
        `demo_dice`) or "both" (the game, then the dice round, and again)."""
        if script not in ("game", "dice", "both"):
            raise ValueError(f"demo script {script!r} is not one of game, dice, both")
        self.script = script
        self.board = BoardMap.packaged()
        layout = table_layout(self.board)
        pose = default_pose(layout, image_size=DEMO_IMAGE_SIZE)
        self.layout, self.pose = layout, pose
        self.renderer = Renderer(layout, pose, PALETTE)
        # A frame of the empty table lets the reader tell a hand from a piece (0 false changes vs 2.3 %).
        self.reference = self.renderer.render(TableScene({}), seed=7)
        self.reader = BoardReader(layout, pose, PALETTE, reference=self.reference, accept=is_kipukas_payload)
        self.dice_reader = DiceReader(layout, pose, PALETTE, self.reference)
        self.folder = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="kipukas-demo-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.key = load_or_create_key(self.folder)  # beside the records, so `log verify` finds it
        self.fps, self.repeat, self.linger_s = fps, repeat, linger_s
        self.hand_frames, self.settled_frames = hand_frames, settled_frames
        self.stop = threading.Event()
        self.rounds = 0
        self.step_index = -1
        self.table = self._new_table()
        self.service = TableService(self.table)
        self.desk = DiceDesk(self.table)
        self.service.dice = self.desk
        self.latest: np.ndarray | None = None
        self.palette = dict(PALETTE)
        self.service.calibration = CalibrationService(layout, lambda: self.latest, lambda: self.pose,
                                                      self._calibrated_by_hand, self._colours_learned,
                                                      lambda: self.palette)
        # the pose follows the table: checked every few (nominal) seconds, re-posed when the camera moved
        self.watch = PoseWatch(layout, pose, table_artworks(self.board, layout), self.table_warn)
        self.watch.reset(pose, self.reference)
        self.bump_at_step = bump_at_step
        self.bumped = Renderer(layout, bumped_pose(pose), PALETTE) if bump_at_step is not None else None

    def table_warn(self, message: str) -> None:
        self.table.warn(message)  # whichever round is in progress

    def _colours_learned(self, palette: dict[str, tuple[int, int, int]]) -> None:
        self.palette = {**self.palette, **palette}
        self._new_reader()

    def _calibrated_by_hand(self, cal: Calibration) -> None:
        """The calibration page moved the corners: read the synthetic table with the new pose."""
        self._follow(cal.pose)
        self.watch.reset(cal.pose)

    def _follow(self, pose: CameraPose) -> None:
        """Read with a new pose: the reader is re-posed in place (it keeps what it learned); the empty-table
        reference is moved with it for the readers of later rounds."""
        self.reference = moved_reference(self.reference, self.pose, pose)
        self.pose = pose
        self.reader.repose(pose)

    def _new_reader(self) -> None:
        self.reader = BoardReader(self.layout, self.pose, self.palette, reference=self.reference,
                                  accept=is_kipukas_payload)

    def _new_table(self) -> Table:
        record = GameRecord(str(self.folder / f"demo-{self.rounds + 1:03d}.sqlite"), self.key)
        return open_table(self.board, record, DECKS)

    def run(self) -> None:
        while not self.stop.is_set():
            self._play_once()
            self.rounds += 1
            if not self.repeat or self.stop.wait(self.linger_s):
                return
            ended = self.table
            self.table = self._new_table()
            self.desk = DiceDesk(self.table)
            self.service.dice = self.desk
            self.service.replace(self.table)
            ended.close()  # the game is over: release its database, WAL, shared-memory and snapshot files

    def _play_once(self) -> None:
        if self.script == "dice" or (self.script == "both" and self.rounds % 2 == 1):
            self._play_dice()
            return
        loop = OverheadLoop(self.table, self.reader)
        period = 1.0 / self.fps if self.fps else 0.0
        bumped = (self.bump_at_step, self.bumped) if self.bump_at_step is not None and self.bumped else None
        frames = DemoFrames(self.renderer, demo_steps(), self.hand_frames, self.settled_frames, seed=self.rounds,
                            bumped=bumped)
        for n, (index, step, first, frame) in enumerate(frames.frames()):
            started = time.monotonic()
            if self.stop.is_set():
                return
            if first:
                self.step_index = index
                begin_step(self.table, step)
            self.latest = frame
            watch = self.watch.process(frame, now=n / NOMINAL_FPS)  # the script's clock, whatever the pace
            if watch.pose is not None:
                self._follow(watch.pose)
            if not watch.readable:
                continue  # board unreadable: no move from this frame
            loop.reader = self.reader
            loop.process(frame, simulated_lores(frame))  # what the Pi camera's ISP gives for free
            if period:
                self.stop.wait(max(0.0, period - (time.monotonic() - started)))

    def _play_dice(self) -> None:
        """The dice round: throws rendered into the roll area, read, confirmed with a tap (`demo_dice`)."""
        loop = OverheadLoop(self.table, self.reader, dice=(self.dice_reader, self.desk))
        period = 1.0 / self.fps if self.fps else 0.0
        frames = DiceFrames(self.renderer, self.palette, dice_steps(), self.hand_frames, self.settled_frames,
                            seed=self.rounds)
        for index, step in enumerate(frames.steps):
            if self.stop.is_set():
                return
            self.step_index = index
            begin_step(self.table, step)
            for frame in frames.step_frames(index, step):
                started = time.monotonic()
                self.latest = frame
                loop.process_dice(frame)
                if period:
                    self.stop.wait(max(0.0, period - (time.monotonic() - started)))
            after_throw(self.table, self.desk, step)

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="demo-table", daemon=True)
        thread.start()
        return thread
