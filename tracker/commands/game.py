"""`kipukas-tracker game new|status`: start a new game at a table (a running tracker switches to it
within seconds), or say which game is in progress."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rules.errors import RulesError
from tracker.errors import UsageError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("game", help="start a new game, or show the game in progress")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    new = verbs.add_parser("new", help="start a new game with each seat's deck file")
    new.add_argument("--config", required=True, type=Path)
    new.add_argument("--deck", action="append", default=[], metavar="SEAT=FILE", required=True)
    new.add_argument("--state-dir", type=Path)
    new.add_argument("--style", default="domination", help="play style of #playstyleoptions (default domination)")
    new.add_argument("--cycles", type=int, help="the style's fixed number of diel cycles")
    new.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                     help="another style parameter (limit, hill, hold, marked, camps)")
    new.set_defaults(func=start)
    status = verbs.add_parser("status", help="the game in progress, as JSON")
    status.add_argument("--config", required=True, type=Path)
    status.add_argument("--state-dir", type=Path)
    status.add_argument("--deck", action="append", default=[], help=argparse.SUPPRESS)
    status.set_defaults(func=show)


def start(args: argparse.Namespace) -> int:
    from tracker.commands.run import table_setup
    from tracker.runtime.appliance import load_board, new_game, read_decks

    cfg, state_dir, files = table_setup(args)
    if set(files) != set(cfg.players):
        raise UsageError(f"--deck: give one deck per seat ({', '.join(cfg.players)})")
    style = {"name": args.style, "cycles": args.cycles, "params": style_params(args.param)}
    try:
        table = new_game(state_dir, read_decks(files), load_board(cfg), style)
    except RulesError as exc:
        raise UsageError(f"--style {args.style}: {exc}") from exc
    print(json.dumps({"record": table.record.path, "rows": table.record.last_seq}))
    table.record.close()
    return 0


def style_params(pairs: list[str]) -> dict[str, object]:
    """``KEY=VALUE`` pairs; a whole number is a number, anything else a text (a territory id)."""
    out: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--param {pair!r}: give KEY=VALUE")
        out[key] = int(value) if value.lstrip("-").isdigit() else value
    return out


def show(args: argparse.Namespace) -> int:
    from tracker.commands.run import table_setup
    from tracker.record.store import GameRecord
    from tracker.runtime.appliance import current_game

    _, state_dir, _ = table_setup(args)
    path = current_game(state_dir)
    if path is None:
        print(json.dumps({"record": None}))
        return 0
    record = GameRecord(str(path), readonly=True)
    print(json.dumps({"record": str(path), "rows": record.last_seq, "verified": record.verify().ok}))
    return 0
