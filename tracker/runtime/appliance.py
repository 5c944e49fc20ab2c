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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from calibration.calfile import Calibration
from calibration.camera import CameraPose
from rules.kipukas.board_map import BoardMap
from rules.kipukas.decks import check_deck
from rules.kipukas.identity import is_kipukas_payload
from tracker.api import JUDGE
from tracker.config import STYLE_TERRITORIES, CameraConfig, TableConfig
from tracker.errors import UsageError
from tracker.front.camera import LIVE_CPU_PER_FRAME_S, FrontCamera
from tracker.front.registration import FrontEnrolment
from tracker.overhead import palettes as palette_store
from tracker.overhead.auto_calibration import OverheadCalibration
from tracker.overhead.calibration_service import CalibrationService
from tracker.overhead.layout import table_artworks, table_layout
from tracker.overhead.pose_watch import PoseWatch
from tracker.record.hub_push import HubPusher
from tracker.record.keyframes import KeyframeStore
from tracker.record.keys import load_or_create_key
from tracker.record.store import GameRecord
from tracker.runtime.watchdog import Watchdog
from tracker.service.seats import Seats
from tracker.service.service import TableService
from tracker.sources.capture import Frame
from tracker.sources.open import open_source
from tracker.sources.resilient import CameraStatus, ResilientSource
from tracker.table.dice_roll import DiceDesk
from tracker.table.loop import OverheadLoop
from tracker.table.stabiliser import Stabiliser
from tracker.table.table import Entry, Table, open_table
from vision.board import BoardReader
from vision.dice import DiceReader

log = logging.getLogger("kipukas-tracker")
CURRENT = "current"  # file in records/ naming the game in progress
RETIRE_GRACE_S = 5.0


def load_board(cfg: TableConfig) -> BoardMap:
    return BoardMap.from_file(cfg.map) if cfg.map.endswith(".json") else BoardMap.packaged(cfg.map)


def read_decks(files: Mapping[str, Path]) -> dict[str, list[str]]:
    """Deck files (docs/deck-format.md) checked by the rules; any problem is a usage error naming it."""
    texts: dict[str, tuple[str, list[str]]] = {}
    for player, path in files.items():
        try:
            texts[player] = (str(path), Path(path).read_text(encoding="utf-8").splitlines())
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{path}: cannot read the deck file ({exc})") from exc
    return deck_lists(texts)


def deck_lists(texts: Mapping[str, tuple[str, list[str]]]) -> dict[str, list[str]]:
    """Seat -> (where the lines came from, deck lines), checked by the rules, as seat -> card ids."""
    decks: dict[str, list[str]] = {}
    for player, (where, lines) in texts.items():
        report = check_deck(lines)
        if not report.valid:
            raise UsageError(f"{where}: {player}'s deck is not legal: {'; '.join(report.problems[:3])}")
        decks[player] = [e.physical_id for e in report.cards] + (
            [report.personal_effect.physical_id] if report.personal_effect else [])
    return decks


def current_game(state_dir: Path) -> Path | None:
    """The record of the game in progress (named by ``records/current``), if any."""
    pointer = state_dir / "records" / CURRENT
    if not pointer.exists():
        return None
    return state_dir / "records" / pointer.read_text(encoding="utf-8").strip()


def table_style(cfg: TableConfig, board: BoardMap) -> dict[str, Any] | None:
    """The play style of table.toml's [style] as a start row keeps it (None for plain domination, so its
    records stay as they were). A style the rules do not know, a parameter it does not take or a territory
    the map lacks is a `UsageError` naming the file, section and key."""
    from rules.kipukas.styles import STYLES, StyleError, style

    body = cfg.style_body()
    where = f"{cfg.source_file}: [style]"
    if body["name"] not in STYLES:
        raise UsageError(f"{where} name: unknown play style {body['name']!r} (known: {', '.join(STYLES)})")
    try:
        style(body["name"], cycles=body["cycles"], **body["params"])
    except StyleError as exc:
        raise UsageError(f"{where} {' '.join(body['params']) or 'name'}: {exc}") from exc
    for key, value in body["params"].items():
        if key in STYLE_TERRITORIES and value not in board.holdable:
            raise UsageError(f"{where} {key}: {value!r} is not a territory of map {board.name!r} that can be held "
                             f"({', '.join(board.holdable)})")
    if body == {"name": "domination", "cycles": None, "params": {}}:
        return None
    return body


