"""Snapshots of the derived state, kept beside the record (``<record>.snapshots``) so that a long game
need not be replayed from its first row. Derived data only: each snapshot names the record row it
follows and that row's hash, so a snapshot of another record (or of rows since rewritten) is never
used, and whatever is wrong with the file, the record can always be replayed in full without it.

The store holds opaque bytes; what it means is `tracker.table.derived`'s business.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tracker.errors import RecordError

SCHEMA = "CREATE TABLE IF NOT EXISTS snapshots (seq INTEGER PRIMARY KEY, hash TEXT NOT NULL, body BLOB NOT NULL)"


def snapshot_path(record_path: str) -> str:
    return f"{record_path}.snapshots"


class SnapshotStore:
    """One SQLite file of (row, row hash, JSON body). Not thread-safe beyond SQLite's own locking:
    the table writes under its lock; readers open their own store."""

    def __init__(self, path: str, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self.problem = ""  # why an unusable file was set aside, for the table's warnings
        self._db: sqlite3.Connection | None = None
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            self.problem = f"{path}: unusable snapshot file ({exc})"
            if readonly:
                return
            aside = Path(f"{path}.bad")
            Path(path).replace(aside)  # derived data: set it aside (for a look) and start again
            for extra in ("-wal", "-shm"):
                Path(path + extra).unlink(missing_ok=True)
            self.problem += f", moved to {aside.name}"
            try:
                self._db = self._open()
            except sqlite3.DatabaseError as again:
                raise RecordError(f"{path}: cannot open the snapshot file ({again})") from again

    def _open(self) -> sqlite3.Connection | None:
        if self.readonly:
            if not Path(self.path).is_file():
                return None
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        else:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # derived data: losing the last one costs a replay
            db.execute(SCHEMA)
        db.execute("SELECT count(*) FROM snapshots").fetchone()
        return db

    def put(self, seq: int, digest: str, body: bytes) -> None:
        if self._db is None or self.readonly:
            return
        try:
            self._db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)", (seq, digest, body))
        except sqlite3.DatabaseError as exc:  # a full disk must not stop the game: the record is what counts
            self.problem = f"{self.path}: cannot keep a snapshot ({exc})"

    def latest(self, upto: int, below: int | None = None) -> tuple[int, str, bytes] | None:
        """The latest snapshot at or before row `upto` (and before row `below`, when given)."""
        if self._db is None:
            return None
        limit = upto if below is None else min(upto, below - 1)
        try:
            row = self._db.execute("SELECT seq, hash, body FROM snapshots WHERE seq <= ? ORDER BY seq DESC LIMIT 1",
                                   (limit,)).fetchone()
        except sqlite3.DatabaseError:
            return None  # unreadable derived data: replay instead
        return None if row is None else (int(row[0]), str(row[1]), bytes(row[2]))

    def all(self) -> list[tuple[int, str, bytes]]:
        if self._db is None:
            return []
        return [(int(s), str(h), bytes(b)) for s, h, b in
                self._db.execute("SELECT seq, hash, body FROM snapshots ORDER BY seq")]

    def drop_from(self, seq: int) -> None:
        """Forget snapshots from row `seq` on (they no longer match the record)."""
        if self._db is not None and not self.readonly:
            self._db.execute("DELETE FROM snapshots WHERE seq >= ?", (seq,))

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
