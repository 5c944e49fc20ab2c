"""Where tables push their records to the hub (`/push`): store-and-forward, one answer per push.

A table is who its token says (never what it claims); each push is verified (every row's hash and chain,
the signed head against the table's pinned key) and stored in one round trip to Redis that also announces
the rows to the spectators. A table may pipeline its pushes (`tracker.record.hub_push`, off by default);
they are stored in seq order whatever order their tasks run in (`SeqGate`).
"""

from __future__ import annotations

import hmac
import logging
import threading
import time
from typing import Any

import redis
import socketio
from socketio.exceptions import ConnectionRefusedError

from broadcast.timing import StageTimes
from hub.namespaces import STATUS_KEYS, Broadcaster, Bucket, game_name, public_row
from hub.settings import HubConfig
from hub.streams import Head, HubStore
from hub.verify import RowError, check_row, head_valid, public_key

log = logging.getLogger("kipukas-hub")
MAX_ROWS_PER_PUSH = 500


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


# How long a push waits for the pushes before it (same connection): half the pusher's answer timeout, so
# a starved hub orders pushes rather than refusing them as gaps.
ORDER_WAIT_S = 5.0


class PushNamespace(socketio.Namespace):  # type: ignore[misc]
    """Tables push rows here, store-and-forward: each answer is the highest contiguous seq the hub holds.

    A python-socketio namespace registered on Flask-SocketIO's own server, not a Flask-SocketIO one: a
    table's event needs no Flask request context (no session, no `request`), and building one per push
    was a measurable part of the hub's ingest (issue 20, item 2). Handlers get the connection's `sid`."""

    def __init__(self, cfg: HubConfig, store: HubStore, broadcaster: Broadcaster, organisers: Any,
                 timing: StageTimes | None = None) -> None:
        """`organisers`: what tells the organisers' pages of a judge call (Flask-SocketIO's `SocketIO`)."""
        super().__init__("/push")
        self.cfg, self.store, self.broadcaster, self.organisers = cfg, store, broadcaster, organisers
        self.timing = timing or StageTimes()
        self.tables: dict[str, str] = {}
        self.buckets: dict[str, Bucket] = {}
        self.pinned: dict[str, str] = {}
        self.gates: dict[tuple[str, str], SeqGate] = {}  # (table, game): pushes stored in seq order

    def on_connect(self, sid: str, environ: dict[str, Any], auth: Any = None) -> None:
        token = auth.get("token") if isinstance(auth, dict) else None
        table = self.cfg.table_of(token) if isinstance(token, str) else None
        if table is None:
            raise ConnectionRefusedError("unknown table token")
        self.tables[sid] = table
        self.buckets[sid] = Bucket(rate=50.0, burst=200.0, tokens=200.0)

    def on_disconnect(self, sid: str, *_: Any) -> None:
        table = self.tables.pop(sid, None)
        self.buckets.pop(sid, None)
        if table is not None and table not in self.tables.values():
            try:
                self.store.touch(table, online=False)
            except Exception:  # Redis away too: the status catches up at the next push
                log.warning("table %s went away while Redis was unavailable", table)

    def _table(self, sid: str) -> str:
        table = self.tables.get(sid)
        if table is None:
            raise RowError("not authenticated")
        if not self.buckets[sid].take():
            raise RowError("too many messages: slow down")
        return table

    def on_hello(self, sid: str, data: Any) -> dict[str, Any]:
        """A table names the game it pushes and its public key; the first key a table shows is pinned."""
        try:
            table = self._table(sid)
            game, key_hex = game_name(data), str(data.get("public_key", ""))
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

    def on_rows(self, sid: str, data: Any) -> dict[str, Any]:
        """Verify the rows, then append them, note the activity and witness the head in one round trip to
        Redis (`HubStore.append`), which also publishes the rows it added to the spectators on the message
        queue; every process delivers its share from its own broadcast task, never from this request.
        A table pipelines its pushes (`tracker.record.hub_push`) and each event has its own task here, so
        a push waits for the rows before it (`SeqGate`) instead of being refused as a gap and sent again."""
        try:
            table = self._table(sid)
            game = game_name(data)
            raw = data.get("rows", [])
            if not isinstance(raw, list) or len(raw) > MAX_ROWS_PER_PUSH:
                raise RowError(f"rows: expected a list of at most {MAX_ROWS_PER_PUSH} rows")
            self.timing.note("arrived", raw)
            rows = [check_row(r) for r in raw]
            gate = self._gate(table, game)
            if rows:
                gate.wait_for(rows[0].seq, ORDER_WAIT_S)
            head, bad_head = self._signed_head(table, game, data.get("head"))
            public = [public_row(table, game, r) for r in raw]  # the rows as pushed: their hashes just checked
            announce = self.broadcaster.announce(table, public)
            self.timing.note("checked", raw)
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

    def on_status(self, sid: str, data: Any) -> None:
        table = self._table(sid)
        if isinstance(data, dict):
            status = {k: data[k] for k in STATUS_KEYS if k in data}
            self.store.touch(table, **status, online=True)
            self.broadcaster.send(table, "status", {"table": table} | {
                k: status[k] for k in ("players", "phase", "turn", "active", "result") if k in status})

    def on_call_judge(self, sid: str, *_: Any) -> None:
        table = self._table(sid)
        self.store.call_judge(table)
        self.organisers.emit("judge_call", {"table": table, "at": time.time()}, to="organisers",
                           namespace="/organiser")
