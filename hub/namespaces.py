"""The hub's Socket.IO namespaces: `/push` (tables), `/watch` (spectators) and `/organiser`.

Who is who is decided once, at connect: a table by its token (its table id comes from the token, never
from what it claims), organisers and judges by their PIN, spectators need nothing and see only public,
delayed data. Every event is size-checked and rate-limited per connection, like the table's own pages.
"""

from __future__ import annotations

import hmac
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import redis
from flask import request
from flask_socketio import ConnectionRefusedError, Namespace, join_room

from broadcast.timing import StageTimes
from hub.settings import HubConfig
from hub.streams import Announce, Head, HubStore
from hub.verify import RowError, check_row, head_valid, public_key

log = logging.getLogger("kipukas-hub")
MAX_ROWS_PER_PUSH = 500
PUBLIC_BODY = {"action": ("text", "accepted", "rule"), "board": ("observed",), "start": ("players", "map"),
               "undo": ("reason",), "correct": ("target", "text")}  # `shown`/`question` stay private
STATUS_KEYS = ("players", "phase", "turn", "active", "result", "in_sync", "warnings", "seq", "cameras", "game")


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
        room = json.dumps(f"watch:{table}")
        return Announce(self.socketio.server.manager.channel, '{"method":"emit","event":"rows","data":[[',
                        f']],"binary":false,"namespace":"/watch","room":{room},"skip_sid":null,"callback":null,'
                        '"host_id":"hub-store"}', [json.dumps(r, separators=(",", ":")) for r in public])

    def send(self, table: str, event: str, payload: Any) -> None:
        delay = self.cfg.spectator_delay_min * 60.0
        if delay <= 0:
            self.socketio.emit(event, payload, to=f"watch:{table}", namespace="/watch")
        else:
            self.store.delay(time.time() + delay, {"table": table, "event": event, "payload": payload})

    def run(self, stop: threading.Event, tick_s: float = 1.0) -> None:
        """Each hub process takes the due broadcasts (each exactly once) and sends them to every process,
        once a tick and one message per table: behind a delay of minutes, a second more costs nothing and
        sending a table's rows together divides the spectators' messages by the table's update rate."""
        while not stop.wait(tick_s):
            try:
                for table, event, payload in coalesce(self.store.due(time.time())):
                    self.socketio.emit(event, payload, to=f"watch:{table}", namespace="/watch")
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


class SeqGate:
    """Holds a table's push until the rows before it are stored, so pipelined pushes are stored in seq
    order whatever order their tasks run in (python-socketio gives each event its own task, and under load
    they were seen to reach Redis out of order: refused as gaps and sent again). A push whose rows do not
    come within `ORDER_WAIT_S` goes ahead anyway (its gap is refused, as before)."""

    def __init__(self) -> None:
        self._cv = threading.Condition(threading.Lock())
        self.top: int | None = None  # the highest contiguous seq stored, as this process last saw it

    def wait_for(self, first: int, timeout: float) -> None:
        """Wait until row `first - 1` is stored (or the top is unknown, or `timeout` passed)."""
        end = time.monotonic() + timeout
        with self._cv:
            while self.top is not None and first > self.top + 1:
                left = end - time.monotonic()
                if left <= 0:
                    return
                self._cv.wait(left)

    def stored(self, top: int) -> None:
        with self._cv:
            self.top = top
            self._cv.notify_all()


ORDER_WAIT_S = 2.0  # how long a push waits for the pushes before it (they are on the same connection)


