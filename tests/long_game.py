"""A long game record for tests and the long-game bench: a real game (the golden script) followed by a
seeded walk over the actions the rules allow now, with rejected phone actions, camera board readings
and judge's undos mixed in, and undos whenever the walk reaches the end of the game."""

from __future__ import annotations

import random
from pathlib import Path

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import KEY
from tests.test_web_support import golden_script
from tracker.record.snapshots import SnapshotStore, snapshot_path
from tracker.record.store import GameRecord
from tracker.table.board import StandValue
from tracker.table.table import Table


def long_table(path: Path, rows: int, seed: int, snapshot_every: int | None = None,
               snapshots: bool = True) -> Table:
    """A table whose record has at least `rows` rows (built once; the same seed gives the same record)."""
    decks, lines = golden_script()
    store = SnapshotStore(snapshot_path(str(path))) if snapshots else None
    table = Table(BoardMap.packaged(), GameRecord(str(path), KEY), decks, clock=lambda: 1_700_000_000.0,
                  snapshots=store)
    if snapshot_every is not None:
        table.snapshot_every = snapshot_every
    rng = random.Random(seed)
    clock = [1_700_000_000.0]

    def tick() -> float:
        clock[0] += 0.75
        return clock[0]

    table.clock = tick
    fast = table.record._db  # building the fixture: durability per row is not what is measured
    fast.execute("PRAGMA synchronous=OFF")
    for line in lines[:40]:
        table.act(f"phone:{line.split()[0]}", line)
    stands = sorted(table.board.stands)
    while table.record.last_seq < rows:
        roll = rng.random()
        if table.game.state.phase == "over" or (roll < 0.04 and table.derived.stack):
            for _ in range(rng.randint(1, 6)):
                if table.derived.stack:
                    table.undo("judge", "walk back")
            continue
        if roll < 0.20:
            table.act("phone:red", f"red capital {90 + rng.randint(0, 9)}")  # rejected: a row, no change
            continue
        if roll < 0.30:
            board = {s: StandValue() for s in stands}
            for s in rng.sample(stands, 4):
                board[s] = StandValue("soul", rng.choice(("red", "blue")), 1)
            with table.lock:
                table.record.append("board", "overhead", {"observed": {s: v.text() for s, v in sorted(board.items())}},
                                    ts=tick())
                table.observed = board
                table.derived.observed = board
                table.derived.seq = table.record.last_seq
            continue
        legal = table.game.legal_actions()
        if not legal:
            if table.derived.stack:
                table.undo("judge", "stuck")
            continue
        action = rng.choice(legal).to_text()
        table.act(f"phone:{action.split()[0]}", action)
    fast.execute("PRAGMA synchronous=FULL")
    return table
