"""Any game's record replayed to a game behind the game interface (`rules.core.interface.TableGame`).

The judge's tools that only read a finished or running game's state (`log state`, the score sheet of
`log export --format sheet`, `game status`) use this one function whatever the game, and then speak to
the game through the interface only (`to_text`, `view`, `prompts`, `result`, `seats`).

A Kipukas record is replayed by Kipukas' own replay (`tracker.table.replay`: its start row names decks and
a map, judges' corrections are re-decided, the camera's board and mat rows are checked against the
rules, snapshots make it fast) and its game is wrapped in `rules.kipukas.adapter.KipukasGame`; a record of
any other game of `rules.core.registry` is replayed by `tracker.table.games.replay`. The wrapped Kipukas
game is for reading: its `history` starts empty, so it is never undone.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.core.interface import TableGame
from rules.kipukas.adapter import KipukasGame
from rules.kipukas.board_map import BoardMap
from tracker.record.snapshots import SnapshotStore
from tracker.record.store import GameRecord
from tracker.table.games import replay as replay_game
from tracker.table.games import start_row
from tracker.table.replay import replay_record

KIPUKAS = "kipukas"


@dataclass(frozen=True)
class Replayed:
    """A record's game after some row: the registry name, the game, and (Kipukas) the rows whose stored
    verdict or camera reading the replay does not reproduce, for a judge to look at."""

    name: str
    game: TableGame
    mismatches: tuple[str, ...] = ()


def replay_any(record: GameRecord, upto: int | None = None, snapshots: SnapshotStore | None = None) -> Replayed:
    """The game of `record` after row `upto` (all rows by default); `snapshots` speed up a Kipukas replay.
    A record that cannot be replayed raises `RecordError` naming the row."""
    started = start_row(record)
    if started is not None:
        return Replayed(started.game, replay_game(record, upto))
    first = next(record.rows(upto=1))
    board = BoardMap.packaged(str(first.body.get("map", "starter")))
    done = replay_record(record, board, upto=upto, snapshots=snapshots)
    return Replayed(KIPUKAS, KipukasGame(done.game), tuple(done.mismatches))
