"""A judge's check of a record against things the record cannot forge: the table's key pinned from
outside the file, and signed heads that witnesses (pages, exports, a hub) kept.

A record that carries no signatures, or signatures of another key, fails: whoever can edit the file can
also strip or replace the key it carries, so only a key the judge knows from elsewhere proves anything
(as a Certificate Transparency log's key is pinned outside the log). Cutting the file back to an older
signed head leaves a valid-looking record; only a witnessed newer head shows that rows are missing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tracker.errors import RecordError
from tracker.record.chain import CHECKPOINT, FORMAT, GENESIS, HEAD, VerifyReport, row_hash, signed_text
from tracker.record.keys import PinnedKey, fingerprint

WITNESS_FIELDS = ("game", "seq", "hash", "signature")


@dataclass(frozen=True, slots=True)
class Witness:
    """A signed head kept outside the record: the game (hash of its first row), the row, its hash and
    the table's signature over them."""

    game: str
    seq: int
    hash: str
    signature: str
    origin: str = ""

    @classmethod
    def of(cls, data: Any, origin: str) -> Witness:
        if not isinstance(data, dict) or data.get("kipukas_signed_head") != int(FORMAT):
            raise RecordError(f"{origin}: not a signed head (expected a JSON object with "
                              f"\"kipukas_signed_head\": {FORMAT})")
        missing = [k for k in WITNESS_FIELDS if k not in data]
        if missing:
            raise RecordError(f"{origin}: the signed head lacks {', '.join(missing)}")
        seq = data["seq"]
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise RecordError(f"{origin}: 'seq' must be a row number >= 1, got {seq!r}")
        texts = [data[k] for k in ("game", "hash", "signature")]
        if not all(isinstance(t, str) and t for t in texts):
            raise RecordError(f"{origin}: 'game', 'hash' and 'signature' must be non-empty text")
        return cls(str(data["game"]), seq, str(data["hash"]), str(data["signature"]), origin)

    @classmethod
    def read(cls, path: Path) -> Witness:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise RecordError(f"{path}: cannot read the signed head ({exc.strerror})") from exc
        except (ValueError, UnicodeDecodeError) as exc:
            raise RecordError(f"{path}: not JSON ({exc})") from exc
        return cls.of(data, str(path))


def signature_ok(public: Ed25519PublicKey, label: str, seq: int, digest: str, sig: str) -> bool:
    try:
        public.verify(bytes.fromhex(sig), signed_text(label, int(seq), str(digest)))
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def _fail(rows: int, checkpoints: int, seq: int | None, problem: str, key: str = "") -> VerifyReport:
    return VerifyReport(False, rows, checkpoints, seq, problem, key)


def _chain(db: sqlite3.Connection) -> tuple[dict[int, str], VerifyReport | None]:
    """Row -> hash for an intact chain, or the report naming the first bad row."""
    expect_prev, expect_seq = GENESIS, 1
    hashes: dict[int, str] = {}
    rows = db.execute("SELECT seq, ts, kind, source, body, prev, hash FROM records ORDER BY rowid")
    for count, (seq, ts, kind, source, body, prev, digest) in enumerate(rows, start=1):
        if seq != expect_seq:
            return hashes, _fail(count, 0, expect_seq, f"row {expect_seq} is missing or out of order "
                                                        f"(found row {seq} in its place)")
        try:
            recomputed = row_hash(prev, seq, ts, kind, source, body)
        except (json.JSONDecodeError, TypeError):
            return hashes, _fail(count, 0, seq, f"row {seq} has a body that is not JSON")
        if prev != expect_prev:
            return hashes, _fail(count, 0, seq, f"row {seq} does not chain to row {seq - 1}")
        if recomputed != digest:
            return hashes, _fail(count, 0, seq, f"row {seq} was altered (its hash does not match its content)")
        hashes[seq] = digest
        expect_prev, expect_seq = digest, seq + 1
    return hashes, None


