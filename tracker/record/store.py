"""The game record: an append-only, hash-chained SQLite log of every input and its verdict.

Each row's hash is SHA-256 over the previous row's hash and the row's canonical JSON, so an edited,
reordered or deleted row breaks the chain from that row on. Checkpoints sign (seq, hash) with the
table's Ed25519 key; the latest row's hash is also signed (the signed head), so truncating the tail
after the last checkpoint is detected too. Head and checkpoint sign distinct labelled messages
(`signed_text`), so one can never stand in for the other. The signed head also goes out to witnesses
outside the file (pages, `log export`), which is what makes cutting the file back to an older head
detectable (`tracker.record.verify`). WAL with synchronous=FULL: a row is on disk once `append`
returns, which is what "acknowledged" means after a power cut.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tracker.errors import RecordError
from tracker.record.chain import (
    CHECKPOINT,
    FORMAT,
    GENESIS,
    HEAD,
    VerifyReport,
    canonical,
    row_hash,
    signed_text,
)
from tracker.record.keys import PinnedKey, fingerprint, public_bytes
from tracker.record.verify import Witness, verify_connection

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    seq INTEGER PRIMARY KEY, ts REAL NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL,
    body TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (
    seq INTEGER PRIMARY KEY, hash TEXT NOT NULL, ts REAL NOT NULL, signature TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL,
    hash TEXT NOT NULL, signature TEXT NOT NULL);
"""


@dataclass(frozen=True, slots=True)
class Row:
    seq: int
    ts: float
    kind: str
    source: str
    body: dict[str, Any]
    prev: str
    hash: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "ts": self.ts, "kind": self.kind, "source": self.source, "body": self.body,
                "prev": self.prev, "hash": self.hash}


