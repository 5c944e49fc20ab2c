"""Snapshots of the derived state beside the record: each one equals a full replay of the record up to
its row, and the state at any row, a restart, a correction and a deep undo built from them equal a full
replay, whatever is wrong with the snapshot file."""

from __future__ import annotations

import random
import sqlite3
import threading
from pathlib import Path

import pytest

from rules.kipukas.board_map import BoardMap
from tests.long_game import long_table
from tests.table_helpers import KEY
from tracker.record.snapshots import SnapshotStore, snapshot_path
from tracker.record.store import GameRecord
from tracker.service.seats import JUDGE, SPECTATOR
from tracker.service.service import LOG_PAGE, TableService
from tracker.service.views import Scene
from tracker.table.derived import HISTORY_KEPT, Derived
from tracker.table.replay import replay, replay_record
from tracker.table.table import Table

ROWS = 900
EVERY = 100


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("long") / "long.sqlite"
    table = long_table(path, ROWS, seed=11, snapshot_every=EVERY)
    table.record.close()
    return path


def copy_of(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "game.sqlite"
    for src, dst in ((built, out), (Path(snapshot_path(str(built))), Path(snapshot_path(str(out))))):
        a, b = sqlite3.connect(src), sqlite3.connect(dst)
        a.backup(b)
        a.close()
        b.close()
    return out


def reopen(path: Path, snapshots: bool = True) -> Table:
    store = SnapshotStore(snapshot_path(str(path))) if snapshots else None
    return Table(BoardMap.packaged(), GameRecord(str(path), KEY), snapshots=store)


def test_every_snapshot_equals_a_full_replay(built: Path) -> None:
    record = GameRecord(str(built), readonly=True)
    rows = list(record.rows())
    snaps = SnapshotStore(snapshot_path(str(built)), readonly=True).all()
    assert len(snaps) >= ROWS // EVERY - 1, "the table did not snapshot every few hundred rows"
    for seq, digest, body in snaps:
        assert rows[seq - 1].hash == digest
        full = replay(rows, BoardMap.packaged(), upto=seq)
        assert Derived.from_bytes(body, BoardMap.packaged()).comparable() == full.comparable(), f"snapshot at {seq}"


def test_state_at_any_row_equals_a_full_replay(built: Path) -> None:
    record = GameRecord(str(built), readonly=True)
    rows = list(record.rows())
    snaps = SnapshotStore(snapshot_path(str(built)), readonly=True)
    for upto in random.Random(5).sample(range(1, len(rows) + 1), 25):
        fast = replay_record(record, BoardMap.packaged(), upto=upto, snapshots=snaps)
        full = replay(rows, BoardMap.packaged(), upto=upto)
        assert fast.game.to_text() == full.game.to_text(), f"row {upto}"
        assert fast.observed == full.observed and fast.stack == full.stack and fast.depth == full.depth


def test_restart_from_snapshots_equals_restart_without(built: Path, tmp_path: Path) -> None:
    path = copy_of(built, tmp_path)
    with_snaps = reopen(path)
    text = with_snaps.game.to_text()
    with_snaps.record.close()
    without = reopen(path, snapshots=False)
    assert without.game.to_text() == text


def test_correction_and_deep_undo_equal_a_full_replay(built: Path, tmp_path: Path) -> None:
    path = copy_of(built, tmp_path)
    table = reopen(path)
    actions = [r for r in table.record.rows() if r.kind == "action" and r.body["accepted"]]
    early = actions[len(actions) // 3]  # behind several snapshots
    table.correct("judge", early.seq, "", "struck by the judge")
    rows = list(table.record.rows())
    assert table.game.to_text() == replay(rows, table.board).game.to_text()
    for _ in range(HISTORY_KEPT + 5):  # past the states kept in memory: rebuilt from a snapshot
        if table.derived.stack:
            table.undo("judge", "deep undo")
    rows = list(table.record.rows())
    assert table.game.to_text() == replay(rows, table.board).game.to_text()
    table.record.close()
    again = reopen(path)  # the snapshots taken before the correction must not be trusted past it
    assert again.game.to_text() == replay(rows, again.board).game.to_text()


def test_snapshots_that_do_not_match_the_record_are_not_used(built: Path, tmp_path: Path) -> None:
    path = copy_of(built, tmp_path)
    db = sqlite3.connect(snapshot_path(str(path)))
    with db:
        db.execute("UPDATE snapshots SET hash = 'f' || substr(hash, 2)")  # written for another record
    db.close()
    table = reopen(path)
    assert table.game.to_text() == replay(list(table.record.rows()), table.board).game.to_text()
    table.record.close()
    assert table.snapshots is not None
    table.snapshots.close()
    Path(snapshot_path(str(path))).write_bytes(b"not a database at all" * 100)
    table = reopen(path)  # derived data: set aside, the record replayed in full
    assert table.snapshots is not None and "unusable snapshot file" in table.snapshots.problem
    assert Path(snapshot_path(str(path)) + ".bad").is_file()
    assert table.game.to_text() == replay(list(table.record.rows()), table.board).game.to_text()
    assert any("snapshot" in w for w in table.warnings)


def test_delayed_view_is_rebuilt_without_the_table_lock(built: Path, tmp_path: Path) -> None:
    path = copy_of(built, tmp_path)
    table = reopen(path)
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with table.lock:
            held.set()
            done.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    try:
        scene = Scene.of_record(table, ROWS // 2)  # would wait 10 s for the lock if it took it
        assert scene.seq == ROWS // 2
        assert scene.game.to_text() == replay(list(GameRecord(str(path), readonly=True).rows()),
                                              table.board, upto=ROWS // 2).game.to_text()
    finally:
        done.set()
        holder.join()


def test_the_timeline_reaches_phones_in_pages(built: Path, tmp_path: Path) -> None:
    path = copy_of(built, tmp_path)
    service = TableService(reopen(path))
    first = service.log_pages(JUDGE, 0)
    assert len(first) == 1 and 0 < len(first[0]) <= LOG_PAGE
    assert first[0][-1]["seq"] == service.table.record.last_seq
    pages = service.log_pages(JUDGE, 1, newest_only=False)
    assert all(len(p) <= LOG_PAGE for p in pages) and len(pages) >= ROWS // LOG_PAGE
    assert [e["seq"] for p in pages for e in p] == list(range(2, service.table.record.last_seq + 1))
    spectator = [e for p in service.log_pages(SPECTATOR, 1, newest_only=False) for e in p]
    assert spectator and all(e["kind"] in ("action", "undo", "correct", "question") for e in spectator)


def test_the_delayed_view_steps_forward_and_equals_a_full_replay(built: Path, tmp_path: Path) -> None:
    path = copy_of(built, tmp_path)
    table = reopen(path)
    rows = list(table.record.rows())
    scene = None
    for upto in range(ROWS - 120, ROWS - 60, 3):
        scene = Scene.of_record(table, upto, scene)
        full = replay(rows, table.board, upto=upto)
        assert scene.game.to_text() == full.game.to_text() and scene.observed == full.observed, f"row {upto}"
        assert scene.entries[-1].seq == upto
