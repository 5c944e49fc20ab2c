"""The game record: an append-only, hash-chained SQLite log of every input and its verdict.

Each row's hash is SHA-256 over the previous row's hash and the row's canonical JSON, so an edited,
reordered or deleted row breaks the chain from that row on. Checkpoints sign (seq, hash) with the
table's Ed25519 key; the latest row's hash is also signed (the signed head), so truncating the tail
after the last checkpoint is detected too. WAL with synchronous=FULL: a row is on disk once `append`
returns, which is what "acknowledged" means after a power cut.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tracker.errors import RecordError

GENESIS = "0" * 64
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


@dataclass(frozen=True, slots=True)
class VerifyReport:
    ok: bool
    rows: int
    checkpoints: int
    first_bad_seq: int | None = None
    problem: str = ""


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_hash(prev: str, seq: int, ts: float, kind: str, source: str, body_text: str) -> str:
    payload = canonical({"seq": seq, "ts": ts, "kind": kind, "source": source, "body": json.loads(body_text)})
    return hashlib.sha256((prev + payload).encode("utf-8")).hexdigest()


def _signed_text(seq: int, digest: str) -> bytes:
    return f"kipukas-record:{seq}:{digest}".encode()


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
        if key is not None:
            self._remember_public_key(key.public_key())
        self._seq, self._hash = (int(last[0]), str(last[1])) if last else (0, GENESIS)

    def _remember_public_key(self, public: Ed25519PublicKey) -> None:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        raw = public.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
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
        with self._transaction():
            self._db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (seq, stamp, kind, source, body_text, self._hash, digest))
            if self._key is not None:
                sig = self._key.sign(_signed_text(seq, digest)).hex()
                self._db.execute("INSERT OR REPLACE INTO head VALUES (1, ?, ?, ?)", (seq, digest, sig))
        row = Row(seq, stamp, kind, source, json.loads(body_text), self._hash, digest)
        self._seq, self._hash = seq, digest
        return row

    def checkpoint(self, ts: float | None = None) -> int:
        """Sign the current head as a checkpoint (end of each diel cycle); return its sequence number."""
        if self._key is None:
            raise RecordError(f"{self.path}: no table key to sign a checkpoint with")
        sig = self._key.sign(_signed_text(self._seq, self._hash)).hex()
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?)",
                             (self._seq, self._hash, time.time() if ts is None else ts, sig))
        return self._seq

    def rows(self, after: int = 0) -> Iterator[Row]:
        cur = self._db.execute("SELECT seq, ts, kind, source, body, prev, hash FROM records WHERE seq > ? "
                               "ORDER BY seq", (after,))
        for seq, ts, kind, source, body, prev, digest in cur:
            yield Row(int(seq), float(ts), str(kind), str(source), json.loads(body), str(prev), str(digest))

    def _transaction(self) -> Any:
        return _Tx(self._db)

    def close(self) -> None:
        self._db.close()

    def verify(self) -> VerifyReport:
        """Check the chain, every checkpoint and the signed head; name the first bad row."""
        return verify_connection(self._db, self.path)


class _Tx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


def verify_connection(db: sqlite3.Connection, path: str) -> VerifyReport:
    key_hex = db.execute("SELECT value FROM meta WHERE key = 'public_key'").fetchone()
    public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(key_hex[0])) if key_hex else None
    expect_prev, expect_seq, count = GENESIS, 1, 0
    hashes: dict[int, str] = {}
    for seq, ts, kind, source, body, prev, digest in db.execute(
            "SELECT seq, ts, kind, source, body, prev, hash FROM records ORDER BY rowid"):
        count += 1
        if seq != expect_seq:
            return VerifyReport(False, count, 0, expect_seq, f"row {expect_seq} is missing or out of order "
                                                             f"(found row {seq} in its place)")
        try:
            recomputed = row_hash(prev, seq, ts, kind, source, body)
        except (json.JSONDecodeError, TypeError):
            return VerifyReport(False, count, 0, seq, f"row {seq} has a body that is not JSON")
        if prev != expect_prev:
            return VerifyReport(False, count, 0, seq, f"row {seq} does not chain to row {seq - 1}")
        if recomputed != digest:
            return VerifyReport(False, count, 0, seq, f"row {seq} was altered (its hash does not match its content)")
        hashes[seq] = digest
        expect_prev, expect_seq = digest, seq + 1
    checkpoints = db.execute("SELECT seq, hash, signature FROM checkpoints ORDER BY seq").fetchall()
    for seq, digest, sig in checkpoints:
        if public is None or not _valid(public, seq, digest, sig):
            return VerifyReport(False, count, len(checkpoints), seq, f"checkpoint at row {seq} has a bad signature")
        if hashes.get(seq) != digest:
            return VerifyReport(False, count, len(checkpoints), min(seq, expect_seq),
                                f"row {seq} no longer matches its signed checkpoint (rows deleted or truncated)")
    head = db.execute("SELECT seq, hash, signature FROM head WHERE id = 1").fetchone()
    if public is not None and count:
        if head is None or not _valid(public, head[0], head[1], head[2]):
            return VerifyReport(False, count, len(checkpoints), expect_seq - 1, "the signed head is missing or forged")
        if head[0] != expect_seq - 1 or head[1] != expect_prev:
            return VerifyReport(False, count, len(checkpoints), min(int(head[0]), expect_seq - 1) + 1,
                                f"the record ends at row {expect_seq - 1} but its signed head is row {head[0]} "
                                "(the tail was truncated)")
    return VerifyReport(True, count, len(checkpoints))


def _valid(public: Ed25519PublicKey, seq: int, digest: str, sig: str) -> bool:
    try:
        public.verify(bytes.fromhex(sig), _signed_text(seq, digest))
    except (InvalidSignature, ValueError):
        return False
    return True
