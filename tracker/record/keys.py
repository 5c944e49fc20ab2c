"""The table's Ed25519 signing key: created on first start in the state folder, readable only by the
service's user. Judges verify records with the public key stored in each record."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)

from tracker.errors import RecordError

KEY_FILE = "table_key.pem"


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
