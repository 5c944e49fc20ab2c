"""`kipukas-tracker game new|status`: start a new game at a table (a running tracker switches to it
within seconds), or say which game is in progress."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rules.core.errors import RulesError
from tracker.errors import InputError, RecordError, UsageError


def register(sub: Any) -> None:
    from rules.core.registry import names

    p: argparse.ArgumentParser = sub.add_parser("game", help="start a new game, or show the game in progress")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    new = verbs.add_parser("new", help="start a new game with each seat's deck file")
    new.add_argument("--config", required=True, type=Path)
    new.add_argument("--game", help=f"the game ({', '.join(names())}; default: [game] name of the config)")
    new.add_argument("--deck", action="append", default=[], metavar="SEAT=FILE",
                     help="a seat's deck file (Kipukas: required; another game whose seats carry decks: a JSON "
                          "file replacing the seat's entry of its configuration, default its packaged decks)")
    new.add_argument("--state-dir", type=Path)
    new.add_argument("--style", help="play style of #playstyleoptions (default: table.toml's [style], else "
                                     "domination)")
    new.add_argument("--cycles", type=int, help="the style's fixed number of diel cycles")
    new.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                     help="another style parameter (limit, hill, hold, marked, camps, hunted), or a key of the game's "
                          "configuration for the other games (e.g. map=skirmish)")
    new.set_defaults(func=start)
    status = verbs.add_parser("status", help="the game in progress, as JSON")
    status.add_argument("--config", required=True, type=Path)
    status.add_argument("--state-dir", type=Path)
    status.add_argument("--deck", action="append", default=[], help=argparse.SUPPRESS)
    status.set_defaults(func=show)


def start(args: argparse.Namespace) -> int:
    from tracker.commands.run import table_setup
    from tracker.runtime.appliance import load_board, new_game, read_decks, table_style

    cfg, state_dir, files = table_setup(args)
    name = args.game or cfg.game
    if name != "kipukas":
        return start_interface_game(args, cfg, state_dir, files, name)
    if set(files) != set(cfg.players):
        raise UsageError(f"--deck: give one deck per seat ({', '.join(cfg.players)})")
    board = load_board(cfg)
    style: dict[str, Any] | None
    if args.style is not None:  # the command line chooses the style and its parameters
        style = {"name": args.style, "cycles": args.cycles, "params": style_params(args.param)}
    else:  # table.toml's [style], with --cycles / --param on top
        style = table_style(cfg, board) or {"name": "domination", "cycles": None, "params": {}}
        style = {"name": style["name"], "cycles": args.cycles if args.cycles is not None else style["cycles"],
                 "params": {**style["params"], **style_params(args.param)}}
        if style == {"name": "domination", "cycles": None, "params": {}}:
            style = None
    named = args.style if args.style is not None else f"{cfg.source_file}: [style] {cfg.style}"
    try:
        table = new_game(state_dir, read_decks(files), board, style)
    except RulesError as exc:
        raise UsageError(f"--style {named}: {exc}") from exc
    print(json.dumps({"record": table.record.path, "rows": table.record.last_seq}))
    table.close()
    return 0


def start_interface_game(args: argparse.Namespace, cfg: Any, state_dir: Path, files: dict[str, Path],
                         name: str) -> int:
    """A game of the registry other than Kipukas: its configuration from [game] and --param, the seats
    from [table] players; recorded (signed, hash-chained) by `tracker.table.games.GameTable`."""
    from rules.core.registry import UnknownGame, factory
    from tracker.runtime.game_runtime import configuration, start_record

    try:
        factory(name)
    except UnknownGame as exc:
        raise UsageError(f"--game / [game] name: {exc}") from exc
    try:  # the game's own configuration for these seats (packaged decks or map), then table.toml and --param
        config = configuration(cfg, name, {})
        config.update(style_params(args.param))
        seat_decks(name, config, files)
        path, table = start_record(state_dir, name, config)
    except InputError as exc:
        raise UsageError(str(exc)) from exc
    print(json.dumps({"record": str(path), "rows": table.record.last_seq, "game": name,
                      "players": list(table.game.seats)}))
    table.record.close()
    return 0


def seat_decks(name: str, config: dict[str, Any], files: dict[str, Path]) -> None:
    """Each ``--deck SEAT=FILE.json`` replaces that seat's entry of the configuration's ``seats`` (a
    game whose seats carry decks, e.g. kaiju: ``team``, ``characters``, ``planning``, ``combat``)."""
    if not files:
        return
    seats = config.get("seats")
    if not isinstance(seats, dict):
        raise UsageError(f"--deck: a {name} game takes no deck files")
    for seat, path in files.items():
        try:
            seats[seat] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"--deck {seat}={path}: not a readable JSON deck ({exc})") from exc


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
    from rules.kipukas.adapter import KipukasGame
    from tracker.commands.run import table_setup
    from tracker.record.keys import table_public_key
    from tracker.record.snapshots import SnapshotStore, snapshot_path
    from tracker.record.store import GameRecord
    from tracker.runtime.appliance import current_game, load_board
    from tracker.table.games import GameTable, public_status, start_row
    from tracker.table.replay import replay_record

    cfg, state_dir, _ = table_setup(args)
    path = current_game(state_dir)
    if path is None:
        print(json.dumps({"record": None}))
        return 0
    record = GameRecord(str(path), readonly=True)
    verified = record.verify(table_public_key(state_dir)).ok
    out: dict[str, Any] = {"record": str(path), "rows": record.last_seq, "verified": verified}
    if start_row(record) is not None:
        try:
            out.update(GameTable.open(record).status())
        except RecordError as exc:
            raise UsageError(f"{path}: {exc}") from exc
        print(json.dumps(out))
        return 0
    try:
        done = replay_record(record, load_board(cfg), snapshots=SnapshotStore(snapshot_path(str(path)), readonly=True))
    except RecordError as exc:
        raise UsageError(f"{path}: {exc}") from exc
    s = done.game.state
    out.update({"players": done.start.get("players", []), "phase": s.phase, "diel_cycle": s.turn,
                "active": s.active, "initiative": s.initiative, "result": s.result,
                "claims": {t: f"{o} {k}" for t, (o, k) in sorted(s.claims.items())},
                "hands": {p: len(s.in_zone("hand", p)) for p in s.players},
                "decks": {p: len(s.in_zone("deck", p)) for p in s.players}})
    out.update({"game": "kipukas", **public_status(KipukasGame(done.game))})  # as every game shows them
    print(json.dumps(out))
    return 0
