"""`TableGame`: what every game engine offers the table, whatever game it referees.

The tracker, the record and the views speak to a game only through this Protocol, in canonical
notation lines: one line per action, the same text in logs, errors, golden files and the record. A
game's own action objects stay inside its package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from rules.core.verdict import Prompt, Verdict

JUDGE = "judge"
SPECTATOR = "spectator"

__all__ = ["JUDGE", "SPECTATOR", "BoardReading", "GameResult", "Prompt", "ReadsBoard", "TableGame", "Verdict", "View"]

View = dict[str, object]
"""What one viewer may see of the state: JSON-able, hidden information already removed."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended: `winners` (several only for a shared win, empty for a tie), why, and the rule."""

    winners: tuple[str, ...]
    reason: str
    rule: str

    def to_text(self) -> str:
        who = ",".join(self.winners) if self.winners else "tie"
        return f"{who}: {self.reason} ({self.rule})"


@runtime_checkable
class TableGame(Protocol):
    """One game in progress. Seats are named by colour; `judge` may act where a game allows it.

    `apply` never raises for a refused action: it returns a rejected `Verdict` naming the rule anchor
    and leaves the state untouched. Text that is not notation at all is refused the same way (rule
    ``notation``), so a phone's garbage never reaches the state."""

    name: str

    @property
    def seats(self) -> tuple[str, ...]:
        """The seats in play order (2-5 for the games here)."""
        ...

    def apply(self, line: str) -> Verdict:
        """Check one notation line against the rules; apply it if they allow it."""
        ...

    def undo(self) -> str:
        """Take back the last accepted action (restoring its snapshot exactly) and return its line."""
        ...

    def legal_actions(self, seat: str | None = None) -> list[str]:
        """The lines the rules accept now (of `seat` only, when given), each one `apply` would accept."""
        ...

    def prompts(self) -> list[Prompt]:
        """What the rules demand now and of whom."""
        ...

    def view(self, viewer: str) -> View:
        """The state as `viewer` (a seat, ``judge`` or ``spectator``) may see it."""
        ...

    def line_for(self, line: str, viewer: str) -> str:
        """`line` (an action of this game) as `viewer` may read it in the record: words that name hidden
        information (a card drawn, a card played face down) replaced by ``?`` for everyone but the acting
        seat and judges. The record keeps the whole line; this is the per-viewer declaration the log,
        the pages and the hub's spectators rely on."""
        ...

    def canonical(self, line: str) -> str:
        """`line` parsed and formatted back: the canonical spelling, or `NotationError` naming the problem."""
        ...

    def to_text(self) -> str:
        """The full state as text (golden files, judges)."""
        ...

    @property
    def result(self) -> GameResult | None:
        """None while the game goes on."""
        ...

    @property
    def history(self) -> tuple[str, ...]:
        """The accepted lines, oldest first (what `undo` would take back, newest last)."""
        ...


@dataclass(frozen=True, slots=True)
class BoardReading:
    """What an overhead reading of the pieces means to a game: `lines` the rules take as the players'
    actions (each legal now, and the only one the reading allows), `questions` (player, text, options)
    where a player or judge must settle what the camera cannot (which card, which of several moves),
    and `differences`: every place the camera and the record disagree, in words."""

    lines: tuple[str, ...] = ()
    questions: tuple[tuple[str | None, str, tuple[str, ...]], ...] = ()
    differences: tuple[str, ...] = ()


@runtime_checkable
class ReadsBoard(Protocol):
    """A game whose pieces the overhead camera can read (region name -> the seat whose piece is there, or
    None for an empty region; regions the camera could not read are absent: unknown)."""

    def read_board(self, seen: Mapping[str, str | None]) -> BoardReading:
        """The actions and questions a reading implies; never a guess where two readings are possible."""
        ...


Config = Mapping[str, object]
"""A game's configuration as read from `table.toml`'s `[game]` section or `game new --param`."""
