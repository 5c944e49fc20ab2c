"""Power cuts during a scripted game (issue 16, item 9), the way SQLite's own crash tests model them:
the database and its WAL are kept exactly as they could be on disk when the power went, at random byte
boundaries of the writes an input made, with the last written sector torn (garbage instead of the new
bytes) in some cuts. Each copy is reopened: no acknowledged row may be lost, the rows are a prefix of the
uncut game's, `log verify` passes against the table's key, and the table replays to the same state.

Python's sqlite3 has no VFS hook, so the writes are recovered afterwards: each input's writes are the
bytes in which the files differ from before the input (WAL frames are written in file order, from the
first changed byte on; a checkpoint then writes database pages in page order). The record's connection
checkpoints every few commits here (it would only after 1000 pages), so cuts also land inside
checkpoints, where the database file is half old, half new.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import KEY, new_table
from tests.test_crash import run_item, script
from tracker.record.keys import PinnedKey
from tracker.record.store import GameRecord
from tracker.table.table import Table

CUTS = 240
SECTOR = 512
PAGE = 4096  # SQLite's default page size, which the record uses


@dataclass(frozen=True)
class Disk:
    """The files of the record after an input was acknowledged."""

    db: bytes
    wal: bytes
    acked: int  # the record's last row: acknowledged to the caller


def read(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


def first_difference(old: bytes, new: bytes) -> int:
    n = min(len(old), len(new))
    for start in range(0, n, 4096):
        end = min(start + 4096, n)
        if old[start:end] != new[start:end]:
            return start + next(i for i in range(end - start) if old[start + i] != new[start + i])
    return n


def cut(old: bytes, new: bytes, rng: random.Random, torn: bool, page: int = 0) -> bytes:
    """The file when power went during the writes that turn `old` into `new`: new bytes up to a random
    offset, the old ones after it; `torn`: the rest of that sector holds garbage. `page`: the writes are
    whole pages of this size (a checkpoint), and only a page being written can be torn."""
    start = first_difference(old, new)
    if start >= len(new):
        return new
    at = rng.randrange(start, len(new) + 1)
    out = bytearray(new[:at] + old[at:])
    if page:
        first = at // page * page
        torn = torn and old[first:first + page] != new[first:first + page]
    if torn and at < len(new):
        end = min(len(out), (at // SECTOR + 1) * SECTOR)
        out[at:end] = rng.randbytes(end - at)
    return bytes(out)


def play(folder: Path) -> tuple[list[Disk], list[tuple[str, str, dict[str, Any]]]]:
    """Play the script, keeping the files after every transaction (each row, each signed checkpoint):
    within one transaction the WAL frames are written and synced first, then a checkpoint may copy pages
    into the database; the WAL restarts only in a later transaction, after the database was synced."""
    folder.mkdir()
    table = new_table(folder)
    record = table.record
    record._db.execute("PRAGMA wal_autocheckpoint=4")  # checkpoints inside the game (see above)
    path = Path(record.path)
    wal = Path(str(path) + "-wal")
    disks = [Disk(read(path), read(wal), record.last_seq)]
    append, checkpoint = record.append, record.checkpoint

    def appended(*args: Any, **kwargs: Any) -> Any:
        row = append(*args, **kwargs)
        disks.append(Disk(read(path), read(wal), record.last_seq))
        return row

    def signed(*args: Any, **kwargs: Any) -> Any:
        seq = checkpoint(*args, **kwargs)
        disks.append(Disk(read(path), read(wal), record.last_seq))
        return seq

    record.append = appended  # type: ignore[method-assign]
    record.checkpoint = signed  # type: ignore[method-assign]
    for item in script():
        run_item(table, item)
    rows = [(r.kind, r.source, r.body) for r in record.rows()]
    record.close()
    return disks, rows


def test_power_cuts_lose_no_acknowledged_row(tmp_path: Path) -> None:
    disks, clean_rows = play(tmp_path / "uncut")
    assert sum(1 for a, b in itertools.pairwise(disks) if a.db != b.db) >= 3, "no checkpoint happened"
    rng = random.Random(202611)
    pinned = PinnedKey.of(KEY, "the table key")
    outcomes = {"in WAL writes": 0, "torn WAL sector": 0, "in a checkpoint": 0}
    lost = 0
    for n in range(CUTS):
        i = rng.randrange(len(disks) - 1)  # power goes during transaction i + 1
        before, after = disks[i], disks[i + 1]
        modes = [m for m in outcomes if m != "in a checkpoint" or before.db != after.db]
        if before.wal == after.wal:
            modes = [m for m in modes if m == "in a checkpoint"] or ["in WAL writes"]
        mode = rng.choice(modes)
        if mode == "in a checkpoint":
            db, wal = cut(before.db, after.db, rng, torn=rng.random() < 0.5, page=PAGE), after.wal
        else:
            db, wal = before.db, cut(before.wal, after.wal, rng, torn=mode == "torn WAL sector")
        outcomes[mode] += 1
        folder = tmp_path / f"cut-{n}"
        folder.mkdir()
        (folder / "game.sqlite").write_bytes(db)
        if wal:
            (folder / "game.sqlite-wal").write_bytes(wal)
        record = GameRecord(str(folder / "game.sqlite"), KEY)   # the restart after the power came back
        rows = [(r.kind, r.source, r.body) for r in record.rows()]
        lost += record.last_seq < before.acked
        assert record.last_seq >= before.acked, f"cut {n} ({mode}, transaction {i + 1}): an acknowledged row was lost"
        assert rows == clean_rows[:len(rows)], f"cut {n}: the record is not a prefix of the uncut game's"
        if rows:
            report = record.verify(pinned)
            assert report.ok, f"cut {n} ({mode}): {report.problem}"
            table = Table(BoardMap.packaged(), record)
            assert not [w for w in table.warnings if "replay differs" in w]
        record.close()
        check = sqlite3.connect(folder / "game.sqlite")
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        check.close()
    assert lost == 0 and all(outcomes.values()), outcomes
    print(f"{CUTS} power cuts, {lost} acknowledged rows lost: {outcomes}")
