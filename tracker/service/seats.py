"""Who may do what at a table: seat tokens, the spectator token, the judge PIN and the judge key.

Each seat (player colour) gets a random token when the table is set up; the host page shows it as a QR
code, and a phone that scans it joins as that player. Tokens are random per table (`secrets`), kept in
the table's state folder when it has one (so a restart does not strand the phones) and are not secret
from the judge, who hands them out. The judge role is unlocked with the PIN from the table
configuration; when no PIN is configured only the Pi itself (a loopback connection) may be judge.
The judge key authorises the judge page's plain HTTP requests (QR codes, keyframes) for one run.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from tracker.errors import InputError

ROLES = ("player", "judge", "spectator")
TOKEN_BYTES = 16


class AccessDenied(InputError):
    """A connection or request without the right to what it asked for (bad token, wrong PIN, wrong role)."""


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: a seated player (``seat`` is their colour), a judge, or a spectator."""

    role: str
    seat: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r} (known: {', '.join(ROLES)})")
        if (self.role == "player") != (self.seat is not None):
            raise ValueError("a player viewer needs a seat, and only a player has one")

    @property
    def name(self) -> str:
        return self.seat if self.seat else self.role


JUDGE = Viewer("judge")
SPECTATOR = Viewer("spectator")


def player(seat: str) -> Viewer:
    return Viewer("player", seat)


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


class Seats:
    """The tokens of one table. `path` (optional) is a JSON file in the table's state folder."""

    def __init__(self, players: tuple[str, ...], judge_pin: str = "", open_spectators: bool = True,
                 path: Path | None = None) -> None:
        self.players = tuple(players)
        self.judge_pin = judge_pin
        self.open_spectators = open_spectators
        self.path = path
        self.judge_key = secrets.token_urlsafe(TOKEN_BYTES)  # per run: the judge page's HTTP requests
        stored = self._load()
        self.tokens: dict[str, str] = {p: stored.get(p) or secrets.token_urlsafe(TOKEN_BYTES) for p in self.players}
        self.tokens["spectator"] = stored.get("spectator") or secrets.token_urlsafe(TOKEN_BYTES)
        if path is not None and stored != self.tokens:
            self._save()

    def _load(self) -> dict[str, str]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{self.path}: unreadable seat tokens ({exc}); delete the file to issue new ones") \
                from exc
        if not isinstance(data, dict) or not all(isinstance(v, str) and v for v in data.values()):
            raise InputError(f"{self.path}: seat tokens must be a JSON object of non-empty strings")
        return {str(k): str(v) for k, v in data.items()}

    def _save(self) -> None:
        assert self.path is not None
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(self.tokens, out, indent=1, sort_keys=True)
        tmp.replace(self.path)

    def reissue(self) -> None:
        """New tokens for every seat (a new game with new players): old links stop working."""
        self.tokens = {k: secrets.token_urlsafe(TOKEN_BYTES) for k in self.tokens}
        if self.path is not None:
            self._save()

    def authenticate(self, token: str | None, pin: str | None, local: bool) -> Viewer:
        """The viewer a connection's credentials name. No credentials: a spectator when spectating is
        open. A PIN asks for the judge role; a token for a seat (or the spectator seat)."""
        if pin is not None:
            if self.judge_pin and _same(pin, self.judge_pin):
                return JUDGE
            if not self.judge_pin and local:
                return JUDGE
            raise AccessDenied("wrong judge PIN" if self.judge_pin else
                               "no judge PIN is configured: the judge page opens only on the Pi itself")
        if token is None:
            if self.open_spectators:
                return SPECTATOR
            raise AccessDenied("this table admits spectators only with the spectator link")
        for name, known in self.tokens.items():
            if _same(token, known):
                return SPECTATOR if name == "spectator" else player(name)
        raise AccessDenied("unknown seat token: scan the table's QR code again")

    def judge_key_ok(self, key: str | None) -> bool:
        return key is not None and _same(key, self.judge_key)
