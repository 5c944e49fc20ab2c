"""`kipukas-tracker fists`: the typing modifier of an attack, as the fists tool of kipukas.cards gives it."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rules.core.errors import CatalogError
from rules.kipukas.fists import Typing, final_blow_modifier, keal_modifier
from tracker.errors import UsageError


def register(sub: Any) -> None:
    p = sub.add_parser("fists", help="typing modifier of a KEAL means attack or a final blow (JSON)")
    p.add_argument("--attacker", required=True, help="attacking adaptations, comma separated (A[,A...])")
    p.add_argument("--defender", required=True, help="defending adaptations, comma separated (D[,D...])")
    p.add_argument("--attacker-motive", help="attacker's motive (final blow only)")
    p.add_argument("--defender-motive", help="defender's motive (final blow only)")
    p.add_argument("--final-blow", action="store_true", help="archetypal genes (one each) and motives")
    p.set_defaults(func=run)


def _split(value: str, flag: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise UsageError(f"{flag}: expected one or more adaptations, got {value!r}")
    if len(items) > 3:
        raise UsageError(f"{flag}: a KEAL means has at most 3 adaptations, got {len(items)}")
    return items


def compute(args: argparse.Namespace) -> dict[str, Any]:
    att = _split(args.attacker, "--attacker")
    dfn = _split(args.defender, "--defender")
    try:
        typing: Typing
        if args.final_blow:
            if len(att) != 1 or len(dfn) != 1:
                raise UsageError("--final-blow compares archetypal genes: give one adaptation per side")
            typing = final_blow_modifier(att[0], dfn[0], args.attacker_motive, args.defender_motive)
        else:
            if args.attacker_motive or args.defender_motive:
                raise UsageError("motives only change final blows: add --final-blow")
            typing = keal_modifier(att, dfn)
    except CatalogError as exc:
        raise UsageError(str(exc)) from None
    return {
        "modifier": typing.attack,
        "defence_modifier": typing.defence,
        "kind": "final_blow" if args.final_blow else "keal",
        "pairs": [[p.attacker, p.defender, p.modifier] for p in typing.pairs],
        "motive_bonus": typing.motive_bonus,
        "best_of": typing.best_of,
        "notes": list(typing.notes),
    }


def run(args: argparse.Namespace) -> int:
    print(json.dumps(compute(args)))
    return 0
