"""One table on real cameras: the pieces `kipukas-tracker run` starts, each loop in its own thread.

The overhead loop reads stands into the table; the front loop turns cards shown into questions; the
table's heartbeat proves the table lock is not stuck; the watchdog feeds systemd only while all of
them make progress. A camera fault is a warning on every page and pauses that loop, never a crash.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from rules.board_map import BoardMap
from rules.decks import check_deck
from tracker.config import CameraConfig, TableConfig
from tracker.errors import UsageError
from tracker.front_camera import FrontCamera
from tracker.keyframes import KeyframeStore
from tracker.keys import load_or_create_key
from tracker.layout import table_layout
from tracker.loop import OverheadLoop
from tracker.overhead_calibration import OverheadCalibration
from tracker.record import GameRecord
from tracker.resilient import CameraStatus, ResilientSource
from tracker.service import TableService
from tracker.sources import Frame, open_source
from tracker.table import Entry, Table
from tracker.watchdog import Watchdog
from vision.board import BoardReader

log = logging.getLogger("kipukas-tracker")
DEFAULT_PALETTE: dict[str, tuple[int, int, int]] = {"red": (40, 40, 210), "blue": (200, 90, 30)}
CURRENT = "current"  # file in records/ naming the game in progress


def load_board(cfg: TableConfig) -> BoardMap:
    return BoardMap.from_file(cfg.map) if cfg.map.endswith(".json") else BoardMap.packaged(cfg.map)


def read_decks(files: Mapping[str, Path]) -> dict[str, list[str]]:
    """Deck files (docs/deck-format.md) checked by the rules; any problem is a usage error naming it."""
    decks: dict[str, list[str]] = {}
    for player, path in files.items():
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{path}: cannot read the deck file ({exc})") from exc
        report = check_deck(lines)
        if not report.valid:
            raise UsageError(f"{path}: {player}'s deck is not legal: {'; '.join(report.problems[:3])}")
        decks[player] = [e.physical_id for e in report.cards] + (
            [report.personal_effect.physical_id] if report.personal_effect else [])
    return decks


def open_record(state_dir: Path, decks: Mapping[str, list[str]] | None, board: BoardMap) -> Table:
    """Resume the game in progress, or start a new one when decks are given."""
    records = state_dir / "records"
    records.mkdir(parents=True, exist_ok=True)
    key = load_or_create_key(state_dir)
    pointer = records / CURRENT
    if decks is None:
        if not pointer.exists():
            raise UsageError(f"{records}: no game in progress; start one with --deck red=FILE --deck blue=FILE")
        path = records / pointer.read_text(encoding="utf-8").strip()
        return Table(board, GameRecord(str(path), key))
    name = time.strftime("game-%Y%m%d-%H%M%S.sqlite")
    table = Table(board, GameRecord(str(records / name), key), decks)
    tmp = pointer.with_suffix(".tmp")
    tmp.write_text(name + "\n", encoding="utf-8")
    tmp.replace(pointer)
    return table


class TableRuntime:
    def __init__(self, cfg: TableConfig, table: Table, state_dir: Path) -> None:
        self.cfg, self.table = cfg, table
        self.service = TableService(table)
        self.stop = threading.Event()
        self.dog = Watchdog(stall_s=20.0)
        self.latest: dict[str, np.ndarray] = {}
        self.keyframes = KeyframeStore(state_dir / "keyframes", int(cfg.keyframe_limit_mb * 1_000_000),
                                       cfg.keyframe_warn_percent / 100, on_warning=table.warn) \
            if cfg.keyframes else None
        table.listeners.append(self._save_keyframes)
        self.service.keyframes = self.keyframes  # type: ignore[attr-defined]
        self.layout = table_layout(table.board)
        self.calibration = OverheadCalibration(self.layout, (cfg.overhead.width, cfg.overhead.height),
                                               cfg.calibration, table.warn)
        self.reader = BoardReader(self.layout, self.calibration.pose, DEFAULT_PALETTE)

    def _save_keyframes(self, entries: list[Entry]) -> None:
        if self.keyframes is None:
            return
        for entry in entries:
            if entry.kind == "action":
                for camera, image in self.latest.items():
                    self.keyframes.save(entry.seq, camera, image)

    def _frames(self, name: str, cam: CameraConfig) -> Iterable[Frame | CameraStatus]:
        if cam.source in ("folder", "video"):  # a recording plays once; its end is not a fault
            return open_source(cam)
        return ResilientSource(name, lambda: open_source(cam), timeout_s=cam.timeout_s)

    def overhead_loop(self) -> None:
        loop = OverheadLoop(self.table, self.reader, self.cfg.frames_to_agree)

        def process(frame: Frame) -> None:
            if not self.calibration.checked:
                pose = self.calibration.first_frame(frame.image)
                if pose is not None:
                    self.reader = loop.reader = BoardReader(self.layout, pose, DEFAULT_PALETTE)
            loop.process(frame.image)

        self._camera_loop("overhead camera", self.cfg.overhead, process)

    def front_loop(self) -> None:
        from tracker.card_scan import kipukas_reader

        camera = FrontCamera(kipukas_reader())

        def process(frame: Frame) -> None:
            for shown in camera.process(frame):
                self.table.shown("front", shown.physical_id)

        self._camera_loop("front camera", self.cfg.front, process)

    def _camera_loop(self, name: str, cam: CameraConfig, process: object) -> None:
        try:
            self._camera_frames(name, cam, process)
        except Exception as exc:  # a loop must never die silently: say so where judges look
            log.exception("%s loop stopped", name)
            self.table.warn(f"{name} stopped: {exc}")

    def _camera_frames(self, name: str, cam: CameraConfig, process: object) -> None:
        short = name.split()[0]
        source = self._frames(name, cam)
        for item in source:
            if self.stop.is_set():
                break
            self.dog.beat(name)
            if isinstance(item, CameraStatus):
                self.table.warn(f"{name} {'back' if item.ok else 'lost'}: {item.reason}")
                continue
            self.latest[short] = item.image
            process(item)  # type: ignore[operator]
        else:
            self.table.warn(f"{name}: the recording ended")
        self.dog.unwatch(name)
        if isinstance(source, ResilientSource):
            source.stop()

    def heartbeat(self) -> None:
        while not self.stop.wait(1.0):
            with self.table.lock:  # a stuck table lock stops the beats, and the watchdog notices
                pass
            self.dog.beat("table")

    def start(self) -> list[threading.Thread]:
        loops = [("table", self.heartbeat), ("overhead camera", self.overhead_loop)]
        if self.cfg.front.source != "none":
            loops.append(("front camera", self.front_loop))
        threads = []
        for name, target in loops:
            self.dog.watch(name)
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            threads.append(thread)
        threads.append(self.dog.start(self.stop))
        return threads
