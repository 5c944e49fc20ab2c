"""A table whose game is not Kipukas, served to phones: what `run` and `demo --game` start for them.

`GameRuntime` opens the game in progress (`records/current`) with `tracker.table.games.GameTable`, serves
it through `tracker.service.game_service.GameService`, follows a new record an organiser starts (`game
new`), pushes every record to the tournament hub when one is configured (the pusher carries rows, so it
is the same for every game), and proves with the watchdog that the table lock is not stuck. For a game
that reads its board (the tile-map game) with `[overhead]` set, it runs the overhead camera loop of
`tracker.runtime.tile_camera`; Colossal Kaiju Combat is played phone-first.

`DemoGame` is `demo --game NAME`: the same service on a fresh record in a temporary folder, with no
cameras; it can play random legal actions for the seats on its own (`autoplay_s`), so a visitor sees a
game move, while phones and the judge page act as at a real table.
"""

from __future__ import annotations

import json
import logging
import random
import tempfile
import threading
from pathlib import Path
from typing import Any

from rules.core.errors import RulesError
from rules.core.registry import example
from rules.core.selfplay import choose
from tracker.config import TableConfig
from tracker.errors import InputError, RecordError
from tracker.record.hub_push import HubPusher
from tracker.record.keys import load_or_create_key
from tracker.record.store import GameRecord
from tracker.runtime.tile_camera import TileCamera
from tracker.runtime.watchdog import Watchdog
from tracker.service.game_service import GameService
from tracker.service.seats import JUDGE, Seats
from tracker.table.games import GameTable

log = logging.getLogger("kipukas-tracker")


def start_record(state_dir: Path, name: str, config: dict[str, Any]) -> tuple[Path, GameTable]:
    """A new record of game `name` set up from `config`, made the game in progress (``records/current``);
    the game's set-up errors raise `InputError` before any record is kept. The caller closes the record."""
    from tracker.runtime.appliance import fresh_record, make_current

    path = fresh_record(state_dir)
    record = GameRecord(str(path), load_or_create_key(state_dir))
    try:
        table = GameTable.start(record, name, config)
    except (RulesError, KeyError) as exc:
        record.close()
        path.unlink(missing_ok=True)
        raise InputError(f"{name}: the configuration cannot start a game: {exc}") from exc
    make_current(path)
    return path, table


def configuration(cfg: TableConfig, name: str, decks: dict[str, Any]) -> dict[str, Any]:
    """The configuration a new game of `name` starts from at this table: the registry's example for the
    table's seats, `[game]`'s keys when it names this game, and each seat's deck (its JSON entry of the
    configuration's ``seats``, for a game whose seats carry decks)."""
    try:
        config: dict[str, Any] = json.loads(json.dumps(example(name, list(cfg.players))))
    except (RulesError, ValueError) as exc:
        raise InputError(f"{name}: cannot seat {', '.join(cfg.players)}: {exc}") from exc
    if name == cfg.game:
        config.update(cfg.game_params)
    if decks:
        seats = config.get("seats")
        if not isinstance(seats, dict):
            raise InputError(f"a {name} game takes no decks")
        seats.update(decks)
    return config


def open_interface_table(path: Path, state_dir: Path) -> GameTable:
    """The interface game a record holds, replayed (a Kipukas record is a `RecordError`)."""
    record = GameRecord(str(path), load_or_create_key(state_dir))
    try:
        return GameTable.open(record)
    except Exception:
        record.close()
        raise


