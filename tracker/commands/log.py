"""`kipukas-tracker log verify|export|state FILE`: a judge's tools for a game record."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tracker.commands.exports import FORMATS
from tracker.errors import RecordError, UsageError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("log", help="verify, export or replay a game record")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    v = verbs.add_parser("verify", help="check the hash chain, checkpoints and signed head against the table's key")
    v.add_argument("file", type=Path)
    v.add_argument("--key", metavar="FILE|FINGERPRINT",
                   help="the table's key: a key file, or the fingerprint written down from the judge page "
                        "(default: table_key.pem of the state folder the record lies in)")
    v.add_argument("--state", type=Path, metavar="DIR", help="the table's state folder holding table_key.pem")
    v.add_argument("--witness", type=Path, nargs="+", default=[], metavar="FILE",
                   help="signed heads kept by pages or exports: the record must reach each of them")
    v.set_defaults(func=verify)
    e = verbs.add_parser("export", help="write the record (JSON Lines, JSON, CSV, SQLite or a printable score "
                                        "sheet; stdout by default) and its signed head")
    e.add_argument("file", type=Path)
    e.add_argument("--format", choices=FORMATS, default="jsonl",
                   help="jsonl: one row a line (default); json: one document with the key fingerprint and signed "
                        "head; csv: for a spreadsheet; sqlite: a copy of the signed record (needs --out or a pipe); "
                        "sheet: a printable HTML score sheet")
    e.add_argument("--out", type=Path, help="write to this file instead of stdout")
    e.add_argument("--head", type=Path, metavar="FILE",
                   help="write the signed head (a witness) here (default with --out: OUT.head.json)")
    e.add_argument("--rolls", type=Path, metavar="FILE",
                   help="write each player's reported rolls against fair dice (chi-squared) here as JSON "
                        "(default with --out: OUT.rolls.json; without: on stderr)")
    e.set_defaults(func=export)
    s = verbs.add_parser("state", help="rebuild the game state at a sequence number")
    s.add_argument("file", type=Path)
    s.add_argument("--at", type=int, default=None, help="sequence number (default: the last row)")
    s.set_defaults(func=state)


def _open(path: Path) -> Any:
    from tracker.record.store import GameRecord

    if not path.is_file():
        raise UsageError(f"{path}: no such record file")
    try:
        return GameRecord(str(path), readonly=True)  # a judge's check must not change the file it checks
    except RecordError as exc:
        raise UsageError(str(exc)) from exc


def _pinned(args: argparse.Namespace) -> Any:
    """The key to check against: --key, else the state folder's (--state, or the folder holding the
    record or its parent: records live in STATE/records/)."""
    from tracker.record.keys import pinned_key, table_public_key

    try:
        if args.key:
            return pinned_key(args.key)
        folders = [args.state] if args.state else [args.file.parent, args.file.parent.parent]
        for folder in folders:
            found = table_public_key(folder)
            if found is not None:
                return found
    except RecordError as exc:
        raise UsageError(str(exc)) from exc
    return None


def verify(args: argparse.Namespace) -> int:
    from tracker.record.verify import Witness

    try:
        witnesses = [Witness.read(path) for path in args.witness]
        report = _open(args.file).verify(_pinned(args), witnesses)
    except RecordError as exc:
        raise UsageError(str(exc)) from exc
    out = {"file": str(args.file), "ok": report.ok, "rows": report.rows, "checkpoints": report.checkpoints,
           "first_bad_seq": report.first_bad_seq, "problem": report.problem, "key": report.key,
           "witnessed": report.witnessed}
    print(json.dumps(out))
    if not report.ok:
        where = f"row {report.first_bad_seq}: " if report.first_bad_seq is not None else ""
        print(f"kipukas-tracker log verify: {args.file}: {where}{report.problem}", file=sys.stderr)
        return 2
    return 0


def export(args: argparse.Namespace) -> int:
    from tracker.commands.exports import write

    record = _open(args.file)
    if args.out is None and args.format == "sqlite" and sys.stdout.isatty():
        raise UsageError("--format sqlite writes a binary file: give --out FILE (or pipe stdout)")
    try:
        if args.out is None:
            sys.stdout.flush()
            write(args.format, record, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        else:
            partial = args.out.with_name(args.out.name + ".partial")
            try:
                with open(partial, "wb") as fh:
                    write(args.format, record, fh)
                partial.replace(args.out)  # a reader never finds half an export under the final name
            finally:
                partial.unlink(missing_ok=True)
    except OSError as exc:
        raise UsageError(f"{args.out or 'stdout'}: cannot write ({exc.strerror})") from exc
    except RecordError as exc:
        raise UsageError(f"{args.file}: {exc}") from exc
    head = record.signed_head()
    shown = record.fingerprint or "none: the record is unsigned"
    print(f"table key fingerprint (compare with the judge page): {shown}", file=sys.stderr)
    target = args.head or (args.out.with_name(args.out.name + ".head.json") if args.out else None)
    if head is not None and target is not None:
        try:
            target.write_text(json.dumps(head, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"{target}: cannot write ({exc.strerror})") from exc
        print(f"signed head at row {head['seq']} written to {target}", file=sys.stderr)
    elif head is not None:
        print(f"signed head: {json.dumps(head)}", file=sys.stderr)
    from tracker.table.dice_stats import roll_statistics

    stats = {"format": "kipukas-rolls/1", "rolls": roll_statistics(record.rows())}
    rolls = args.rolls or (args.out.with_name(args.out.name + ".rolls.json") if args.out else None)
    if rolls is not None:
        try:
            rolls.write_text(json.dumps(stats, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"{rolls}: cannot write ({exc.strerror})") from exc
        print(f"reported rolls against fair dice (chi-squared) written to {rolls}", file=sys.stderr)
    else:
        print(f"reported rolls against fair dice (chi-squared): {json.dumps(stats, sort_keys=True)}", file=sys.stderr)
    return 0


def state(args: argparse.Namespace) -> int:
    """The game's whole state after a row, through the game interface (`to_text`), whatever the game."""
    from tracker.table.replay_any import KIPUKAS, replay_any

    record = _open(args.file)
    last = record.last_seq
    if not last:
        raise UsageError(f"{args.file}: the record is empty")
    upto = last if args.at is None else args.at
    if not 1 <= upto <= last:
        raise UsageError(f"--at {upto}: the record has rows 1..{last}")
    try:
        done = replay_any(record, upto)
    except RecordError as exc:
        raise UsageError(f"{args.file}: {exc}") from exc
    game = "" if done.name == KIPUKAS else f"{done.name} "  # the Kipukas header predates the other games
    print(f"# {game}state after row {upto} of {last}")
    print(done.game.to_text())
    for problem in done.mismatches:
        print(f"# warning: {problem}", file=sys.stderr)
    return 0
