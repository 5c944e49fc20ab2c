"""When the board and the record disagree, say why and what to do: per stand, what the record expects,
what the camera sees, the rule and reason of the rejected action that explains it (when there is one),
and the step that puts it right ("put Hilbert back on T1, or ask the judge")."""

from __future__ import annotations

import re
from typing import Any

from rules.kipukas.state import GameState
from tracker.table.board import EMPTY, StandValue
from tracker.table.table import Entry

ASK = "or ask the judge"


def _who(state: GameState, stand: str, value: StandValue, names: dict[str, str]) -> str:
    if value.kind == "soul":
        here = [names[c.id] for c in state.cards.values() if c.at == stand and c.zone == "play" and c.id in names]
        if here:
            return " and ".join(here)
        return f"the {value.owner} soul token"
    return f"the {value.owner} {value.kind} token"


def sync_help(state: GameState, expected: dict[str, StandValue], observed: dict[str, StandValue],
              entries: list[Entry], names: dict[str, str]) -> list[dict[str, Any]]:
    """One explanation per stand where the camera and the record disagree (empty when in sync)."""
    out: list[dict[str, Any]] = []
    rejected = [e for e in reversed(entries[-60:]) if e.kind == "action" and not e.accepted]
    for stand in sorted(observed):
        want, seen = expected.get(stand, EMPTY), observed[stand]
        if seen.visible() == want.visible():
            continue
        cause = next((e for e in rejected if re.search(rf"(?<![A-Za-z0-9]){re.escape(stand)}(?![A-Za-z0-9])",
                                                       e.text)), None)
        if not want.empty:
            todo = f"put {_who(state, stand, want, names)} back on {stand}, {ASK}"
        else:
            moved_from = None
            if cause is not None:
                m = re.search(r"(\S+)-" + re.escape(stand), cause.text)
                moved_from = m.group(1) if m else None
            back = f" (back to {moved_from})" if moved_from else ""
            todo = f"take the {seen.owner} {seen.kind} token off {stand}{back}, {ASK}"
        out.append({"stand": stand, "expected": want.text(), "seen": seen.text(),
                    "rule": cause.rule if cause else "", "reason": cause.message if cause else
                    "the camera sees a token the record does not explain", "todo": todo})
    return out