def _key(db: sqlite3.Connection, pinned: PinnedKey | None) -> tuple[Ed25519PublicKey | None, str]:
    """The public key to check signatures with, or (None, the problem)."""
    if pinned is None:
        return None, ("no table key to check against: give --key FILE|FINGERPRINT (the fingerprint is on the "
                      "judge page and in `log export`) or run where the table's state folder is")
    stored = db.execute("SELECT value FROM meta WHERE key = 'public_key'").fetchone()
    if stored is None:
        return None, "the record carries no table key or signatures (stripped?): it proves nothing"
    try:
        raw = bytes.fromhex(str(stored[0]))
        public = Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        return None, "the record's table key is not an Ed25519 public key"
    if not pinned.matches(raw):
        return None, (f"signed with another key (fingerprint {fingerprint(raw)}), not the table's key "
                      f"{pinned.fingerprint}")
    return pinned.public or public, ""


def verify_connection(db: sqlite3.Connection, path: str, pinned: PinnedKey | None,
                      witnesses: Sequence[Witness] = ()) -> VerifyReport:
    """Check chain, checkpoints, signed head and witnessed heads of the record open on `db`."""
    fmt = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    hashes, broken = _chain(db)
    count = len(hashes) + (1 if broken else 0)
    key_text = pinned.fingerprint if pinned else ""
    if fmt is None and count:
        return _fail(count, 0, None, "signed with an older format (kipukas-record/1: head and checkpoints "
                                     "signed the same message, so truncation cannot be ruled out)", key_text)
    if broken is not None:
        return VerifyReport(False, broken.rows, 0, broken.first_bad_seq, broken.problem, key_text)
    last = max(hashes) if hashes else 0
    public, problem = _key(db, pinned)
    checkpoints = db.execute("SELECT seq, hash, signature FROM checkpoints ORDER BY seq").fetchall()
    if public is None:
        return _fail(count, len(checkpoints), None, problem, key_text)
    for seq, digest, sig in checkpoints:
        if not signature_ok(public, CHECKPOINT, seq, digest, sig):
            return _fail(count, len(checkpoints), seq, f"checkpoint at row {seq} has a bad signature", key_text)
        if hashes.get(seq) != digest:
            return _fail(count, len(checkpoints), min(seq, last + 1),
                         f"row {seq} no longer matches its signed checkpoint (rows deleted or truncated)", key_text)
    head = db.execute("SELECT seq, hash, signature FROM head WHERE id = 1").fetchone()
    if count:
        if head is None or not signature_ok(public, HEAD, head[0], head[1], head[2]):
            return _fail(count, len(checkpoints), last, "the signed head is missing or forged", key_text)
        if head[0] != last or head[1] != hashes[last]:
            return _fail(count, len(checkpoints), min(int(head[0]), last) + 1,
                         f"the record ends at row {last} but its signed head is row {head[0]} "
                         "(the tail was truncated)", key_text)
    witnessed = 0
    game = hashes.get(1, "")
    for w in sorted(witnesses, key=lambda w: w.seq):
        if not signature_ok(public, HEAD, w.seq, w.hash, w.signature):
            raise RecordError(f"{w.origin}: this signed head's signature does not verify with the table's key "
                              f"{key_text}")
        if w.game != game:
            raise RecordError(f"{w.origin}: this signed head belongs to another game than {path}")
        if w.seq > last:
            return _fail(count, len(checkpoints), last + 1,
                         f"truncated: {w.origin} witnessed a signed head at row {w.seq}, but the record ends at "
                         f"row {last}: rows {last + 1}..{w.seq} are missing", key_text)
        if hashes[w.seq] != w.hash:
            return _fail(count, len(checkpoints), w.seq,
                         f"rewritten: row {w.seq} differs from the signed head {w.origin} witnessed", key_text)
        witnessed = max(witnessed, w.seq)
    return VerifyReport(True, count, len(checkpoints), key=key_text, witnessed=witnessed)
