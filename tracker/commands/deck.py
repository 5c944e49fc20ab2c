"""`kipukas-tracker deck check FILE`: validate a deck list (format in docs/deck-format.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rules.kipukas.decks import check_deck
from tracker.errors import UsageError
from tracker.front.names import card_label


def register(sub: Any) -> None:
    p = sub.add_parser("deck", help="deck lists")
    deck_sub = p.add_subparsers(dest="deck_command", required=True, metavar="ACTION")
    check = deck_sub.add_parser("check", help="check a deck list; prints {valid, problems} as JSON")
    check.add_argument("file", help="deck list: one QR payload or 4-character code per line")
    check.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    try:
        with open(args.file, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read deck file {args.file}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"deck file {args.file} is not UTF-8 text (byte {exc.start})") from None
    report = check_deck(lines)
    print(json.dumps({"valid": report.valid, "problems": report.problems, "cards": len(report.cards),
                      "personal_effect": report.personal_effect.card.code if report.personal_effect else None,
                      "names": [card_label(e.card.code) for e in report.cards]}))
    return 0
