"""The overhead camera of a game that reads its board (the tile-map game): frames -> units on tiles ->
a stable reading -> `GameTable.observe` (docs/games.md, "Cameras").

It uses the same pieces as the Kipukas overhead loop: the frame sources (`tracker.sources`, a stalled
camera reopened), the calibrated per-region reader (`vision.board.BoardReader`) over the tile layout's
regions (`tracker.overhead.tiles`), the learned token colours, and the `Stabiliser` (a tile changes only
after the same reading on `frames_to_agree` unobstructed frames; a hand changes nothing). The camera pose
comes from the calibration file of `[tracking] calibration` (`kipukas-tracker calibrate --target mat`
against the mat: a tile board has no map texture to calibrate against), and a frame of the empty board
beside it (``NAME.empty.png``) is the reader's reference: without it an empty tile cannot be told from a
covered one. Without either, or for a map with no tile layout, the table says so on every page and plays
on from the phones.

The pose follows the table as on a Kipukas table (`tracker.overhead.pose_watch.PoseWatch`): the free
patches of the mat around the tile board, taken from the empty board's frame, are checked quickly on every
frame and in full every few seconds. A bumped camera is re-posed from them (or from the mat's whole design)
with its own intrinsics, the empty board's frame is warped to the new pose, the reader is rebuilt and the
pages say so; the new pose and reference are saved beside the old ones, so a restart starts from them.
When no pose can be found the pages say "board unreadable: camera moved" and no reading is taken from
the frames until the table is found again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.calfile import Calibration, load_calibration
from calibration.camera import CameraPose
from calibration.drift import moved_reference
from calibration.errors import CalibrationError
from calibration.mat_pose import Artwork
from calibration.procedure import mat_artwork
from rules.core.interface import ReadsBoard
from tracker.config import TableConfig
from tracker.overhead import palettes as palette_store
from tracker.overhead.pose_watch import PoseWatch
from tracker.overhead.tiles import TileLayout, load, units_seen
from tracker.runtime.watchdog import Watchdog
from tracker.sources.capture import Frame
from tracker.sources.open import open_source
from tracker.sources.resilient import CameraStatus, ResilientSource
from tracker.table.games import GameTable
from tracker.table.stabiliser import Stabiliser
from vision.assets import asset
from vision.board import BoardReader

log = logging.getLogger("kipukas-tracker")
MIN_CONFIDENCE = 0.5
EMPTY = ""  # a stable empty tile (the stabiliser's value; None is "no reading")


def tile_layout_for(table: GameTable) -> TileLayout | None:
    """The packaged tile layout of the game's map, checked against the game's grid; None (with a warning
    on every page) when the game reads no board or its map has no layout."""
    if not isinstance(table.game, ReadsBoard):
        return None
    view = table.game.view("judge")
    grid = view.get("grid")
    try:
        layout = load(str(view.get("map", "")))
    except CalibrationError as exc:
        table.warn(f"overhead camera off: {exc}")
        return None
    size = (grid.get("width"), grid.get("height")) if isinstance(grid, dict) else None
    if size != (layout.columns, layout.rows):
        table.warn(f"overhead camera off: the tile layout of {layout.map!r} is {layout.columns}x{layout.rows}, "
                   f"the game's map is {size}")
        return None
    return layout


def reference_of(calibration: Path) -> NDArray[np.uint8] | None:
    """The frame of the empty board kept beside the calibration file (``NAME.empty.png`` or ``.jpg``),
    taken with the same camera pose: what lets the reader tell an empty tile from a covered one."""
    for suffix in (".empty.png", ".empty.jpg"):
        path = calibration.with_suffix(suffix)
        if path.is_file():
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                return np.asarray(image, dtype=np.uint8)
    return None


def tile_artworks(layout: TileLayout) -> list[Artwork]:
    """What a bumped camera is re-posed against when the patches cannot say: the printed mat (a tile board
    has no design of its own that the tracker knows)."""
    table = layout.table_layout()
    return [mat_artwork(table, asset(table.mat_image))]


class TileCamera:
    """One overhead camera reading units on tiles into the table in play (`table` is looked up per frame:
    the runtime may switch to a new game). `pose` and `empty` (the empty board's frame in that pose) move
    together when the watch re-poses the camera; `calibration` and `path`, when given, are what is saved
    after a re-pose and where; `clock` times the watch's full checks (every few seconds)."""

    def __init__(self, cfg: TableConfig, layout: TileLayout, pose: CameraPose, palette: dict[str, tuple[int, int, int]],
                 empty: NDArray[np.uint8], get_table: Callable[[], GameTable], dog: Watchdog,
                 stop: threading.Event, calibration: Calibration | None = None, path: Path | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.cfg, self.layout, self.palette = cfg, layout, palette
        self.clock = clock
        self.pose, self.empty = pose, empty
        self.calibration, self.path = calibration, path
        self.get_table = get_table
        self.dog, self.stop = dog, stop
        self.stabiliser: Stabiliser[str] = Stabiliser(frames=cfg.frames_to_agree)
        self.reader = self._reader()
        self.watch = PoseWatch(layout.table_layout(), pose, tile_artworks(layout), self._warn)
        self.watch.reset(pose, empty)  # the empty board is the check's reference: a bump before start is seen too

    def _reader(self) -> BoardReader:
        # the patch classifier learnt Kipukas' stands and slots: on tiles it would veto every reading
        return BoardReader(self.layout.table_layout(), self.pose, self.palette, self.empty, veto=False)

    def _warn(self, message: str) -> None:
        self.get_table().warn(message)

    @classmethod
    def build(cls, cfg: TableConfig, table: GameTable, state_dir: Path, get_table: Callable[[], GameTable],
              dog: Watchdog, stop: threading.Event) -> TileCamera | None:
        """The camera loop for this table, or None (said on every page) when it cannot read the board."""
        if cfg.overhead.source in ("none", "synthetic"):
            return None
        layout = tile_layout_for(table)
        if layout is None:
            return None
        if not cfg.calibration:
            table.warn("overhead camera off: set [tracking] calibration to a calibration file made with "
                       "`kipukas-tracker calibrate --target mat`")
            return None
        try:
            calibration = load_calibration(cfg.calibration)
        except CalibrationError as exc:
            table.warn(f"overhead camera off: {exc}")
            return None
        empty = reference_of(Path(cfg.calibration))
        if empty is None:
            table.warn(f"overhead camera off: no frame of the empty board beside {cfg.calibration} (save one as "
                       f"{Path(cfg.calibration).with_suffix('.empty.png').name}): without it an empty tile cannot be "
                       "told from a covered one")
            return None
        seats = tuple(table.game.seats)
        palette = palette_store.load(state_dir, seats) or palette_store.nominal(seats)
        return cls(cfg, layout, calibration.pose, palette, empty, get_table, dog, stop, calibration,
                   Path(cfg.calibration))

    def repose(self, pose: CameraPose) -> None:
        """The watch found the table elsewhere: read with the new pose and the empty board warped to it, and
        keep both for a restart (a failure to save is said on the pages; tracking goes on)."""
        self.empty = moved_reference(self.empty, self.pose, pose)
        self.pose = pose
        self.reader.repose(pose)  # in place: what it learned of the empty board is kept
        if self.path is None or self.calibration is None:
            return
        self.calibration = replace(self.calibration, pose=pose)
        try:
            self.calibration.save(self.path)
            if not cv2.imwrite(str(self.path.with_suffix(".empty.png")), self.empty):
                raise OSError(f"cannot write {self.path.with_suffix('.empty.png')}")
        except OSError as exc:
            self._warn(f"cannot save the re-posed calibration beside {self.path}: {exc}")

    def process(self, frame: Frame) -> None:
        """One frame: follow the pose; then read every tile, feed the stabiliser, and give the table the
        stable reading when a tile changed (only tiles read steadily; the rest stay unknown). A frame of a
        camera whose pose is lost is not read at all."""
        watch = self.watch.process(frame.image, self.clock(), frame.lores)
        if watch.pose is not None:
            self.repose(watch.pose)
        if not watch.readable:
            return  # board unreadable: camera moved; nothing is taken from this frame
        obs = self.reader.read(frame.image)
        seen = units_seen(obs)
        readings = {t: (seat or EMPTY, obs.stands[t].confidence < MIN_CONFIDENCE) for t, seat in seen.items()}
        if self.stabiliser.feed(readings):
            table = self.get_table()
            table.observe({t: v or None for t, v in self.stabiliser.board().items()})

    def frames(self) -> Iterable[Frame | CameraStatus]:
        cam = self.cfg.overhead
        if cam.source in ("folder", "video"):  # a recording plays once; its end is not a fault
            return open_source(cam)
        return ResilientSource("overhead camera", lambda: open_source(cam), timeout_s=cam.timeout_s)

    def run(self) -> None:
        try:
            for item in self.frames():
                if self.stop.is_set():
                    break
                self.dog.beat("overhead camera")
                if isinstance(item, CameraStatus):
                    self.get_table().warn(f"overhead camera {'back' if item.ok else 'lost'}: {item.reason}")
                    continue
                self.process(item)
            else:
                self.get_table().warn("overhead camera: the recording ended")
        except Exception as exc:  # a loop must never die silently: say so where judges look
            log.exception("overhead camera loop stopped")
            self.get_table().warn(f"overhead camera stopped: {exc}")
        finally:
            self.dog.unwatch("overhead camera")
