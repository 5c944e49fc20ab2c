"""The table's Ed25519 signing key: created on first start in the state folder, readable only by the
service's user. A judge verifies a record against this key (its fingerprint is on the judge page and in
`log export`), never against the key a record carries: whoever rewrites a file can replace that too."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
    load_pem_public_key,
)

from tracker.errors import RecordError

KEY_FILE = "table_key.pem"
FINGERPRINT_HEX = 32


def load_or_create_key(state_dir: Path) -> Ed25519PrivateKey:
    path = Path(state_dir) / KEY_FILE
    if path.exists():
        try:
            key = load_pem_private_key(path.read_bytes(), password=None)
        except (OSError, ValueError) as exc:
            raise RecordError(f"{path}: not a readable table key ({exc})") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise RecordError(f"{path}: the table key must be an Ed25519 key")
        return key
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return key


def public_bytes(key: Ed25519PublicKey | Ed25519PrivateKey) -> bytes:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


def fingerprint(key: Ed25519PublicKey | Ed25519PrivateKey | bytes) -> str:
    """The key's fingerprint as a judge writes it down: the first 128 bits of SHA-256 over the raw public
    key, in eight groups of four hex digits (a second key with the same fingerprint cannot be made)."""
    raw = key if isinstance(key, bytes) else public_bytes(key)
    digest = hashlib.sha256(raw).hexdigest()[:FINGERPRINT_HEX]
    return " ".join(digest[i:i + 4] for i in range(0, FINGERPRINT_HEX, 4))


def _squash(text: str) -> str:
    return re.sub(r"[\s:]", "", text).lower()


@dataclass(frozen=True, slots=True)
class PinnedKey:
    """The key a record must be signed with, known from outside the record: the public key itself
    (from the state folder or a key file) or only its fingerprint (written down from the judge page)."""

    fingerprint: str
    public: Ed25519PublicKey | None = None
    origin: str = ""

    def matches(self, raw: bytes) -> bool:
        return fingerprint(raw) == self.fingerprint

    @classmethod
    def of(cls, key: Ed25519PublicKey | Ed25519PrivateKey, origin: str) -> PinnedKey:
        public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
        return cls(fingerprint(public), public, origin)


def table_public_key(state_dir: Path) -> PinnedKey | None:
    """The table's key from its state folder (never created here), or None when there is none."""
    path = Path(state_dir) / KEY_FILE
    if not path.is_file():
        return None
    return PinnedKey.of(load_or_create_key(path.parent), str(path))


def pinned_key(spec: str) -> PinnedKey:
    """`--key FILE|FINGERPRINT`: a PEM key file (the table's private key or its public key), a file or
    text holding the fingerprint, or the 64 hex digits of the raw public key."""
    path = Path(spec)
    text = spec
    if path.is_file():
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise RecordError(f"{path}: cannot read the key file ({exc.strerror})") from exc
        if b"-----BEGIN" in data:
            return _pem_key(path, data)
        text = data.decode("utf-8", errors="replace")
    squashed = _squash(text)
    if re.fullmatch(r"[0-9a-f]{64}", squashed):
        return PinnedKey.of(Ed25519PublicKey.from_public_bytes(bytes.fromhex(squashed)), spec)
    if re.fullmatch(rf"[0-9a-f]{{{FINGERPRINT_HEX}}}", squashed):
        return PinnedKey(" ".join(squashed[i:i + 4] for i in range(0, FINGERPRINT_HEX, 4)), None, spec)
    raise RecordError(f"--key {spec[:80]!r}: not a key file, a key fingerprint ({FINGERPRINT_HEX} hex digits, "
                      "as the judge page shows it) or a raw public key (64 hex digits)")


def _pem_key(path: Path, data: bytes) -> PinnedKey:
    try:
        if b"PRIVATE KEY" in data:
            key: object = load_pem_private_key(data, password=None)
        else:
            key = load_pem_public_key(data)
    except ValueError as exc:
        raise RecordError(f"{path}: not a readable key ({exc})") from exc
    if not isinstance(key, Ed25519PrivateKey | Ed25519PublicKey):
        raise RecordError(f"{path}: a table key is an Ed25519 key")
    return PinnedKey.of(key, str(path))