class GameRecord:
    """One table's record in one SQLite file. Not thread-safe: the table loop owns it."""

    def __init__(self, path: str, key: Ed25519PrivateKey | None = None, readonly: bool = False) -> None:
        self.path = path
        self._key = key
        try:
            if readonly:
                self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None,
                                           check_same_thread=False)
            else:
                self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.executescript(SCHEMA)
            last = self._db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        except sqlite3.OperationalError as exc:
            raise RecordError(f"{path}: cannot open the game record ({exc})") from exc
        except sqlite3.DatabaseError as exc:
            raise RecordError(f"{path}: not a game record ({exc})") from exc
        self._seq, self._hash = (int(last[0]), str(last[1])) if last else (0, GENESIS)
        if not readonly:
            self._settle_format()
        if key is not None:
            self._remember_public_key(key.public_key())
        self._closed = False
        self._fingerprint: str | None = ""  # "": not read yet
        self._head: tuple[int, str, str] | None = None  # (seq, hash, signature) of the signed head
        self._game: str | None = None  # the hash of row 1

    def _settle_format(self) -> None:
        fmt = self._meta("format")
        if fmt is None and self._seq == 0:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (FORMAT,))
        elif fmt != FORMAT:
            self._db.close()
            raise RecordError(f"{self.path}: signed with an older format (kipukas-record/{fmt or 1}); it can be "
                              "read and exported but not continued: start a new game")

    def _remember_public_key(self, public: Ed25519PublicKey) -> None:
        raw = public_bytes(public).hex()
        known = self._meta("public_key")
        if known is None:
            self._db.execute("INSERT INTO meta VALUES ('public_key', ?)", (raw,))
        elif known != raw:
            raise RecordError(f"{self.path}: the record was signed with another table key")

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @property
    def can_sign(self) -> bool:
        return self._key is not None

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def last_hash(self) -> str:
        return self._hash

    def append(self, kind: str, source: str, body: dict[str, Any], ts: float | None = None) -> Row:
        """Store one input durably and return its row (with its sequence number and hash)."""
        seq = self._seq + 1
        stamp = round(time.time() if ts is None else ts, 6)
        body_text = canonical(body)
        digest = row_hash(self._hash, seq, stamp, kind, source, body_text)
        sig = self._key.sign(signed_text(HEAD, seq, digest)).hex() if self._key is not None else None
        with self._transaction():
            self._db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (seq, stamp, kind, source, body_text, self._hash, digest))
            if sig is not None:
                self._db.execute("INSERT OR REPLACE INTO head VALUES (1, ?, ?, ?)", (seq, digest, sig))
        row = Row(seq, stamp, kind, source, json.loads(body_text), self._hash, digest)
        self._seq, self._hash = seq, digest
        if sig is not None:
            self._head = (seq, digest, sig)
        return row

    def checkpoint(self, ts: float | None = None) -> int:
        """Sign the current head as a checkpoint (end of each diel cycle); return its sequence number."""
        if self._key is None:
            raise RecordError(f"{self.path}: no table key to sign a checkpoint with")
        sig = self._key.sign(signed_text(CHECKPOINT, self._seq, self._hash)).hex()
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?)",
                             (self._seq, self._hash, time.time() if ts is None else ts, sig))
        return self._seq

    def rows(self, after: int = 0, upto: int | None = None, kinds: tuple[str, ...] = ()) -> Iterator[Row]:
        """Rows after `after` up to and including `upto` (all when None), of `kinds` (all when empty)."""
        sql = "SELECT seq, ts, kind, source, body, prev, hash FROM records WHERE seq > ? AND seq <= ?"
        args: list[Any] = [after, self._seq if upto is None else upto]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            args += kinds
        cur = self._db.execute(sql + " ORDER BY seq", args)
        for seq, ts, kind, source, body, prev, digest in cur:
            yield Row(int(seq), float(ts), str(kind), str(source), json.loads(body), str(prev), str(digest))

    def last_row_before(self, ts: float) -> int:
        """The last row of the record's prefix stamped at or before `ts` (1, the start row, at least)."""
        later = self._db.execute("SELECT MIN(seq) FROM records WHERE ts > ?", (ts,)).fetchone()[0]
        return max(1, min(self._seq, int(later) - 1) if later is not None else self._seq)

    def _transaction(self) -> Any:
        return _Tx(self._db)

    @property
    def fingerprint(self) -> str | None:
        """The fingerprint of the key this record says it is signed with (None when it carries none)."""
        if self._fingerprint == "":
            raw = self._meta("public_key")
            self._fingerprint = fingerprint(bytes.fromhex(raw)) if raw else None
        return self._fingerprint

    def signed_head(self) -> dict[str, Any] | None:
        """The latest signed head as a witness keeps it (`tracker.record.verify.Witness`), or None.
        Kept in memory after the first read (pages ask for it with every state)."""
        if self._head is None:
            head = self._db.execute("SELECT seq, hash, signature FROM head WHERE id = 1").fetchone()
            if head is not None:
                self._head = (int(head[0]), str(head[1]), str(head[2]))
        if self._game is None:
            first = self._db.execute("SELECT hash FROM records WHERE seq = 1").fetchone()
            self._game = None if first is None else str(first[0])
        if self._head is None or self._game is None:
            return None
        seq, digest, sig = self._head
        return {"kipukas_signed_head": int(FORMAT), "game": self._game, "seq": seq, "hash": digest,
                "signature": sig, "key": self.fingerprint}

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close the database (idempotent): its file handles (db, WAL, shared memory) are released now."""
        if not self._closed:
            self._closed = True
            self._db.close()

    def verify(self, pinned: PinnedKey | None = None, witnesses: Sequence[Witness] = ()) -> VerifyReport:
        """Check the chain, every checkpoint and the signed head against `pinned` (default: the key this
        record is written with; a read-only record needs one); name the first bad row."""
        if pinned is None and self._key is not None:
            pinned = PinnedKey.of(self._key, "the table key")
        return verify_connection(self._db, self.path, pinned, witnesses)


class _Tx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
