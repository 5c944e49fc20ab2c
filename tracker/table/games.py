"""`GameTable`: a table for any game behind the game interface (`rules.core`), with the same record.

Kipukas keeps its own `Table` (cameras, the mat, corrections); the games registered in
`rules.core.registry` are played through this one: every input is asked of the game, written to the
signed, hash-chained record before anyone is told, and the state is always a replay of the record.
It knows no game: it speaks notation lines, verdicts, prompts and views.

Row kinds it writes (the body keys of `tracker.table.replay`'s table, where they exist):
- ``start``: ``game`` (registry name), ``config`` (the game's configuration), ``players`` (seats);
- ``action``: ``text``, ``accepted``, ``rule``, ``message`` (rejected inputs too);
- ``undo``: ``reason``, ``undid``: a judge took back the last accepted action.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.core.interface import TableGame, Verdict, View
from rules.core.registry import new_game
from tracker.errors import RecordError
from tracker.record.store import GameRecord

KINDS = ("start", "action", "undo")


@dataclass(frozen=True)
class Started:
    game: str
    config: dict[str, Any]
    players: tuple[str, ...]


def start_row(record: GameRecord) -> Started | None:
    """The start row of an interface game's record; None for a Kipukas record (no ``game`` key)."""
    first = next(record.rows(kinds=("start",)), None)
    if first is None:
        raise RecordError(f"{record.path}: no start row")
    body = first.body
    if "game" not in body:
        return None
    return Started(str(body["game"]), dict(body.get("config", {})), tuple(body.get("players", ())))


class GameTable:
    """The one owner of an interface game: every input, from any source, goes through `act` or `undo`."""

    def __init__(self, record: GameRecord, game: TableGame, name: str) -> None:
        self.record = record
        self.game = game
        self.name = name

    @classmethod
    def start(cls, record: GameRecord, name: str, config: Mapping[str, Any]) -> GameTable:
        """A new game in an empty record (the game's set-up errors raise before anything is written)."""
        if record.last_seq:
            raise RecordError(f"{record.path}: the record already holds {record.last_seq} rows")
        plain = json.loads(json.dumps(config))  # what the record keeps is what a replay gets
        game = new_game(name, plain)
        record.append("start", "tracker", {"game": name, "config": plain, "players": list(game.seats)})
        return cls(record, game, name)

    @classmethod
    def open(cls, record: GameRecord) -> GameTable:
        """The game of an existing record, replayed row by row; a row whose stored verdict the rules no
        longer give is a `RecordError` naming its sequence number."""
        started = start_row(record)
        if started is None:
            raise RecordError(f"{record.path}: a Kipukas record (open it with the Kipukas table)")
        table = cls(record, new_game(started.game, started.config), started.game)
        for row in record.rows(kinds=("action", "undo")):
            if row.kind == "undo":
                table.game.undo()
                continue
            verdict = table.game.apply(str(row.body["text"]))
            if verdict.accepted != bool(row.body["accepted"]):
                raise RecordError(f"{record.path}: row {row.seq} ({row.body['text']!r}) was "
                                  f"{'accepted' if row.body['accepted'] else 'rejected'}, the rules now say "
                                  f"{verdict.rule or 'accepted'}: {verdict.message}")
        return table

    def act(self, text: str, source: str) -> Verdict:
        """Ask the rules, write the input and its verdict, then return the verdict."""
        verdict = self.game.apply(text)
        self.record.append("action", source, {"text": text, "accepted": verdict.accepted, "rule": verdict.rule,
                                              "message": verdict.message})
        return verdict

    def undo(self, reason: str) -> str:
        """A judge takes back the last accepted action; the row says which and why."""
        if not self.game.history:
            raise RecordError("nothing to undo: no action has been accepted")
        undid = self.game.undo()
        self.record.append("undo", "judge", {"reason": reason, "undid": undid})
        return undid

    def view(self, viewer: str) -> View:
        return self.game.view(viewer)

    def status(self) -> dict[str, Any]:
        """The game in progress for `game status`: no hidden information (the spectator's view)."""
        result = self.game.result
        return {"game": self.name, "players": list(self.game.seats), "rows": self.record.last_seq,
                "result": result.to_text() if result else None,
                "prompts": [{"player": p.player, "rule": p.rule, "text": p.text} for p in self.game.prompts()
                            if p.blocking],
                "view": self.game.view("spectator")}
