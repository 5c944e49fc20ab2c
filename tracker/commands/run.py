"""`kipukas-tracker run --config FILE`: one table on real cameras, until stopped (SIGTERM / Ctrl-C)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from tracker.errors import UsageError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("run", help="track a real table with its cameras")
    p.add_argument("--config", required=True, type=Path, help="the table's TOML configuration")
    p.add_argument("--deck", action="append", default=[], metavar="SEAT=FILE",
                   help="start a new game with this deck file (give one per seat); without: resume")
    p.add_argument("--state-dir", type=Path, help="override [table] state_dir")
    p.set_defaults(func=run)


def table_setup(args: argparse.Namespace) -> tuple[Any, Path, dict[str, Path]]:
    """The configuration, the state folder and the deck files named on the command line."""
    from tracker.config import ConfigError, load_config

    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    state_dir = args.state_dir or (Path(cfg.state_dir) if cfg.state_dir else None)
    if state_dir is None:
        raise UsageError(f"{args.config}: [table] state_dir is not set (or pass --state-dir)")
    files: dict[str, Path] = {}
    for item in args.deck:
        seat, _, path = item.partition("=")
        if seat not in cfg.players or not path:
            raise UsageError(f"--deck {item!r}: expected SEAT=FILE with SEAT one of {', '.join(cfg.players)}")
        files[seat] = Path(path)
    if files and set(files) != set(cfg.players):
        raise UsageError(f"--deck: give one deck per seat ({', '.join(cfg.players)})")
    return cfg, state_dir, files


def wait_for_game(state_dir: Path, dog: Any, stop: threading.Event) -> Path | None:
    """No game in progress: stay up (feeding the watchdog) until an organiser starts one."""
    from tracker.runtime.appliance import current_game

    dog.watch("waiting")
    dog.ready("waiting for a game: kipukas-tracker game new --config FILE --deck red=FILE --deck blue=FILE")
    print(f"kipukas-tracker run: no game in progress in {state_dir}; waiting for "
          "`kipukas-tracker game new`", flush=True)
    while not stop.wait(1.0):
        dog.beat("waiting")
        path = current_game(state_dir)
        if path is not None:
            dog.unwatch("waiting")
            return path
    return None


def engine_line() -> str:
    """The start-up line that tells an operator which rules engine the service runs, and how to get the
    compiled one when it is not."""
    from rules.kipukas.compiled import running_engine

    if running_engine() == "compiled":
        return "rules engine compiled (mypyc build of these sources)"
    return ("rules engine interpreted (no compiled build of these sources; systemd/install.sh builds it, "
            "with gcc and python3-dev)")


def run(args: argparse.Namespace) -> int:
    from tracker.runtime.appliance import (
        TableRuntime,
        current_game,
        interface_game,
        load_board,
        new_game,
        open_game,
        read_decks,
        table_style,
    )
    from tracker.runtime.native_logs import join_all
    from tracker.runtime.server import WebServer
    from tracker.runtime.watchdog import Watchdog

    cfg, state_dir, files = table_setup(args)
    if cfg.game != "kipukas":
        if files:
            raise UsageError(f"{args.config}: [game] name = {cfg.game!r}: --deck starts Kipukas games; start a "
                             f"{cfg.game} game with `kipukas-tracker game new --config {args.config}`")
        return serve_interface_game(cfg, state_dir, None)
    if "synthetic" in (cfg.overhead.source, cfg.front.source):
        raise UsageError(f"{args.config}: synthetic cameras are for `kipukas-tracker demo`")
    board = load_board(cfg)
    style = table_style(cfg, board)  # a bad [style] stops the table before it starts
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    dog = Watchdog(stall_s=20.0)
    dog.start(stop)
    try:
        if files:
            table = new_game(state_dir, read_decks(files), board, style)
        else:
            path = current_game(state_dir) or wait_for_game(state_dir, dog, stop)
            if path is None:
                dog.stopping()
                return 0
            if interface_game(path) is not None:  # the organiser started another game: the record decides
                return serve_interface_game(cfg, state_dir, (path, dog, stop))
            table = open_game(path, state_dir, board)
        runtime = TableRuntime(cfg, table, state_dir, dog, stop)
        try:
            server = WebServer(runtime.service, cfg.host, cfg.port)
        except OSError as exc:
            raise UsageError(f"cannot listen on {cfg.host}:{cfg.port}: {exc.strerror}") from exc
        workers = runtime.start()
        server.start()
    except BaseException:
        stop.set()  # a table that never started must not leave its watchdog thread behind
        raise
    print(f"kipukas-tracker run: table {cfg.name!r} on http://{cfg.host}:{server.port}/, "
          f"record {table.record.path}", flush=True)
    print(f"kipukas-tracker run: {engine_line()}", flush=True)
    runtime.dog.ready(f"watching table {cfg.name}")
    try:
        runtime.stop.wait()
    except KeyboardInterrupt:
        runtime.stop.set()
    runtime.dog.stopping()
    server.shutdown()
    late = join_all(workers)  # never exit while a camera thread is inside a decode
    if late:
        print(f"kipukas-tracker run: stopped without waiting for {', '.join(late)}", file=sys.stderr)
    runtime.close()
    runtime.table.close()
    return 0


def serve_interface_game(cfg: Any, state_dir: Path, started: tuple[Path, Any, threading.Event] | None) -> int:
    """Serve a game of `rules.core.registry` other than Kipukas to phones (`tracker.runtime.game_runtime`):
    the game in progress, or the first one `game new` starts. `started`: the game, watchdog and stop
    event when the Kipukas path already found them."""
    from tracker.runtime.appliance import current_game, interface_game
    from tracker.runtime.game_runtime import GameRuntime
    from tracker.runtime.native_logs import join_all
    from tracker.runtime.server import WebServer
    from tracker.runtime.watchdog import Watchdog

    if started is None:
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        dog = Watchdog(stall_s=20.0)
        dog.start(stop)
        found = current_game(state_dir) or wait_for_game(state_dir, dog, stop)
        if found is None:
            dog.stopping()
            return 0
        path = found
    else:
        path, dog, stop = started
    try:
        if interface_game(path) is None:
            dog.stopping()
            raise UsageError(f"{path}: holds a Kipukas game but [game] name is {cfg.game!r}: start a {cfg.game} game "
                             "with `kipukas-tracker game new`, or set [game] name = \"kipukas\"")
        runtime = GameRuntime(cfg, path, state_dir, dog, stop)
        try:
            server = WebServer(runtime.service, cfg.host, cfg.port)
        except OSError as exc:
            runtime.close()
            raise UsageError(f"cannot listen on {cfg.host}:{cfg.port}: {exc.strerror}") from exc
        workers = runtime.start()
        server.start()
    except BaseException:
        stop.set()  # a game that never started must not leave its watchdog thread behind
        raise
    print(f"kipukas-tracker run: {runtime.table.name} table {cfg.name!r} on http://{cfg.host}:{server.port}/, "
          f"record {runtime.table.record.path}", flush=True)
    dog.ready(f"serving the {runtime.table.name} table {cfg.name}")
    try:
        stop.wait()
    except KeyboardInterrupt:
        stop.set()
    dog.stopping()
    server.shutdown()
    join_all(workers)
    runtime.close()
    return 0