class PushNamespace(Namespace):  # type: ignore[misc]
    """Tables push rows here, store-and-forward: each answer is the highest contiguous seq the hub holds."""

    def __init__(self, cfg: HubConfig, store: HubStore, broadcaster: Broadcaster,
                 timing: StageTimes | None = None) -> None:
        super().__init__("/push")
        self.cfg, self.store, self.broadcaster = cfg, store, broadcaster
        self.timing = timing or StageTimes()
        self.tables: dict[str, str] = {}
        self.buckets: dict[str, Bucket] = {}
        self.pinned: dict[str, str] = {}
        self.gates: dict[tuple[str, str], SeqGate] = {}  # (table, game): pushes stored in seq order

    def on_connect(self, auth: Any = None) -> None:
        token = auth.get("token") if isinstance(auth, dict) else None
        table = self.cfg.table_of(token) if isinstance(token, str) else None
        if table is None:
            raise ConnectionRefusedError("unknown table token")
        self.tables[_sid()] = table
        self.buckets[_sid()] = Bucket(rate=50.0, burst=200.0, tokens=200.0)

    def on_disconnect(self, *_: Any) -> None:
        table = self.tables.pop(_sid(), None)
        self.buckets.pop(_sid(), None)
        if table is not None and table not in self.tables.values():
            try:
                self.store.touch(table, online=False)
            except Exception:  # Redis away too: the status catches up at the next push
                log.warning("table %s went away while Redis was unavailable", table)

    def _table(self) -> str:
        table = self.tables.get(_sid())
        if table is None:
            raise ConnectionRefusedError("not authenticated")
        if not self.buckets[_sid()].take():
            raise RowError("too many messages: slow down")
        return table

    def on_hello(self, data: Any) -> dict[str, Any]:
        """A table names the game it pushes and its public key; the first key a table shows is pinned."""
        try:
            table = self._table()
            game, key_hex = _game(data), str(data.get("public_key", ""))
            public_key(key_hex)
            pinned = self.store.pin_key(table, key_hex)
            self.pinned[table] = pinned
            if not hmac.compare_digest(pinned, key_hex):
                self.store.touch(table, alarm="a different table key was shown: refused")
                return {"error": "this table's key is pinned to another key at the hub"}
            self.store.touch(table, game=game, online=True)
            top = self.store.top(table, game)
            self._gate(table, game).stored(top)
            return {"table": table, "acked": top}
        except redis.RedisError as exc:
            return {"retry": f"the hub's store is unavailable ({type(exc).__name__}): try again"}
        except (RowError, ValueError, AttributeError) as exc:
            return {"error": str(exc)}

    def on_rows(self, data: Any) -> dict[str, Any]:
        """Verify the rows, then append them, note the activity and witness the head in one round trip to
        Redis (`HubStore.append`), which also publishes the rows it added to the spectators on the message
        queue; every process delivers its share from its own broadcast task, never from this request.
        A table pipelines its pushes (`tracker.record.hub_push`) and each event has its own task here, so
        a push waits for the rows before it (`SeqGate`) instead of being refused as a gap and sent again."""
        try:
            table = self._table()
            game = _game(data)
            raw = data.get("rows", [])
            if not isinstance(raw, list) or len(raw) > MAX_ROWS_PER_PUSH:
                raise RowError(f"rows: expected a list of at most {MAX_ROWS_PER_PUSH} rows")
            self.timing.note("arrived", raw)
            rows = [check_row(r) for r in raw]
            gate = self._gate(table, game)
            if rows:
                gate.wait_for(rows[0].seq, ORDER_WAIT_S)
            head, bad_head = self._signed_head(table, game, data.get("head"))
            public = [public_row(table, game, r.data) for r in rows]
            announce = self.broadcaster.announce(table, public)
            result = self.store.append(table, game, rows, head, announce) if rows or head else None
            top = result.top if result else self.store.top(table, game)
            gate.stored(top)
            if result is not None and result.added:
                self.timing.note("stored", [p for p in public if top - result.added < p["seq"] <= top])
            answer: dict[str, Any] = {"acked": top, "duplicates": result.duplicates if result else 0}
            if result is not None and result.outcome != "ok":
                answer["error"] = (f"row {top + 1} is missing" if result.outcome == "gap"
                                   else f"row {top + 1} does not chain to row {top}")
            if result is not None and result.witnessed == 1:
                answer["witnessed"] = True
            elif bad_head is not None or (result is not None and result.witnessed == -1):
                seq = bad_head if bad_head is not None else head.seq if head else 0
                self.store.touch(table, alarm=f"game {game}: the signed head at row {seq} does not verify")
                answer["error"] = f"head at row {seq} does not verify against the pinned key and the rows held"
            if result is not None and result.added and announce is None:
                fresh = [r.data for r in rows if top - result.added < r.seq <= top]
                self.broadcaster.send(table, "rows", [public_row(table, game, r) for r in fresh])
            return answer
        except redis.RedisError as exc:
            return {"retry": f"the hub's store is unavailable ({type(exc).__name__}): try again"}
        except (RowError, ValueError, AttributeError) as exc:
            return {"error": str(exc)}

    def _gate(self, table: str, game: str) -> SeqGate:
        gate = self.gates.get((table, game))
        if gate is None:
            gate = self.gates[(table, game)] = SeqGate()
        return gate

    def _signed_head(self, table: str, game: str, head: Any) -> tuple[Head | None, int | None]:
        """The head sent with a push if its signature verifies against the table's pinned key (the hash it
        signs is compared with the rows held in the append script); else the seq it claimed."""
        if not isinstance(head, dict):
            return None, None
        seq, digest, sig = head.get("seq"), head.get("hash"), head.get("signature")
        if not (isinstance(seq, int) and isinstance(digest, str) and isinstance(sig, str)):
            return None, seq if isinstance(seq, int) else 0
        key = self._pinned(table)
        if not key or seq < 1 or not head_valid(key, seq, digest, sig):
            return None, seq
        return Head(seq, digest, sig), None

    def _pinned(self, table: str) -> str | None:
        """The table's pinned key, remembered by this process once read (a pinned key never changes)."""
        key = self.pinned.get(table)
        if key is None:
            key = self.store.pinned_key(table)
            if key:
                self.pinned[table] = key
        return key

    def on_status(self, data: Any) -> None:
        table = self._table()
        if isinstance(data, dict):
            status = {k: data[k] for k in STATUS_KEYS if k in data}
            self.store.touch(table, **status, online=True)
            self.broadcaster.send(table, "status", {"table": table} | {
                k: status[k] for k in ("players", "phase", "turn", "active", "result") if k in status})

    def on_call_judge(self, *_: Any) -> None:
        table = self._table()
        self.store.call_judge(table)
        self.socketio.emit("judge_call", {"table": table, "at": time.time()}, to="organisers",
                           namespace="/organiser")


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
        if games:
            self.emit("rows", [public_row(table, games[-1], r) for r in rows], room=_sid())


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


def _game(data: Any) -> str:
    game = data.get("game") if isinstance(data, dict) else None
    if not isinstance(game, str) or not 1 <= len(game) <= 80 or not all(c.isalnum() or c in "-_." for c in game):
        raise RowError("game: expected the record's name (letters, digits, - _ .)")
    return game
