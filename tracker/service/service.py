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

from rules.kipukas.catalog import Catalog
from tracker.errors import InputError, UsageError
from tracker.overhead.calibration_service import CalibrationService
from tracker.service.choices import resolve
from tracker.service.organiser import Registrar, decks_for, play_styles, style_body
from tracker.service.seats import SPECTATOR, AccessDenied, Seats, Viewer
from tracker.service.served import ServedTable
from tracker.service.views import Scene, entries_for, view_for
from tracker.table.dice_roll import DiceDesk
from tracker.table.table import Entry, Table

KEYFRAME_CAMERAS = ("overhead", "front")
KEYFRAME_SETTLE_ROWS = 20
ENTRY_TAIL = 400   # record entries kept in memory for views (older ones are read from the record in pages)
LOG_PAGE = 200     # record entries per `log` message


class KeyframeSource(Protocol):
    """Where the tracker keeps camera frames of record rows (`tracker.record.keyframes.KeyframeStore`)."""

    def path(self, seq: int, camera: str) -> Path | None: ...


class TableService(ServedTable):
    """Versions keep growing when the table is replaced (the demo starts a new game each round)."""

    table: Table
    game = "kipukas"  # the registry name of the game served (the pages choose their page by it)

    def __init__(self, table: Table, seats: Seats | None = None, *, keyframes: KeyframeSource | None = None,
                 spectator_delay_min: float = 0.0, allowed_origins: tuple[str, ...] = (), public_url: str = "",
                 clock: Callable[[], float] = time.time) -> None:
        self.table = table
        self.seats = seats or Seats(tuple(table.start.get("players", ("red", "blue"))))
        self.keyframes = keyframes
        self.calibration: CalibrationService | None = None  # the overhead camera's, when there is one
        self.dice: DiceDesk | None = None  # the camera's dice (rolls read, waiting for a tap), when there is one
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
        self._fingerprints: dict[str, str] = {}
        # The composition root's "start a new game" (deck lines per seat, style -> record path), when it has one.
        self.organiser: Callable[[dict[str, list[str]], dict[str, Any] | None], str] | None = None
        self.registrar: Registrar | None = None  # deck registration with the front camera, when there is one

    def replace(self, table: Table) -> None:
        with self._cache_lock:
            self._base += self.table.version() + 1
            self.table = table
            self._entries, self._views, self._delayed, self._frames = [], {}, {}, {}

    def calibration_state(self) -> dict[str, Any] | None:
        return None if self.calibration is None else self.calibration.state()

    def calibration_overlay(self) -> bytes | None:
        return None if self.calibration is None else self.calibration.overlay_jpeg()

    def set_calibration_corners(self, corners: list[list[float]]) -> dict[str, Any]:
        if self.calibration is None:
            raise InputError("this table has no overhead camera to calibrate")
        return self.calibration.set_corners(corners)

    def learn_colours(self, samples: dict[str, str]) -> dict[str, Any]:
        seats = self.seats.players
        strangers = sorted({seat for seat in samples.values() if seat not in seats})
        if strangers:  # a colour for a label that is no seat would make the reader propose unparseable actions
            raise InputError(f"{strangers[0][:16]!r} is not a seat of this table (seats: {', '.join(seats)}): "
                             "colours are learned only for seats")
        if self.calibration is None:
            raise InputError("this table has no overhead camera")
        return self.calibration.learn_colours(samples)

    # --- views ----------------------------------------------------------------------------------------------
    def _cached_entries(self) -> list[Entry]:
        """The record's last `ENTRY_TAIL` entries (hold the table's lock)."""
        table = self.table
        last = self._entries[-1].seq if self._entries else max(0, table.record.last_seq - ENTRY_TAIL)
        if table.record.last_seq > last:
            self._entries = (self._entries + table.entries(after=last))[-ENTRY_TAIL:]
        return self._entries

    def _delayed_upto(self) -> int | None:
        """The record row delayed spectators see now, or None without a delay."""
        if self.spectator_delay_min <= 0:
            return None
        table = self.table
        with table.lock:
            return table.record.last_row_before(self.clock() - self.spectator_delay_min * 60.0)

    def _delayed_scene(self) -> Scene | None:
        """The delayed spectators' scene, rebuilt off the table's lock from the nearest snapshot."""
        upto = self._delayed_upto()
        if upto is None:
            return None
        with self._cache_lock:
            table, scene = self.table, self._delayed.get(upto)
            earlier = next(iter(self._delayed.values()), None)
        if scene is None:
            scene = Scene.of_record(table, upto, earlier)
            with self._cache_lock:
                if self.table is table:
                    self._delayed = {upto: scene}
        return scene

    def snapshot(self, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """The state as `viewer` may see it (JSON-serialisable). Cached: the same object comes back
        until the table changes (or, for delayed spectators, until the delayed row moves on)."""
        delayed = self._delayed_scene() if viewer.role == "spectator" else None
        with self._cache_lock:
            table = self.table
            with table.lock:
                version = self._base + table.version()
                scene = delayed if delayed is not None and delayed.seq < table.record.last_seq else None
                key = (viewer, version, scene.seq if scene is not None else -1)
                if key not in self._views:
                    if len(self._views) > 32:
                        self._views = {k: v for k, v in self._views.items() if k[1] == version}
                    if scene is None:
                        scene = Scene.of_table(table, self._cached_entries())
                    view = view_for(None, viewer, version, scene=scene, catalog=self.catalog)
                    if scene.seq != table.record.last_seq:
                        view["delayed_min"] = self.spectator_delay_min
                    else:  # every page is a witness of the latest signed head (issue 16)
                        view["signed_head"] = table.record.signed_head()
                    view["table_key"] = table.record.fingerprint
                    desk = self.dice
                    if desk is not None and desk.table is table and viewer.role in ("player", "judge"):
                        desk.drop_answered()
                        view["camera_rolls"] = desk.views(viewer.seat)
                    if viewer.role == "judge":
                        view["keyframes"] = self._keyframes_of([e["seq"] for e in view["log"]])
                        view["key_fingerprint"] = self.key_fingerprint()
                    self._views[key] = view
                return self._views[key]

    def entries_since(self, viewer: Viewer, after: int) -> list[dict[str, Any]]:
        """Every record entry after row `after` that `viewer` may see, projected for them."""
        return [e for page in self.log_pages(viewer, after, newest_only=False) for e in page]

    def log_pages(self, viewer: Viewer, after: int, newest_only: bool = True) -> list[list[dict[str, Any]]]:
        """The record entries after row `after` that `viewer` may see, `LOG_PAGE` rows a page, oldest
        first. A page with nothing to hold (`after` 0, `newest_only`) gets only the newest page: older
        rows are the judge's replay page's and the export's."""
        delayed = self._delayed_scene() if viewer.role == "spectator" else None
        with self._cache_lock:
            table = self.table
            with table.lock:
                last = table.record.last_seq
                scene = delayed if delayed is not None and delayed.seq < last else None
                # a copy taken under the lock: the engine changes its state in place (undo records)
                state = (scene or Scene.of_table(table, self._cached_entries())).game.state.copy()
                upto = scene.seq if scene is not None else last
                tail = scene.entries if scene is not None else self._cached_entries()
        if newest_only and after == 0:
            after = max(0, upto - LOG_PAGE)
        pages: list[list[dict[str, Any]]] = []
        while after < upto:
            end = min(upto, after + LOG_PAGE)
            with table.lock:
                rows = [Entry.of(r) for r in table.record.rows(after=after, upto=end)]
            seen = {e.seq for e in rows}
            context = rows + [e for e in tail if e.seq > end and e.seq not in seen]
            page = entries_for(context, state, viewer, after, self.catalog)
            pages.append([e for e in page if e["seq"] <= end])
            after = end
        return pages

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

    # --- the judge's replay and exports ----------------------------------------------------------------------
    def state_at(self, viewer: Viewer, seq: int) -> dict[str, Any]:
        """The judge's view of the table as it stood after row `seq`, rebuilt off the table's lock from
        the nearest snapshot, with that row's entry and keyframes (the replay page)."""
        self._judge_only(viewer, "replay the record")
        table = self.table
        last = table.record.last_seq
        if not 1 <= seq <= last:
            raise InputError(f"row {seq}: the record has rows 1..{last}")
        scene = Scene.of_record(table, seq)
        view = view_for(None, viewer, self.version(), scene=scene, catalog=self.catalog)
        row = [e for e in entries_for(scene.entries, scene.game.state, viewer, seq - 1, self.catalog)
               if e["seq"] == seq]
        view.update({"row": row[0] if row else None, "last_seq": last,
                     "keyframes": self._keyframes_of([seq]).get(str(seq), [])})
        return view

    def start_game(self, viewer: Viewer, decks: dict[str, list[str]], style: str = "",
                   colours: dict[str, str] | None = None, game: str = "") -> dict[str, Any]:
        """A judge starts a new game from the organiser page: deck lines (payloads) per seat (a seat left
        empty takes the cards registered with the front camera), a play style, and the seats' token
        colours (checked against each other and the map before anything starts). A Kipukas table starts
        Kipukas games only: its cameras are Kipukas'."""
        self._judge_only(viewer, "start a new game")
        if game not in ("", "kipukas"):
            raise InputError(f"this Kipukas table starts Kipukas games; a {game} game is started with "
                             f"`kipukas-tracker game new --game {game}` and a restart of the tracker")
        if self.organiser is None:
            raise InputError("this table cannot start games from its pages (the demo plays its own)")
        chosen = style_body(style)
        decks = decks_for(self.seats.players, decks, self.registrar)
        palette: dict[str, Any] = {}
        if colours:
            if self.calibration is None:
                raise InputError("this table has no overhead camera to check token colours with")
            palette = self.calibration.choose_colours(colours)["palette"]
        try:
            path = self.organiser(decks, chosen)
        except (UsageError, ValueError) as exc:
            raise InputError(str(exc)) from exc
        if self.registrar is not None:
            self.registrar.stop()
        return {"record": Path(path).name, "players": sorted(decks), "style": style or "domination",
                "palette": palette}

    def organise_options(self) -> dict[str, Any]:
        """What the organiser's page offers: the seats, the play styles, the token colours (when an overhead
        camera can check them) and whether decks can be registered with the front camera."""
        return {"players": list(self.seats.players), "styles": play_styles(),
                "colours": self.calibration.colour_names() if self.calibration is not None else [],
                "palette": self.calibration.state()["palette"] if self.calibration is not None else {},
                "front_camera": self.registrar is not None, "game": "kipukas", "games": ["kipukas"]}

    def registration(self, viewer: Viewer, action: str, seat: str = "") -> dict[str, Any]:
        """Deck registration with the front camera: ``start`` (for `seat`), ``stop`` or ``status``."""
        self._judge_only(viewer, "register decks")
        if self.registrar is None:
            raise InputError("this table has no front camera to register decks with")
        if action == "start":
            if seat not in self.seats.players:
                raise InputError(f"seat {seat!r}: choose one of {', '.join(self.seats.players)}")
            self.registrar.start(seat)
        elif action == "stop":
            self.registrar.stop()
        elif action != "status":
            raise InputError(f"registration: unknown action {action!r}")
        return self.registrar.status()

    # --- inputs ---------------------------------------------------------------------------------------------
    def act(self, viewer: Viewer, text: str) -> dict[str, Any]:
        """A player's action (only for their own seat) or a judge's; returns the recorded entry as the
        viewer sees it. Bad notation raises `InputError`; a rules rejection comes back with `accepted`
        false, `rule` and `message`."""
        source = self._source_of(viewer, text)
        if viewer.seat is not None and "@" in text:  # a face-down card named by its stand (tap to act)
            with self.table.lock:
                text = resolve(self.table.game, viewer.seat, text)
        desk = self.dice
        if desk is not None and desk.table is self.table and viewer.seat is not None:
            camera = desk.typed(viewer.seat, text)  # a roll the camera read: the same confirms it, another is flagged
            if camera is not None:
                return self._camera_answer(viewer, camera[0])
        entry = self.table.act(source, text, seat=viewer.seat)
        if not entry.seq:  # counted, not stored as a row (a seat that keeps getting rejections)
            with self.table.lock:  # the engine changes its state in place: read it under the table's lock
                state = self.table.game.state.copy()
            seen = entries_for([entry], state, viewer, -1, self.catalog)
            return {**seen[0], "counted": True}
        return self._project(viewer, entry)

    def confirm_roll(self, viewer: Viewer, roll_id: int) -> dict[str, Any]:
        """One tap on "read 14 - confirm": the roll the camera read becomes the prompt's answer."""
        if viewer.role == "spectator":
            raise AccessDenied("spectators cannot confirm rolls")
        desk = self.dice
        if desk is None or desk.table is not self.table:
            raise InputError("this table has no camera reading dice")
        entry = desk.confirm(viewer.seat if viewer.role == "player" and viewer.seat else "judge", roll_id)
        return self._project(viewer, entry)

    def _camera_answer(self, viewer: Viewer, entry: Entry) -> dict[str, Any]:
        """A typed roll that met the camera's reading: the confirmed action, or the flag it raised (a
        judges-only row: the player hears that their word and the camera's went to a question)."""
        if entry.kind != "flag":
            return self._project(viewer, entry)
        return {"seq": entry.seq, "time": entry.ts, "source": entry.source, "kind": "flag", "action": entry.text,
                "label": entry.text, "accepted": False, "rule": "#camera",
                "message": "the camera read something else: your opponent or a judge decides (see the question)"}

    def undo(self, viewer: Viewer, reason: str) -> dict[str, Any]:
        self._judge_only(viewer, "undo")
        return self._project(viewer, self.table.undo("judge", reason))

    def correct(self, viewer: Viewer, target: int, text: str, reason: str) -> dict[str, Any]:
        self._judge_only(viewer, "correct")
        return self._project(viewer, self.table.correct("judge", target, text, reason))

    def _project(self, viewer: Viewer, entry: Entry) -> dict[str, Any]:
        for e in self.entries_since(viewer, entry.seq - 1):
            if e["seq"] == entry.seq:
                return e
        raise InputError(f"row {entry.seq} is not visible to {viewer.name}")  # pragma: no cover - defensive
