"""`kipukas-tracker hub`: one process of the tournament hub (run several, one per port, behind nginx),
and `hub token`: a new table token and the line for hub.toml."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tracker.errors import UsageError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("hub", help="run one process of the tournament hub")
    p.add_argument("--config", help="the hub's configuration (hub.toml)")
    p.add_argument("--port", type=int, help="port of this process (default: [hub] port)")
    p.add_argument("action", nargs="?", choices=("serve", "token"), default="serve",
                   help="serve (default), or token: print a new table token and its hub.toml line")
    p.add_argument("--table", help="with token: the table id the token is for")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hub.settings import TABLE_ID, load_hub_config, new_token
    from tracker.config import ConfigError

    if args.action == "token":
        if not args.table or not TABLE_ID.match(args.table):
            raise UsageError("hub token needs --table ID (1-32 letters, digits, _ or -)")
        token, digest = new_token()
        print(json.dumps({"table": args.table, "token": token, "hub_toml": f'"{args.table}" = "{digest}"'}))
        return 0
    if not args.config:
        raise UsageError("hub needs --config hub.toml")
    if args.port is not None and not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port")
    try:
        cfg = load_hub_config(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    # the hub process is gevent's: patch before its sockets and threads are made (and only once the
    # configuration is known to be good, so a usage error leaves the calling process as it was)
    from gevent import monkey

    monkey.patch_all()
    from hub.app import serve

    try:
        serve(cfg, args.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {cfg.host}:{args.port or cfg.port}: {exc.strerror}") from exc
    return 0
