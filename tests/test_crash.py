"""Kill the tracker with SIGKILL at random points of a scripted game, at least 200 times: every
restarted tracker holds every acknowledged row and the same state as a clean run."""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from tests.table_helpers import AFTER_CLAIMS, CLAIMS, SETUP, empty_board, new_table
from tracker.table.board import StandValue
from tracker.table.table import Table

pytestmark = pytest.mark.slow
KILLS = 200

Item = tuple[str, object]


def script() -> list[Item]:
    items: list[Item] = [("act", line) for line in SETUP]
    seen = empty_board()
    for stand, kind, owner in CLAIMS:
        seen[stand] = StandValue(kind, owner, 1)
        items.append(("observe", dict(seen)))
    items += [("act", line) for line in AFTER_CLAIMS]
    items += [("act", "blue play F3GW#0001 3 revealed"), ("act", "red play HMPU#0004 1 revealed")]
    for stand, value in (("M4", StandValue("soul", "blue", 1)), ("M5", StandValue("soul", "red", 1))):
        seen[stand] = value
        items.append(("observe", dict(seen)))
    seen.pop("M5")
    seen["M9"] = StandValue("soul", "red", 1)
    items.append(("observe", dict(seen)))  # the illegal move put right and a legal one, in one reading
    items += [("act", "blue initiative"), ("act", "red end")]
    return items


def run_item(table: Table, item: Item) -> None:
    """One input; after a phone's action the camera offers the same stable board again, as the overhead loop
    does every frame (a soul token waiting for its owner's word is asked about once the turn passes)."""
    kind, arg = item
    if kind == "act":
        assert isinstance(arg, str)
        table.act(f"phone:{arg.split()[0]}", arg)
        if table.observed:
            table.observe(dict(table.observed))
    else:
        assert isinstance(arg, dict)
        table.observe(arg)


def inputs_done(table: Table) -> int:
    return sum(1 for r in table.record.rows() if r.kind == "board" or r.source.startswith("phone:"))


def child(path: Path, items: list[Item], ack_fd: int) -> None:
    table = new_table(path.parent, path.name)
    for item in items[inputs_done(table):]:
        run_item(table, item)
        os.write(ack_fd, f"{table.record.last_seq}\n".encode())


def test_sigkill_at_random_points(tmp_path: Path) -> None:
    items = script()
    clean_dir = tmp_path / "clean"
    clean_dir.mkdir()
    clean = new_table(clean_dir)
    states = {0: clean.game.to_text()}
    for k, item in enumerate(items, start=1):
        run_item(clean, item)
        states[k] = clean.game.to_text()
    clean_rows = [(r.kind, r.source, r.body) for r in clean.record.rows()]

    rng = random.Random(20261122)
    kills = games = 0
    points: set[tuple[int, int]] = set()  # (game, rows on disk) at each kill: the kills spread over the game
    path = tmp_path / "game-0.sqlite"
    while kills < KILLS:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the tracker
            os.close(read_fd)
            try:
                child(path, items, write_fd)
            finally:
                os._exit(0)
        os.close(write_fd)
        time.sleep(rng.uniform(0.0, 0.06))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        acked = [int(x) for x in os.read(read_fd, 1 << 20).decode().split()]
        os.close(read_fd)
        killed = os.WIFSIGNALED(status)
        kills += killed

        table = new_table(path.parent, path.name)  # the restart
        assert table.record.verify().ok
        assert table.record.last_seq >= max(acked, default=0), "an acknowledged row was lost"
        done = inputs_done(table)
        points.add((games, table.record.last_seq))
        assert table.game.to_text() == states[done], f"state after restart differs (input {done})"
        rows = [(r.kind, r.source, r.body) for r in table.record.rows()]
        assert rows == clean_rows[:len(rows)], "the restarted record is not a prefix of the clean run's"
        table.record.close()
        if done == len(items):
            games += 1
            path = tmp_path / f"game-{games}.sqlite"
    assert kills >= KILLS and games >= 1
    assert len({rows for _, rows in points}) >= 15, "the kills did not land at many different points"
