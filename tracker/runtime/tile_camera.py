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
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.calfile import load_calibration
from calibration.errors import CalibrationError
from rules.core.interface import ReadsBoard
from tracker.config import TableConfig
from tracker.overhead import palettes as palette_store
from tracker.overhead.tiles import TileLayout, load, units_seen
from tracker.runtime.watchdog import Watchdog
from tracker.sources.capture import Frame
from tracker.sources.open import open_source
from tracker.sources.resilient import CameraStatus, ResilientSource
from tracker.table.games import GameTable
from tracker.table.stabiliser import Stabiliser
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


class TileCamera:
    """One overhead camera reading units on tiles into the table in play (`table` is looked up per frame:
    the runtime may switch to a new game)."""

    def __init__(self, cfg: TableConfig, layout: TileLayout, reader: BoardReader, get_table: Callable[[], GameTable],
                 dog: Watchdog, stop: threading.Event) -> None:
        self.cfg, self.layout, self.reader = cfg, layout, reader
        self.get_table = get_table
        self.dog, self.stop = dog, stop
        self.stabiliser: Stabiliser[str] = Stabiliser(frames=cfg.frames_to_agree)

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
            pose = load_calibration(cfg.calibration).pose
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
        # the patch classifier learnt Kipukas' stands and slots: on tiles it would veto every reading
        reader = BoardReader(layout.table_layout(), pose, palette, empty, veto=False)
        return cls(cfg, layout, reader, get_table, dog, stop)

    def process(self, frame: Frame) -> None:
        """One frame: read every tile, feed the stabiliser, and give the table the stable reading when a
        tile changed (only tiles read steadily; the rest stay unknown)."""
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
