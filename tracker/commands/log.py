"""`kipukas-tracker log verify|export|state FILE`: a judge's tools for a game record."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tracker.errors import RecordError, UsageError


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("log", help="verify, export or replay a game record")
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    v = verbs.add_parser("verify", help="check the hash chain, checkpoints and signed head")
    v.add_argument("file", type=Path)
    v.set_defaults(func=verify)
    e = verbs.add_parser("export", help="write the record as JSON Lines (stdout by default)")
    e.add_argument("file", type=Path)
    e.add_argument("--out", type=Path, help="write to this file instead of stdout")
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


def verify(args: argparse.Namespace) -> int:
    report = _open(args.file).verify()
    out = {"file": str(args.file), "ok": report.ok, "rows": report.rows, "checkpoints": report.checkpoints,
           "first_bad_seq": report.first_bad_seq, "problem": report.problem}
    print(json.dumps(out))
    if not report.ok:
        print(f"kipukas-tracker log verify: {args.file}: row {report.first_bad_seq}: {report.problem}", file=sys.stderr)
        return 2
    return 0


def export(args: argparse.Namespace) -> int:
    record = _open(args.file)
    lines = (json.dumps(row.to_json(), sort_keys=True) + "\n" for row in record.rows())
    if args.out is None:
        sys.stdout.writelines(lines)
    else:
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.writelines(lines)
        except OSError as exc:
            raise UsageError(f"{args.out}: cannot write ({exc.strerror})") from exc
    return 0


def state(args: argparse.Namespace) -> int:
    from rules.board_map import BoardMap
    from tracker.table.replay import replay

    record = _open(args.file)
    rows = list(record.rows())
    if not rows:
        raise UsageError(f"{args.file}: the record is empty")
    upto = rows[-1].seq if args.at is None else args.at
    if not 1 <= upto <= rows[-1].seq:
        raise UsageError(f"--at {upto}: the record has rows 1..{rows[-1].seq}")
    board = BoardMap.packaged(str(rows[0].body.get("map", "starter")))
    try:
        done = replay(rows, board, upto=upto)
    except RecordError as exc:
        raise UsageError(f"{args.file}: {exc}") from exc
    print(f"# state after row {upto} of {rows[-1].seq}")
    print(done.game.to_text())
    for problem in done.mismatches:
        print(f"# warning: {problem}", file=sys.stderr)
    return 0
