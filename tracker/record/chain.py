"""What the record's integrity rests on, shared by the writer (`store`) and the checker (`verify`):
the row hash, the labelled messages signatures cover, and the report of a check."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64
FORMAT = "2"  # meta 'format': records of format 1 (no meta row) signed head and checkpoint alike
HEAD, CHECKPOINT = "head", "checkpoint"


@dataclass(frozen=True, slots=True)
class VerifyReport:
    ok: bool
    rows: int
    checkpoints: int
    first_bad_seq: int | None = None
    problem: str = ""
    key: str = ""        # fingerprint of the key the record was checked against
    witnessed: int = 0   # the highest row a witness vouched for


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_hash(prev: str, seq: int, ts: float, kind: str, source: str, body_text: str) -> str:
    return row_hash_of(prev, seq, ts, kind, source, json.loads(body_text))


def row_hash_of(prev: str, seq: int, ts: float, kind: str, source: str, body: Any) -> str:
    """`row_hash` of a body already parsed from JSON (what a JSON round trip leaves unchanged hashes the
    same): the hub's ingest checks every pushed row without writing and re-reading its body."""
    payload = canonical({"seq": seq, "ts": ts, "kind": kind, "source": source, "body": body})
    return hashlib.sha256((prev + payload).encode("utf-8")).hexdigest()


def signed_text(label: str, seq: int, digest: str) -> bytes:
    """The message a signature covers: format, what is signed (`head` or `checkpoint`), row and hash."""
    if label not in (HEAD, CHECKPOINT):
        raise ValueError(f"unknown signature label {label!r}")
    return f"kipukas-record/{FORMAT}\n{label}\n{seq}\n{digest}".encode()
