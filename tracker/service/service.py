"""The table service the web layer talks to (see `tracker.api`): who is connecting, per-viewer views,
change notification, and the inputs phones and judges may send.

Views are cached per (viewer, version), so a broadcast costs one projection per role, not one per phone.
The record's entries are cached too (rows are append-only; a new table resets the cache).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from rules.catalog import Catalog
from tracker.errors import InputError
from tracker.overhead.calibration_service import CalibrationService
from tracker.service.seats import SPECTATOR, AccessDenied, Seats, Viewer
from tracker.service.views import Scene, entries_for, view_for
from tracker.table.table import Entry, Table

KEYFRAME_CAMERAS = ("overhead", "front")
KEYFRAME_SETTLE_ROWS = 20


class KeyframeSource(Protocol):
    """Where the tracker keeps camera frames of record rows (`tracker.record.keyframes.KeyframeStore`)."""

    def path(self, seq: int, camera: str) -> Path | None: ...


class TableService:
    """Versions keep growing when the table is replaced (the demo starts a new game each round)."""

    def __init__(self, table: Table, seats: Seats | None = None, *, keyframes: KeyframeSource | None = None,
                 spectator_delay_min: float = 0.0, allowed_origins: tuple[str, ...] = (), public_url: str = "",
                 clock: Callable[[], float] = time.time) -> None:
        self.table = table
        self.seats = seats or Seats(tuple(table.start.get("players", ("red", "blue"))))
        self.keyframes = keyframes
        self.calibration: CalibrationService | None = None  # the overhead camera's, when there is one
        self.judge_callers: list[Callable[[str], None]] = []  # e.g. the hub pusher's call_judge
        self.spectator_delay_min = spectator_delay_min
        self.allowed_origins = tuple(allowed_origins)
        self.public_url = public_url  # where phones reach this table, for the join QR codes (empty: guess)
        self.clock = clock
        self.catalog = Catalog.packaged()
        self._base = 0
        self._cache_lock = threading.Lock()
        self._entries: list[Entry] = []
        self._views: dict[tuple[Viewer, int, int], dict[str, Any]] = {}
        self._delayed: dict[int, Scene] = {}
        self._frames: dict[int, list[str]] = {}  # keyframes of rows old enough not to get new ones

    def replace(self, table: Table) -> None:
        with self._cache_lock:
            self._base += self.table.version() + 1
            self.table = table
            self._entries, self._views, self._delayed, self._frames = [], {}, {}, {}

    # --- change notification --------------------------------------------------------------------------------
    def version(self) -> int:
        return self._base + self.table.version()

    def wait_for_change(self, after: int, timeout: float) -> int:
        base = self._base
        return base + self.table.wait_for_change(after - base, timeout)

    # --- who is connecting ----------------------------------------------------------------------------------
    def authenticate(self, token: str | None, pin: str | None, local: bool) -> Viewer:
        return self.seats.authenticate(token, pin, local)

    def calibration_state(self) -> dict[str, Any] | None:
        return None if self.calibration is None else self.calibration.state()

    def calibration_overlay(self) -> bytes | None:
        return None if self.calibration is None else self.calibration.overlay_jpeg()

    def set_calibration_corners(self, corners: list[list[float]]) -> dict[str, Any]:
        if self.calibration is None:
            raise InputError("this table has no overhead camera to calibrate")
        return self.calibration.set_corners(corners)

    def learn_colours(self, samples: dict[str, str]) -> dict[str, Any]:
        if self.calibration is None:
            raise InputError("this table has no overhead camera")
        return self.calibration.learn_colours(samples)

    def judge_key_ok(self, key: str | None) -> bool:
        return self.seats.judge_key_ok(key)

    def judge_key(self) -> str:
        return self.seats.judge_key

    def join_tokens(self) -> dict[str, str]:
        """Seat -> token, and "spectator" -> the spectator token: for the judge's host page only."""
        return dict(self.seats.tokens)

    # --- views ----------------------------------------------------------------------------------------------
    def _cached_entries(self) -> list[Entry]:
        table = self.table
        with table.lock:
            last = self._entries[-1].seq if self._entries else 0
            if table.record.last_seq > last:
                self._entries = self._entries + table.entries(after=last)
            return self._entries

    def _delayed_scene(self) -> Scene | None:
        if self.spectator_delay_min <= 0:
            return None
        cutoff = self.clock() - self.spectator_delay_min * 60.0
        upto = 1
        for e in self._cached_entries():
            if e.ts > cutoff:
                break
            upto = e.seq
        if upto not in self._delayed:
            self._delayed = {upto: Scene.of_record(self.table, upto)}
        return self._delayed[upto]

    def snapshot(self, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """The state as `viewer` may see it (JSON-serialisable). Cached: the same object comes back
        until the table changes (or, for delayed spectators, until the delayed row moves on)."""
        with self._cache_lock:
            table = self.table
            with table.lock:
                version = self._base + table.version()
                scene = self._delayed_scene() if viewer.role == "spectator" else None
                key = (viewer, version, scene.seq if scene is not None else -1)
                if key not in self._views:
                    if len(self._views) > 32:
                        self._views = {k: v for k, v in self._views.items() if k[1] == version}
                    if scene is None:
                        scene = Scene.of_table(table, self._cached_entries())
                    view = view_for(None, viewer, version, scene=scene, catalog=self.catalog)
                    if scene.seq != table.record.last_seq:
                        view["delayed_min"] = self.spectator_delay_min
                    if viewer.role == "judge":
                        view["keyframes"] = self._keyframes_of([e["seq"] for e in view["log"]])
                    self._views[key] = view
                return self._views[key]

    def entries_since(self, viewer: Viewer, after: int) -> list[dict[str, Any]]:
        """Every record entry after row `after` that `viewer` may see, projected for them."""
        with self._cache_lock:
            table = self.table
            with table.lock:
                scene = self._delayed_scene() if viewer.role == "spectator" else None
                if scene is None:
                    return entries_for(self._cached_entries(), table.game.state, viewer, after, self.catalog)
                return entries_for(scene.entries, scene.game.state, viewer, after, self.catalog)

    def map_image(self) -> tuple[bytes, str]:
        name = str(self.table.board.texture.get("file", "map_top.jpeg"))
        return (resources.files("vision") / "assets" / name).read_bytes(), "image/jpeg"

    def _keyframes_of(self, seqs: list[int]) -> dict[str, list[str]]:
        """Row -> cameras with a keyframe, for the judge's timeline (rows near the head are looked up
        again each time: their frames may still be on their way to the store)."""
        if self.keyframes is None:
            return {}
        store, recent = self.keyframes, self.table.record.last_seq - KEYFRAME_SETTLE_ROWS
        out: dict[str, list[str]] = {}
        for seq in seqs:
            cams = self._frames.get(seq)
            if cams is None:
                cams = [c for c in KEYFRAME_CAMERAS if store.path(seq, c) is not None]
                if seq < recent:
                    self._frames[seq] = cams
            if cams:
                out[str(seq)] = cams
        return out

    def keyframe(self, seq: int, camera: str) -> bytes | None:
        """The camera frame kept for record row `seq`, as JPEG bytes, or None when there is none."""
        if self.keyframes is None or camera not in KEYFRAME_CAMERAS:
            return None
        path = self.keyframes.path(seq, camera)
        if path is None or not path.is_file():
            return None
        return path.read_bytes()

    # --- inputs ---------------------------------------------------------------------------------------------
    def call_judge(self, viewer: Viewer) -> dict[str, Any]:
        if viewer.role != "player" or viewer.seat is None:
            raise AccessDenied("only a player at the table calls a judge")
        self.table.warn(f"{viewer.seat} called a judge")
        for call in self.judge_callers:
            call(viewer.seat)
        return {"hub": bool(self.judge_callers)}

    def act(self, viewer: Viewer, text: str) -> dict[str, Any]:
        """A player's action (only for their own seat) or a judge's; returns the recorded entry as the
        viewer sees it. Bad notation raises `InputError`; a rules rejection comes back with `accepted`
        false, `rule` and `message`."""
        words = text.split()
        if viewer.role == "spectator":
            raise AccessDenied("spectators cannot act")
        if viewer.role == "player" and (not words or words[0] != viewer.seat):
            raise AccessDenied(f"you sit at {viewer.seat}: actions must start with '{viewer.seat}'")
        source = "judge" if viewer.role == "judge" else f"phone:{viewer.seat}"
        entry = self.table.act(source, text)
        return self._project(viewer, entry)

    def undo(self, viewer: Viewer, reason: str) -> dict[str, Any]:
        self._judge_only(viewer, "undo")
        return self._project(viewer, self.table.undo("judge", reason))

    def correct(self, viewer: Viewer, target: int, text: str, reason: str) -> dict[str, Any]:
        self._judge_only(viewer, "correct")
        return self._project(viewer, self.table.correct("judge", target, text, reason))

    def _judge_only(self, viewer: Viewer, what: str) -> None:
        if viewer.role != "judge":
            raise AccessDenied(f"only a judge may {what}")

    def _project(self, viewer: Viewer, entry: Entry) -> dict[str, Any]:
        for e in self.entries_since(viewer, entry.seq - 1):
            if e["seq"] == entry.seq:
                return e
        raise InputError(f"row {entry.seq} is not visible to {viewer.name}")  # pragma: no cover - defensive
