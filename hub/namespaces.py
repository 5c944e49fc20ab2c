"""The hub's Socket.IO namespaces for people: `/watch` (spectators) and `/organiser` (tables push in
`hub.push`), and what they share: what a spectator may see of a row, rate limits, page keys.

Who is who is decided once, at connect: a table by its token (its table id comes from the token, never
from what it claims), organisers and judges by their PIN, spectators need nothing and see only public,
delayed data. Every event is size-checked and rate-limited per connection, like the table's own pages.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import redis
from flask import request
from flask_socketio import ConnectionRefusedError, Namespace, join_room

from broadcast import passthrough
from hub.settings import HubConfig
from hub.streams import Announce, HubStore
from hub.verify import RowError

log = logging.getLogger("kipukas-hub")
PUBLIC_BODY = {"action": ("text", "accepted", "rule"), "board": ("observed",), "start": ("players", "map"),
               "undo": ("reason",), "correct": ("target", "text")}  # `shown`/`question` stay private
STATUS_KEYS = ("players", "phase", "turn", "active", "result", "in_sync", "warnings", "seq", "cameras", "game")
TURN_HOLD_S = 10.0  # the longest one process may hold the delayed broadcasts' turn (publishing takes ms)


def public_row(table: str, game: str, row: dict[str, Any]) -> dict[str, Any]:
    """What a spectator may see of a row: never a hidden card or a question to one player."""
    body = row.get("body", {})
    if "public" in body:  # the table's own masking of hidden words (a card drawn in another game)
        body = {**body, "text": body["public"]}
    keep = PUBLIC_BODY.get(str(row.get("kind")), ())
    return {"table": table, "game": game, "seq": row["seq"], "ts": row["ts"], "kind": row["kind"],
            "body": {k: body[k] for k in keep if k in body}}


@dataclass
class Bucket:
    """Token bucket: `rate` events a second, bursts of `burst`."""

    rate: float
    burst: float
    tokens: float = 0.0
    stamp: float = field(default_factory=time.monotonic)

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


def page_key(cfg: HubConfig, role: str) -> str:
    """The key an organiser's or judge's page uses for downloads (`?k=`): the same in every hub process."""
    return hmac.new(cfg.secret.encode(), f"hub-page:{role}".encode(), "sha256").hexdigest()[:32]


def role_of_key(cfg: HubConfig, key: str | None) -> str | None:
    for role in ("organiser", "judge"):
        if key and hmac.compare_digest(key, page_key(cfg, role)):
            return role
    return None


class Broadcaster:
    """Sends spectators what they may see once the tournament's delay has passed (0: at once)."""

    def __init__(self, cfg: HubConfig, store: HubStore, socketio: Any) -> None:
        self.cfg, self.store, self.socketio = cfg, store, socketio

    def announce(self, table: str, public: list[dict[str, Any]]) -> Announce | None:
        """With no delay, the message that tells every hub process's spectators of a table about rows,
        for the store to publish with the rows it adds (`HubStore.append`): python-socketio's own message
        on its Redis channel, so every process delivers it as any other broadcast."""
        if self.cfg.spectator_delay_min > 0:
            return None
        room = json.dumps(f"watch:{table}")  # the shape `broadcast.passthrough` takes apart without decoding
        return Announce(self.socketio.server.manager.channel, passthrough.PREFIX.decode(),
                        f"{passthrough.MIDDLE.decode()}{room}{passthrough.END.decode()}",
                        [json.dumps(r, separators=(",", ":")) for r in public])

    def send(self, table: str, event: str, payload: Any) -> None:
        delay = self.cfg.spectator_delay_min * 60.0
        if delay <= 0:
            self.socketio.emit(event, payload, to=f"watch:{table}", namespace="/watch")
        else:
            self.store.delay(time.time() + delay, {"table": table, "event": event, "payload": payload})

    def run(self, stop: threading.Event, tick_s: float = 1.0) -> None:
        """Each hub process takes the due broadcasts (each exactly once) and sends them to every process,
        once a tick and one message per table: behind a delay of minutes, a second more costs nothing and
        sending a table's rows together divides the spectators' messages by the table's update rate.
        Taking and publishing is one process's turn at a time (`HubStore.take_turn`), so what was taken
        first is published first: a process whose turn it is not waits for its next tick."""
        owner = f"{socket.gethostname()}:{os.getpid()}:{id(self)}"
        while not stop.wait(tick_s):
            try:
                if not self.store.take_turn(owner, TURN_HOLD_S):
                    continue
                try:
                    for table, event, payload in coalesce(self.store.due(time.time())):
                        self.socketio.emit(event, payload, to=f"watch:{table}", namespace="/watch")
                finally:
                    self.store.end_turn(owner)
            except Exception:  # Redis away: the queue is kept there, try again
                log.warning("delayed broadcasts: Redis unavailable, retrying")


