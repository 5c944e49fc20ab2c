"""`kipukas-tracker run --config FILE`: one table on real cameras, until stopped (SIGTERM / Ctrl-C)."""

from __future__ import annotations

import argparse
import signal
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


def run(args: argparse.Namespace) -> int:
    from tracker.config import ConfigError, load_config
    from tracker.runtime import TableRuntime, load_board, open_record, read_decks
    from tracker.server import WebServer

    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    if "synthetic" in (cfg.overhead.source, cfg.front.source):
        raise UsageError(f"{args.config}: synthetic cameras are for `kipukas-tracker demo`")
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
    table = open_record(state_dir, read_decks(files) if files else None, load_board(cfg))
    runtime = TableRuntime(cfg, table, state_dir)
    try:
        server = WebServer(runtime.service, cfg.host, cfg.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {cfg.host}:{cfg.port}: {exc.strerror}") from exc
    signal.signal(signal.SIGTERM, lambda *_: runtime.stop.set())
    runtime.start()
    server.start()
    print(f"kipukas-tracker run: table {cfg.name!r} on http://{cfg.host}:{server.port}/, "
          f"record {table.record.path}", flush=True)
    runtime.dog.ready(f"watching table {cfg.name}")
    try:
        runtime.stop.wait()
    except KeyboardInterrupt:
        runtime.stop.set()
    runtime.dog.stopping()
    server.shutdown()
    table.record.close()
    return 0