class GameRuntime:
    """One interface game's table on its pages (see the module docstring)."""

    def __init__(self, cfg: TableConfig, path: Path, state_dir: Path, dog: Watchdog | None = None,
                 stop: threading.Event | None = None) -> None:
        self.cfg, self.state_dir, self.game_path = cfg, state_dir, path
        self.table = open_interface_table(path, state_dir)
        seats = Seats(tuple(self.table.game.seats), judge_pin=cfg.judge_pin, path=state_dir / "seats.json")
        self.service = GameService(self.table, seats, spectator_delay_min=cfg.spectator_delay_min,
                                   allowed_origins=cfg.allowed_origins, public_url=cfg.public_url)
        self.stop = stop or threading.Event()
        self._own_dog = dog is None
        self.dog = dog or Watchdog(stall_s=20.0)
        self.hub: HubPusher | None = None
        self._retired: list[GameTable] = []
        self.service.organiser = self.organise

    def organise(self, name: str, decks: dict[str, list[str]]) -> tuple[str, list[str]]:
        """The organiser page's new game (`GameService.start_game`): a seat's deck lines are its JSON deck,
        as `game new --deck`; the heartbeat then switches the pages to it, as after `game new`."""
        parsed: dict[str, Any] = {}
        for seat, lines in decks.items():
            if seat not in self.cfg.players:
                raise InputError(f"deck for {seat!r}: this table seats {', '.join(self.cfg.players)}")
            try:
                parsed[seat] = json.loads("\n".join(lines))
            except ValueError as exc:
                raise InputError(f"{seat}'s deck: not a JSON deck ({exc})") from exc
        path, table = start_record(self.state_dir, name, configuration(self.cfg, name, parsed))
        table.record.close()
        return path.name, list(table.game.seats)

    def switch_game(self) -> bool:
        """Follow ``records/current`` to a new interface game; a Kipukas record there is left to a Kipukas
        tracker (a warning every page shows, once)."""
        from tracker.runtime.appliance import current_game, interface_game

        path = current_game(self.state_dir)
        if path is None or path == self.game_path:
            return False
        self.game_path = path
        if interface_game(path) is None:
            self.table.warn(f"records/current names a Kipukas game ({path.name}): restart the tracker to serve it")
            return False
        table = open_interface_table(path, self.state_dir)
        self._retired.append(self.table)
        self.table = table
        if tuple(table.game.seats) != self.service.seats.players:  # other seats: their own tokens (kept ones stay)
            seats = Seats(tuple(table.game.seats), judge_pin=self.cfg.judge_pin, path=self.state_dir / "seats.json")
            seats.judge_key = self.service.seats.judge_key  # the judge page's key lasts the run
            self.service.seats = seats
        self.service.replace(table)
        if self.hub is not None:
            self.hub.nudge()
        return True

    def heartbeat(self) -> None:
        seen = self.table.version()
        while not self.stop.wait(1.0):
            with self.table.lock:  # a stuck table lock stops the beats, and the watchdog notices
                pass
            try:
                if self.switch_game():
                    log.info("switched to the new game %s", self.game_path)
            except (RecordError, OSError, ValueError) as exc:  # a broken new record must not stop this game
                self.table.warn(f"cannot open the new game: {exc}")
            now = self.table.version()
            if now != seen and self.hub is not None:
                self.hub.nudge()
            seen = now
            self.dog.beat("table")

    def hub_status(self) -> dict[str, Any]:
        """What the organiser's page shows of this table: the judge's view without hands or decks."""
        view = self.service.snapshot(JUDGE)
        keys = ("players", "phase", "result", "warnings", "seq")
        return {k: view.get(k) for k in keys} | {"game": self.game_path.stem, "kind": self.table.name}

    def start(self) -> list[threading.Thread]:
        self.dog.watch("table")
        threads = [threading.Thread(target=self.heartbeat, name="table", daemon=True)]
        threads[0].start()
        camera = TileCamera.build(self.cfg, self.table, self.state_dir, lambda: self.table, self.dog, self.stop)
        if camera is not None:  # a game that reads its board, with a tile layout and a calibrated camera
            self.dog.watch("overhead camera")
            threads.append(threading.Thread(target=camera.run, name="overhead camera", daemon=True))
            threads[-1].start()
        if self.cfg.hub_url:  # not watched: a hub away must never stop the table
            self.hub = HubPusher(self.cfg.hub_url, self.cfg.hub_token, self.state_dir / "records", self.hub_status)
            hub = self.hub
            self.service.judge_callers.append(lambda seat: hub.call_judge())
            threads.append(hub.start(self.stop))
        if self._own_dog:
            threads.append(self.dog.start(self.stop))
        return threads

    def close(self) -> None:
        for table in [*self._retired, self.table]:
            table.record.close()
        self._retired = []


class DemoGame:
    """`demo --game NAME`: a game of the registry on a fresh record, served with no cameras."""

    def __init__(self, name: str, config: dict[str, Any] | None = None, autoplay_s: float = 0.0, seed: int = 1,
                 folder: Path | None = None) -> None:
        self.folder = folder or Path(tempfile.mkdtemp(prefix=f"kipukas-demo-{name}-"))
        key = load_or_create_key(self.folder)
        config = dict(config or demo_config(name))
        record = GameRecord(str(self.folder / f"demo-{name}.sqlite"), key)
        self.table = GameTable.start(record, name, config)
        self.service = GameService(self.table)
        self.autoplay_s = autoplay_s
        self.rng = random.Random(seed)
        self.stop = threading.Event()

    def step(self) -> bool:
        """One random legal action for whichever seat may act (False when there is none: the game is over)."""
        with self.table.lock:
            lines = self.table.game.legal_actions()
            if not lines:
                return False
            line = choose(lines, self.rng, {"keep": 3.0, "pass": 0.3, "end": 0.3})
        self.table.act(line, f"phone:{line.split()[0]}")
        return True

    def run(self) -> None:
        while self.autoplay_s > 0 and not self.stop.wait(self.autoplay_s):
            if not self.step():
                break

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="demo-game", daemon=True)
        thread.start()
        return thread


def demo_config(name: str) -> dict[str, Any]:
    """The demo's configuration of a game: the registry's example for red and blue (packaged decks or map)."""
    return dict(example(name, ["red", "blue"]))
