"""The record's downloads and key fingerprint, shared by every table service (any game): a consistent
SQLite copy, every row with its hashes, and the fingerprint a judge compares with the pinned key."""

from __future__ import annotations

import hashlib
import sqlite3
from typing import Any

from tracker.record.store import GameRecord


def key_fingerprint(path: str) -> str:
    """SHA-256 of the table's public signing key as the record holds it, in groups of four (what a judge
    compares with the key pinned elsewhere), or "" for an unsigned record."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'public_key'").fetchone()
    finally:
        db.close()
    if row is None:
        return ""
    digest = hashlib.sha256(bytes.fromhex(str(row[0]))).hexdigest()[:32]
    return " ".join(digest[i:i + 4] for i in range(0, len(digest), 4))


def sqlite_copy(path: str) -> bytes:
    """The signed record as one SQLite file (a consistent copy, taken without stopping the table)."""
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    copy = sqlite3.connect(":memory:")
    try:
        source.backup(copy)
        return copy.serialize()
    finally:
        source.close()
        copy.close()


def record_rows(path: str) -> list[dict[str, Any]]:
    """Every row of the record with its hashes, as `kipukas-tracker log export` writes them."""
    record = GameRecord(path, readonly=True)
    try:
        return [row.to_json() for row in record.rows()]
    finally:
        record.close()