def coalesce(items: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """Due broadcasts as one `rows` message per table (rows in order) and its latest `status`."""
    rows: dict[str, list[dict[str, Any]]] = {}
    status: dict[str, Any] = {}
    for item in items:
        if item["event"] == "rows":
            rows.setdefault(item["table"], []).extend(item["payload"])
        else:
            status[item["table"]] = item["payload"]
    out = [(t, "rows", sorted(r, key=lambda row: (row["game"], row["seq"]))) for t, r in rows.items()]
    return out + [(t, "status", p) for t, p in status.items()]


class WatchNamespace(Namespace):  # type: ignore[misc]
    """Spectators: one room per table; on joining, the last rows that are past the delay."""

    def __init__(self, cfg: HubConfig, store: HubStore) -> None:
        super().__init__("/watch")
        self.cfg, self.store = cfg, store

    def on_connect(self, auth: Any = None) -> None:
        table = auth.get("table") if isinstance(auth, dict) else None
        if not isinstance(table, str) or table not in self.cfg.tables.values():
            raise ConnectionRefusedError("no such table")
        join_room(f"watch:{table}")
        try:
            games = self.store.games(table)
            cutoff = time.time() - self.cfg.spectator_delay_min * 60.0
            rows = [r for r in self.store.recent(table, games[-1], 50) if r["at"] <= cutoff] if games else []
        except redis.RedisError as exc:  # the live rows still come; only the recent ones are missing
            log.warning("spectator of table %s joined without the recent rows: %s", table, exc)
            return
        if games:  # to this socket, which is in this process: not through Redis to every process
            self.socketio.emit("rows", [public_row(table, games[-1], r) for r in rows], to=_sid(),
                               namespace=self.namespace, ignore_queue=True)


class OrganiserNamespace(Namespace):  # type: ignore[misc]
    """Organisers (PIN) and judges (their PIN, read-only): every table at a glance, judge calls, results."""

    def __init__(self, cfg: HubConfig, store: HubStore) -> None:
        super().__init__("/organiser")
        self.cfg, self.store = cfg, store
        self.roles: dict[str, str] = {}
        self.failed: dict[str, list[float]] = {}

    def on_connect(self, auth: Any = None) -> None:
        pin = auth.get("pin") if isinstance(auth, dict) else None
        addr = str(request.remote_addr)
        recent = [t for t in self.failed.get(addr, []) if t > time.time() - 60.0]
        if len(recent) >= 5:
            raise ConnectionRefusedError("too many wrong PINs: wait a minute")
        role = None
        if isinstance(pin, str) and hmac.compare_digest(pin, self.cfg.organiser_pin):
            role = "organiser"
        elif isinstance(pin, str) and self.cfg.judge_pin and hmac.compare_digest(pin, self.cfg.judge_pin):
            role = "judge"
        if role is None:
            self.failed[addr] = [*recent, time.time()]
            raise ConnectionRefusedError("wrong PIN")
        self.roles[_sid()] = role
        join_room("organisers")
        self.emit("welcome", {"role": role, "key": page_key(self.cfg, role)}, room=_sid())
        self.emit("overview", overview(self.cfg, self.store), room=_sid())

    def on_disconnect(self, *_: Any) -> None:
        self.roles.pop(_sid(), None)

    def on_overview(self, *_: Any) -> dict[str, Any]:
        return overview(self.cfg, self.store) if _sid() in self.roles else {}

    def on_clear_call(self, data: Any) -> None:
        if _sid() in self.roles and isinstance(data, dict) and isinstance(data.get("table"), str):
            self.store.clear_call(data["table"])

    def on_result(self, data: Any) -> dict[str, Any]:
        from hub.pairings import RESULTS

        if self.roles.get(_sid()) != "organiser":
            return {"error": "only the organiser enters results"}
        if not isinstance(data, dict) or data.get("result") not in RESULTS:
            return {"error": "result: expected red, blue, draw or empty"}
        for p in self.store.pairings():
            if p["round"] == str(data.get("round")) and p["table"] == data.get("table"):
                self.store.set_pairing(p | {"result": data["result"]})
                return {"ok": True}
        return {"error": f"no pairing for round {data.get('round')} at table {data.get('table')}"}


def overview(cfg: HubConfig, store: HubStore) -> dict[str, Any]:
    from hub.pairings import standings

    statuses = store.statuses()
    tables = sorted(set(cfg.tables.values()), key=lambda t: (not t.isdigit(), int(t) if t.isdigit() else 0, t))
    pairings = store.pairings()
    rounds = sorted({int(p["round"]) for p in pairings})
    return {"tables": [{"table": t, **statuses.get(t, {}), "games": store.games(t)} for t in tables],
            "pairings": pairings, "standings": standings(pairings), "rounds": rounds, "now": time.time(),
            "standings_by_round": {str(r): standings(pairings, upto_round=r) for r in rounds}}


def _sid() -> str:
    sid: str = request.sid  # type: ignore[attr-defined]
    return sid


def game_name(data: Any) -> str:
    """The game a table's message names (its record's file name), checked."""
    game = data.get("game") if isinstance(data, dict) else None
    if not isinstance(game, str) or not 1 <= len(game) <= 80 or not all(c.isalnum() or c in "-_." for c in game):
        raise RowError("game: expected the record's name (letters, digits, - _ .)")
    return game
