"""No hidden-card oracle through rejections, and no unbounded record through them (issue 16).

A player's action that names a card the player may not know about (not in the game, or another
player's card out of view) is rejected with one answer, whichever the case, so rejections do not tell a
player which ids the opponent holds. Two actions may name such a card by design: an attack on a face-down
card in play, and stealing from the opponent's hand or deck. The rules decide those, and if they reject
it, the answer is the same one answer; only an accepted action (a real move, in the record for the judge)
shows that the card was there.

Rejected actions from one phone seat are stored one row each only for the first few in a row; after that
they are counted, and the count is stored as one `probes` row when the seat's next action is accepted,
when a diel cycle ends, or every `FLUSH_EVERY` probes: the record keeps every attempt's number and the
last one's text, and cannot be grown without bound by a seat that keeps guessing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from rules.kipukas.board_map import BoardMap
from rules.kipukas.notation import Action, Personal, Steal
from rules.kipukas.state import CardState, GameState

HIDDEN_RULE = "#card_variations"
ROWS_PER_STREAK = 3    # rejected actions in a row from one seat stored as rows before they are counted
FLUSH_EVERY = 500      # counted probes stored as one row at the latest after this many
PUBLIC_ZONES = ("discard", "prison")  # as tracker.service.views: what every viewer sees by name
CARD_FIELDS = ("card", "cards", "target")


def is_public(card: CardState) -> bool:
    return (card.zone == "play" and card.revealed) or card.zone in PUBLIC_ZONES


def hidden_message(seat: str, card: str) -> str:
    """The one answer to naming a card the seat cannot know, the same whether or not it is in the game."""
    return f"{card} is not a card {seat} holds or can see"


def unnamed_card(state: GameState, board: BoardMap, seat: str, action: Action) -> tuple[str, bool] | None:
    """The first card id `action` names that `seat` may not know about, and whether the rules may still
    be asked (an attack on a face-down card in play, a steal from hand or deck); None when there is none."""
    for f in dataclasses.fields(action)[1:]:
        if f.name not in CARD_FIELDS:
            continue
        value = getattr(action, f.name)
        for cid in value if isinstance(value, tuple) else (value,):
            if f.name == "target" and (cid in board.territories or cid in board.stands):
                continue
            if isinstance(action, Personal) and cid == "none":
                continue
            cs = state.cards.get(cid)
            if cs is None:
                return str(cid), False
            if seat in (cs.owner, cs.control) or is_public(cs):
                continue
            tryable = (f.name == "target" and cs.zone == "play") or (
                isinstance(action, Steal) and cs.zone in ("hand", "deck"))
            return str(cid), tryable
    return None


@dataclass
class Streak:
    rows: int = 0                 # rejected rows stored in this streak
    counted: int = 0              # rejected actions counted, not yet stored
    last: dict[str, Any] = field(default_factory=dict)


class ProbeLedger:
    """Per phone source: how many rejections in a row, and those counted but not yet stored."""

    def __init__(self) -> None:
        self.streaks: dict[str, Streak] = {}

    def rejected(self, source: str, text: str, rule: str, ts: float) -> bool:
        """Note a rejected action; True when it is to be stored as its own row."""
        if not source.startswith("phone:"):
            return True
        streak = self.streaks.setdefault(source, Streak())
        if streak.rows < ROWS_PER_STREAK:
            streak.rows += 1
            return True
        if not streak.counted:
            streak.last = {"first_ts": ts}
        streak.counted += 1
        streak.last.update({"last": text, "rule": rule, "last_ts": ts})
        return False

    def due(self, source: str) -> bool:
        streak = self.streaks.get(source)
        return streak is not None and streak.counted >= FLUSH_EVERY

    def take(self, source: str, reset: bool) -> dict[str, Any] | None:
        """The body of the `probes` row for `source` (None when nothing is counted); `reset` ends the streak."""
        streak = self.streaks.get(source)
        if streak is None:
            return None
        body = {"count": streak.counted, **streak.last} if streak.counted else None
        if reset:
            del self.streaks[source]
        else:
            streak.counted, streak.last = 0, {}
        return body

    def sources(self) -> list[str]:
        return sorted(self.streaks)