def new_game(state_dir: Path, decks: Mapping[str, list[str]], board: BoardMap,
             style: Mapping[str, Any] | None = None) -> Table:
    """Start a new game record and make it the game in progress (a running tracker switches to it).
    Decks the rules refuse (a card listed twice) are a `UsageError` and leave no record file behind."""
    from rules.kipukas.game import Game
    from rules.kipukas.styles import StyleError
    from tracker.table.derived import style_arguments

    try:
        Game.new(decks, board, **style_arguments(style))
    except StyleError as exc:
        raise UsageError(f"the play style cannot start a game: {exc}") from exc
    except (ValueError, KeyError) as exc:
        raise UsageError(f"the decks cannot start a game: {exc}") from exc
    path = fresh_record(state_dir)
    table = open_table(board, GameRecord(str(path), load_or_create_key(state_dir)), decks, style=style)
    make_current(path)
    return table


def fresh_record(state_dir: Path) -> Path:
    """A new, unused record file name in the state folder's ``records/``."""
    records = state_dir / "records"
    records.mkdir(parents=True, exist_ok=True)
    name = time.strftime("game-%Y%m%d-%H%M%S.sqlite")
    n = 1
    while (records / name).exists():
        n += 1
        name = time.strftime(f"game-%Y%m%d-%H%M%S-{n}.sqlite")
    return records / name


def interface_game(path: Path) -> str | None:
    """The registry name of the game a record holds when it is not Kipukas (`tracker.table.games`)."""
    from tracker.table.games import start_row

    record = GameRecord(str(path), readonly=True)
    try:
        started = start_row(record)
    finally:
        record.close()
    return started.game if started else None


def make_current(path: Path) -> None:
    """Name `path` the game in progress (``records/current``, replaced atomically)."""
    pointer = path.parent / CURRENT
    tmp = pointer.with_suffix(".tmp")
    tmp.write_text(path.name + "\n", encoding="utf-8")
    tmp.replace(pointer)


def open_game(path: Path, state_dir: Path, board: BoardMap) -> Table:
    return open_table(board, GameRecord(str(path), load_or_create_key(state_dir)))


