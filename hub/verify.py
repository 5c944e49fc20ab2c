"""Everything the hub knows about how a row's hash and a head's signature are made, in one place.

The hub only calls into `tracker.record.chain` here (the hashing and the labelled messages a signature
covers, shared with the record's writer and checker), so a change of the record's format is adapted in
this one module.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tracker.record import chain

GENESIS = chain.GENESIS


class RowError(ValueError):
    """A pushed row or head that is malformed or does not verify; the message names the row."""


@dataclass(frozen=True, slots=True)
class PushedRow:
    seq: int
    prev: str
    hash: str
    text: str  # the row's canonical JSON, as stored and served by the hub

    @property
    def data(self) -> dict[str, Any]:
        import json

        out: dict[str, Any] = json.loads(self.text)
        return out


def check_row(raw: Any) -> PushedRow:
    """Validate one pushed row and recompute its hash; raise `RowError` naming the row when it is wrong."""
    if not isinstance(raw, dict):
        raise RowError("a row must be an object")
    try:
        seq, ts, kind, source, body = raw["seq"], raw["ts"], raw["kind"], raw["source"], raw["body"]
        prev, digest = raw["prev"], raw["hash"]
    except KeyError as exc:
        raise RowError(f"row {raw.get('seq', '?')}: missing field {exc.args[0]!r}") from exc
    if not (isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1):
        raise RowError(f"row {seq!r}: seq must be a whole number >= 1")
    if not (isinstance(ts, int | float) and isinstance(kind, str) and isinstance(source, str)
            and isinstance(body, dict) and isinstance(prev, str) and isinstance(digest, str)):
        raise RowError(f"row {seq}: a field has the wrong type")
    if chain.row_hash_of(prev, seq, float(ts), kind, source, body) != digest:
        raise RowError(f"row {seq}: its hash does not match its content")
    text = chain.canonical({"seq": seq, "ts": ts, "kind": kind, "source": source, "body": body,
                            "prev": prev, "hash": digest})
    return PushedRow(seq, prev, digest, text)


def public_key(hex_key: str) -> Ed25519PublicKey:
    try:
        return _loaded_key(hex_key)
    except ValueError as exc:
        raise RowError(f"not an Ed25519 public key: {hex_key[:16]!r}...") from exc


@functools.lru_cache(maxsize=1024)
def _loaded_key(hex_key: str) -> Ed25519PublicKey:
    """A table's key, parsed once per process: every push's head is checked against the same pinned key
    (a bad key raises, and an exception is never cached)."""
    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(hex_key))


def head_valid(key_hex: str, seq: int, digest: str, signature: str) -> bool:
    """True when `signature` is the table's signature of its head (seq, hash), signed as a head (not a
    checkpoint: the two sign distinct labelled messages)."""
    try:
        public_key(key_hex).verify(bytes.fromhex(signature), chain.signed_text(chain.HEAD, seq, digest))
    except (InvalidSignature, ValueError, RowError):
        return False
    return True
