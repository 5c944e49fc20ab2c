"""The hub's configuration: `hub.toml`, validated as strictly as a table's `table.toml`.

```toml
[hub]
redis_url = "redis://:PASSWORD@127.0.0.1:6379/0"   # loopback only, with a password
organiser_pin = "..."     # the organiser page (pairings, results, downloads)
judge_pin = "..."         # the same page, read-only
spectator_delay_min = 15  # FIDE's broadcast delay; applied here, at the hub
secret = "..."            # signs the page keys; the same in every hub process
port = 7001               # one port per hub process (`--port` overrides)
broadcast = "framed"      # spectators' broadcasts encoded and framed once ("plain": the library's own
                          # per-socket path, kept to measure against: bench/bench_hub.py)

[tables]                  # table number = SHA-256 of its token (never the token itself)
"1" = "9f86d081..."
```
"""

from __future__ import annotations

import hashlib
import re
import secrets
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tracker.config import ConfigError, _Section

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
BROADCASTS = ("framed", "plain")


@dataclass(frozen=True)
class HubConfig:
    redis_url: str
    organiser_pin: str
    judge_pin: str = ""
    spectator_delay_min: float = 15.0
    secret: str = ""
    host: str = "127.0.0.1"
    port: int = 7001
    allowed_origins: tuple[str, ...] = ()
    broadcast: str = "framed"
    tables: dict[str, str] = field(default_factory=dict)  # token sha256 -> table id
    source_file: str = "<string>"

    def table_of(self, token: str) -> str | None:
        """The table a token belongs to (tokens are compared by their hash: none is kept in clear)."""
        return self.tables.get(token_hash(token))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> tuple[str, str]:
    """A fresh table token and the hash that goes into hub.toml."""
    token = secrets.token_urlsafe(24)
    return token, token_hash(token)


def parse_hub_config(text: str, source: str = "<string>") -> HubConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, "<file>", f"not TOML: {exc}") from exc
    for name in data:
        if name not in ("hub", "tables"):
            raise ConfigError(source, f"[{name}]", "unknown section (known: hub, tables)")
    h = _Section(source, "hub", data.get("hub", {}))
    redis_url = h.text("redis_url", "")
    if not re.match(r"^rediss?://:[^@]+@", redis_url):
        raise ConfigError(source, "[hub] redis_url", "expected redis://:PASSWORD@HOST:PORT/DB (Redis needs a password)")
    pin = h.text("organiser_pin", "")
    if len(pin) < 4:
        raise ConfigError(source, "[hub] organiser_pin", "expected a PIN of at least 4 characters")
    secret = h.text("secret", "")
    if len(secret) < 16:
        raise ConfigError(source, "[hub] secret", "expected at least 16 characters, the same in every hub process")
    cfg = dict(redis_url=redis_url, organiser_pin=pin, judge_pin=h.text("judge_pin", ""),
               spectator_delay_min=h.number("spectator_delay_min", 15.0, 0.0, 240.0), secret=secret,
               host=h.text("host", "127.0.0.1"), port=h.integer("port", 7001, 1, 65535),
               allowed_origins=h.strings("allowed_origins", ()), broadcast=h.text("broadcast", "framed"))
    if cfg["broadcast"] not in BROADCASTS:
        raise ConfigError(source, "[hub] broadcast", f"expected one of {', '.join(BROADCASTS)}")
    h.finish()
    raw_tables = data.get("tables", {})
    if not isinstance(raw_tables, dict):
        raise ConfigError(source, "[tables]", "expected a table (section)")
    tables: dict[str, str] = {}
    for table, digest in raw_tables.items():
        if not TABLE_ID.match(table):
            raise ConfigError(source, f"[tables] {table}", "a table id is 1-32 letters, digits, _ or -")
        if not isinstance(digest, str) or not SHA256_HEX.match(digest):
            raise ConfigError(source, f"[tables] {table}", "expected the SHA-256 (64 hex digits) of the table's token")
        if digest in tables:
            raise ConfigError(source, f"[tables] {table}", f"same token as table {tables[digest]}")
        tables[digest] = table
    return HubConfig(**cfg, tables=tables, source_file=source)  # type: ignore[arg-type]


def load_hub_config(path: str | Path) -> HubConfig:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(p), "<file>", f"cannot read: {exc.strerror}") from exc
    return parse_hub_config(text, str(p))