class TableRuntime:
    def __init__(self, cfg: TableConfig, table: Table, state_dir: Path, dog: Watchdog | None = None,
                 stop: threading.Event | None = None) -> None:
        self.cfg, self.table, self.state_dir = cfg, table, state_dir
        self.game_path = Path(table.record.path)
        seats = Seats(cfg.players, judge_pin=cfg.judge_pin, path=state_dir / "seats.json")
        self.service = TableService(table, seats, spectator_delay_min=cfg.spectator_delay_min,
                                    allowed_origins=cfg.allowed_origins, public_url=cfg.public_url)
        self.stop = stop or threading.Event()
        self._own_dog = dog is None  # a watchdog handed in is already running
        self.dog = dog or Watchdog(stall_s=20.0)
        self.overhead: OverheadLoop | None = None
        self._retired: list[tuple[Table, float]] = []  # ended games, their records closed after a grace time
        self.hub: HubPusher | None = None
        self.latest: dict[str, np.ndarray] = {}
        # JPEG encoding takes tens of ms per camera: done off the table lock, in order, by one worker.
        self._keyframe_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="keyframes")
        self.keyframes = self._keyframe_store()
        table.listeners.append(self._save_keyframes)
        self.layout = table_layout(table.board)
        arts = table_artworks(table.board, self.layout)
        self.calibration = OverheadCalibration(self.layout, (cfg.overhead.width, cfg.overhead.height),
                                               cfg.calibration, self.warn, arts)
        self.watch = PoseWatch(self.layout, self.calibration.pose, arts, self.warn)
        learned = palette_store.load(state_dir, cfg.players)
        if learned is None:
            table.warn("token colours not learned yet: on the calibration page, put one token of each player "
                       "on the stand it names and press 'learn colours'", "warning", key="colours")
        self.palette = learned or palette_store.nominal(cfg.players)
        self.reader = self._board_reader()
        # the dice in the roll area: no photo of the empty area is needed (the reader learns it while the
        # area is still and empty, `vision.dice_empty`); rebuilt with the board reader (pose, colours)
        self.desk = DiceDesk(table, cfg.frames_to_agree)
        self.service.dice = self.desk
        self.dice_reader = self._dice_reader()
        self.service.organiser = self._organise
        self.enrolment = FrontEnrolment()
        if cfg.front.source != "none":
            self.service.registrar = self.enrolment
        self.service.calibration = CalibrationService(self.layout, lambda: self.latest.get("overhead"),
                                                      lambda: self.calibration.pose, self._calibrated_by_hand,
                                                      self._colours_learned, lambda: self.palette,
                                                      current=lambda: self.calibration.calibration)

    def _board_reader(self) -> BoardReader:
        """The overhead reader, adapted to this table when `adapt-reader` left its file in the state folder."""
        from tracker.commands.adapt_reader import ADAPTATION_FILE
        from vision.adapt import Adaptation
        from vision.errors import VisionError

        path = self.state_dir / ADAPTATION_FILE
        adaptation = None
        if path.is_file():
            try:
                adaptation = Adaptation.load(path)
            except VisionError as exc:
                self.warn(f"reader adaptation ignored: {exc}")
        return BoardReader(self.layout, self.calibration.pose, self.palette, adaptation=adaptation,
                           accept=is_kipukas_payload)

    def _dice_reader(self) -> DiceReader | None:
        """The roll area's reader at the current pose, or None when the mat has no roll area."""
        if self.layout.roll_area_mm is None:
            return None
        reader = DiceReader(self.layout, self.calibration.pose, self.palette, reference=None)
        if reader.net_error:
            self.warn(f"dice are not read (every roll is asked on a phone): {reader.net_error}")
        return reader

    def _dice(self) -> tuple[DiceReader, DiceDesk] | None:
        return (self.dice_reader, self.desk) if self.dice_reader is not None else None

    def _new_reader(self) -> None:
        self.reader = self._board_reader()
        self.dice_reader = self._dice_reader()
        if self.overhead is not None:
            self.overhead.reader = self.reader
            self.overhead.dice = self._dice()

    def _follow_pose(self, pose: CameraPose) -> None:
        """A knocked camera re-posed by the watch: the reader is re-posed in place and keeps what it learned
        of the empty table and the light (``BoardReader.repose``); the dice reader starts at the new pose."""
        self.reader.repose(pose)
        self.dice_reader = self._dice_reader()
        if self.overhead is not None:
            self.overhead.dice = self._dice()

    def _calibrated_by_hand(self, cal: Calibration) -> None:
        self.calibration.set(cal, "by hand on the calibration page")
        self.watch.reset(cal.pose)  # the next frame becomes the check's reference
        self._new_reader()

    def _colours_learned(self, palette: dict[str, tuple[int, int, int]]) -> None:
        self.palette = {**self.palette, **palette}
        palette_store.save(self.state_dir, self.palette)
        self._new_reader()
        self.table.warn(f"token colours learned for {', '.join(sorted(palette))}", "info", key="colours")

    def warn(self, message: str) -> None:
        self.table.warn(message)  # whichever game is in progress

    def _keyframe_store(self) -> KeyframeStore | None:
        """Keyframes of the game in progress, in a folder named after its record."""
        if not self.cfg.keyframes:
            return None
        root = self.state_dir / "keyframes"  # one limit for every game's keyframes on this table
        store = KeyframeStore(root / self.game_path.stem, int(self.cfg.keyframe_limit_mb * 1_000_000),
                              self.cfg.keyframe_warn_percent / 100, on_warning=self.warn, root=root)
        self.service.keyframes = store
        return store

    def _organise(self, decks: dict[str, list[str]], style: dict[str, Any] | None = None) -> str:
        """The organiser page's new game: deck lines per seat and a play style -> a new record, followed
        at once."""
        if set(decks) != set(self.cfg.players):
            raise UsageError(f"give one deck per seat ({', '.join(self.cfg.players)})")
        table = new_game(self.state_dir, deck_lists({p: (f"{p}'s deck", lines) for p, lines in decks.items()}),
                         self.table.board, style if style is not None else table_style(self.cfg, self.table.board))
        path = table.record.path
        table.close()
        self.switch_game()
        return path

    def switch_game(self) -> bool:
        """Follow ``records/current`` when an organiser started a new game (`kipukas-tracker game new`)."""
        path = current_game(self.state_dir)
        if path is None or path == self.game_path:
            return False
        other = interface_game(path)
        if other is not None:
            log.warning("records/current names a %s game (%s): this tracker serves Kipukas tables only; staying on "
                        "%s", other, path.name, self.game_path)
            self.game_path = path  # warn once
            return False
        table = open_game(path, self.state_dir, self.table.board)
        table.listeners.append(self._save_keyframes)
        if self.hub is not None:
            table.listeners.append(self._nudge_hub)
        self._retired.append((self.table, time.monotonic()))
        self.table, self.game_path = table, path
        self.keyframes = self._keyframe_store()
        if self.overhead is not None:
            self.overhead.table = table
            self.overhead.stabiliser = Stabiliser(frames=self.cfg.frames_to_agree)
            self.overhead.mat = Stabiliser(frames=self.cfg.frames_to_agree)
        self.desk = DiceDesk(table, self.cfg.frames_to_agree)
        self.service.dice = self.desk
        if self.overhead is not None:
            self.overhead.dice = self._dice()
        self.service.replace(table)
        return True

    def _save_keyframes(self, entries: list[Entry]) -> None:
        """Called under the table's lock: hand the frames of this moment to the keyframe writer."""
        store = self.keyframes
        if store is None:
            return
        frames = dict(self.latest)  # the frames seen when the action was recorded
        for entry in entries:
            if entry.kind in ("action", "dice", "flag"):  # a camera's dice reading: the judge sees the dice
                for camera, image in frames.items():
                    self._keyframe_writer.submit(store.save, entry.seq, camera, image)

    def close_retired(self, grace_s: float = RETIRE_GRACE_S) -> None:
        """Close the records of games that ended at least `grace_s` ago (a camera loop may still hold the
        old table for a moment after a switch): their database, WAL and shared-memory files are released."""
        now = time.monotonic()
        keep: list[tuple[Table, float]] = []
        for table, since in self._retired:
            if now - since < grace_s:
                keep.append((table, since))
                continue
            table.close()
        self._retired = keep

    def close(self) -> None:
        """Finish writing the keyframes already handed over; close the records of ended games."""
        self._keyframe_writer.shutdown(wait=True)
        self.close_retired(grace_s=0.0)

    def _frames(self, name: str, cam: CameraConfig) -> Iterable[Frame | CameraStatus]:
        if cam.source in ("folder", "video"):  # a recording plays once; its end is not a fault
            return open_source(cam)
        return ResilientSource(name, lambda: open_source(cam), timeout_s=cam.timeout_s)

    def overhead_loop(self) -> None:
        loop = self.overhead = OverheadLoop(self.table, self.reader, self.cfg.frames_to_agree, dice=self._dice())

        def process(frame: Frame) -> None:
            if not self.calibration.checked:
                pose = self.calibration.first_frame(frame.image)
                if pose is not None:
                    self._new_reader()
                self.watch.reset(self.calibration.pose, frame.image)
            watch = self.watch.process(frame.image, time.monotonic(), frame.lores)  # every few seconds
            if watch.pose is not None:
                self.calibration.follow(watch.pose)
                self._follow_pose(watch.pose)
            if not watch.readable:
                return  # board unreadable: camera moved; no move from this frame
            loop.process(frame.image, frame.lores)

        self._camera_loop("overhead camera", self.cfg.overhead, process)

    def front_loop(self) -> None:
        from tracker.front.scan import kipukas_reader

        camera = FrontCamera(kipukas_reader(), cpu_per_frame_s=LIVE_CPU_PER_FRAME_S)  # shares the core

        def process(frame: Frame) -> None:
            for shown in camera.process(frame):
                if self.enrolment.offer(shown.payload):
                    continue  # the organiser's page is registering a deck: not a card of this game
                self.table.shown("front", shown.physical_id)  # the table in play at that moment

        self._camera_loop("front camera", self.cfg.front, process)

    def _camera_loop(self, name: str, cam: CameraConfig, process: object) -> None:
        try:
            self._camera_frames(name, cam, process)
        except Exception as exc:  # a loop must never die silently: say so where judges look
            log.exception("%s loop stopped", name)
            self.table.warn(f"{name} stopped: {exc}", "error", key=name)

    def _camera_frames(self, name: str, cam: CameraConfig, process: object) -> None:
        short = name.split()[0]
        source = self._frames(name, cam)
        for item in source:
            if self.stop.is_set():
                break
            self.dog.beat(name)
            if isinstance(item, CameraStatus):
                self.table.warn(f"{name} {'back' if item.ok else 'lost'}: {item.reason}",
                                "info" if item.ok else "error", key=name)
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
            try:
                if self.switch_game():
                    log.info("switched to the new game %s", self.game_path)
                self.close_retired()
            except Exception as exc:  # a broken new record must not stop the table in progress
                self.table.warn(f"cannot open the new game: {exc}")
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
        if self.cfg.hub_url:  # the hub's pusher is not watched: a hub away must never stop the table
            self.hub = HubPusher(self.cfg.hub_url, self.cfg.hub_token, self.state_dir / "records", self.hub_status)
            self.table.listeners.append(self._nudge_hub)
            hub = self.hub
            self.service.judge_callers.append(lambda seat: hub.call_judge())
            threads.append(self.hub.start(self.stop))
        if self._own_dog:
            threads.append(self.dog.start(self.stop))
        return threads

    def _nudge_hub(self, entries: list[Entry]) -> None:
        if self.hub is not None:
            self.hub.nudge()

    def hub_status(self) -> dict[str, Any]:
        """What the organiser's page shows of this table: the judge's view, without hidden cards."""
        view = self.service.snapshot(JUDGE)
        keys = ("players", "phase", "turn", "active", "result", "in_sync", "warnings", "seq")
        return {k: view.get(k) for k in keys} | {"game": self.game_path.stem}
