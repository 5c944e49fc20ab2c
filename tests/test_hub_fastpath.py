"""The hub's fast path for spectators (issue 20): each process writes a room's ready frame straight to
every websocket (`broadcast.wire`), and a crowd of spectators arriving at once all connect and stay.

Through nginx and two hub processes on a real Redis: every spectator, on a websocket (the fast path) or
long-polling (engine.io's queue), gets exactly the public rows the hub stored, once, in order, none
before the tournament's delay and never a card shown to the front camera; the hub processes say that
their websocket deliveries went the fast way. A wire keeps a socket's bytes in order when the kernel
takes only part of them, and cuts off a reader that falls too far behind.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import resource
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import socketio

from bench.hub_spectators import run_spectators
from broadcast.wire import MAX_PENDING, Wire
from hub.app import LISTEN_BACKLOG, open_files_limit
from hub.namespaces import public_row
from hub.streams import HubStore
from tests.hub_servers import Hub, Redis, running_hub
from tests.hub_tables import SimTable
from tests.waiting import wait_until
from tracker.record.hub_push import HubPusher

pytestmark = pytest.mark.slow
DELAY_MIN = 0.02  # 1.2 s standing in for the tournament's 15 minutes


def deliveries(hub: Hub) -> dict[str, int]:
    total = {"direct": 0, "queued": 0}
    for w in hub.workers:
        with urllib.request.urlopen(f"http://127.0.0.1:{w.port}/healthz", timeout=10) as resp:
            for k, v in json.loads(resp.read())["deliveries"].items():
                total[k] += int(v)
    return total


def watch(url: str, table: str, transport: str) -> tuple[socketio.Client, list[tuple[float, dict[str, Any]]]]:
    got: list[tuple[float, dict[str, Any]]] = []
    client = socketio.Client(reconnection=False)
    client.on("rows", lambda rows: got.extend((time.time(), r) for r in rows), namespace="/watch")
    client.connect(url, auth={"table": table}, namespaces=["/watch"], transports=[transport], wait_timeout=30)
    return client, got


def test_the_fast_path_gives_each_spectator_exactly_its_delayed_public_rows(tmp_path: Path) -> None:
    with running_hub(tmp_path, tables=2, delay_min=DELAY_MIN) as hub:
        watchers = [("1", "websocket"), ("1", "websocket"), ("1", "polling"), ("2", "websocket")]
        spectators = [(t, transport, *watch(hub.nginx.url, t, transport)) for t, transport in watchers]
        tables = {t: SimTable(tmp_path / f"table-{t}", seed=300 + int(t)) for t in ("1", "2")}
        stop = threading.Event()
        pushers = {t: HubPusher(hub.nginx.url, hub.token(t), tables[t].records) for t in tables}
        before = deliveries(hub)
        try:
            for t, pusher in pushers.items():
                tables[t].on_row.append(pusher.nudge)
                pusher.start(stop)
            for _ in range(8):
                for table in tables.values():
                    table.write(4)
                time.sleep(0.1)
            # Each wait has its own deadline: one shared by both let a slow push leave the spectators a
            # second for rows the hub holds back 1.2 s (waits poll, so a quiet machine does not wait it out).
            wait_until(lambda: all(pushers[t].stats.acked.get("game-001") == tables[t].last()["game-001"]
                                   for t in tables),
                       lambda: f"rows acknowledged {[(p.stats.acked, tables[t].last()) for t, p in pushers.items()]}")
            store = HubStore(hub.redis.url)
            expected = {t: [public_row(t, "game-001", {k: v for k, v in r.items() if k != "at"})
                            for r in store.rows(t, "game-001")] for t in tables}
            assert {t: len(rows) for t, rows in expected.items()} == {"1": 33, "2": 33}  # the start row, 32 written
            wait_until(lambda: all(len(got) >= len(expected[t]) for t, _, _, got in spectators),
                       lambda: f"rows seen {[(t, transport, len(got)) for t, transport, _, got in spectators]} of 33")
            time.sleep(0.5)  # anything sent twice would have arrived by now
            for t, transport, _, got in spectators:
                assert [row for _, row in got] == expected[t], f"table {t} over {transport}"
                early = [(row["seq"], at - row["ts"]) for at, row in got if at - row["ts"] < DELAY_MIN * 60]
                assert not early, f"rows seen before the tournament's delay: {early}"
            shown = [r for _, _, _, got in spectators for _, r in got if r["kind"] == "shown"]
            assert shown and all(r["body"] == {} for r in shown)
            sent = {k: v - before[k] for k, v in deliveries(hub).items()}
            # 3 websocket spectators: each delayed message to them went straight to the socket
            assert sent["direct"] >= 3, sent
        finally:
            stop.set()
            for _, _, client, _ in spectators:
                client.disconnect()
            for table in tables.values():
                table.close()


def listen_backlog(port: int) -> int:
    """The accept queue a listening socket was given (`ss` shows it as Send-Q)."""
    ss = shutil.which("ss")
    assert ss, "ss is not installed: apt-get install iproute2"
    out = subprocess.run([ss, "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return int(out.split()[2])


def test_a_crowd_of_spectators_connects_at_once_and_stays_connected(tmp_path: Path) -> None:
    somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:  # a shell's usual limit is raised for the process (two descriptors per websocket)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))
        assert open_files_limit() == (65536 if hard == resource.RLIM_INFINITY else min(65536, hard))
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    count, tables = 300, 4
    with running_hub(tmp_path, tables=tables, delay_min=0.0) as hub:
        for w in hub.workers:  # gevent's default of 128 overflowed under a crowd: resets, SYN retries
            assert listen_backlog(w.port) == min(LISTEN_BACKLOG, somaxconn)
        ctx = mp.get_context("spawn")
        commands: Any = ctx.Queue()
        results: Any = ctx.Queue()
        crowd = ctx.Process(target=run_spectators, args=(hub.nginx.port, count, tables, commands, results))
        crowd.start()
        try:
            # Polled, so the deadline is for a loaded machine: the crowd's process imports socketio and
            # opens 300 sockets through nginx before it answers, each step several times slower there.
            end = time.monotonic() + 120
            state: dict[str, Any] = {"connected": 0, "refused": 0}
            while time.monotonic() < end and state["connected"] + state["refused"] < count:
                time.sleep(0.5)
                commands.put("count")
                state = results.get(timeout=90)
            assert state == {"connected": count, "refused": 0}
            time.sleep(2.0)
            commands.put("stop")
            final = results.get(timeout=90)
            assert (final["connected"], final["refused"], final["dropped"]) == (count, 0, 0)
        finally:
            crowd.join(20)
            if crowd.is_alive():
                crowd.kill()


def test_more_callers_than_redis_connections_wait_their_turn_instead_of_failing(tmp_path: Path) -> None:
    """redis-py's default pool refused a call past 100 connections (MaxConnectionsError): a crowd of
    spectators joining at once got no answer to their connect and hung (the bench's missing sockets)."""
    server = Redis(tmp_path)
    server.start()
    try:
        store = HubStore(server.url, connections=8)
        pool = store.r.connection_pool
        held = [pool.get_connection() for _ in range(8)]  # every connection busy
        got: list[Any] = []
        caller = threading.Thread(target=lambda: got.append(store.games("1")))
        caller.start()
        time.sleep(0.3)
        assert caller.is_alive() and not got  # waiting for a connection, not failed
        pool.release(held.pop())
        caller.join(10)
        assert got == [[]]
        for conn in held:
            pool.release(conn)
    finally:
        server.stop()


def test_a_wire_keeps_order_through_a_full_socket_and_cuts_off_a_reader_that_stops() -> None:
    writer, reader = socket.socketpair()
    writer.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    blocking = writer.dup()  # the same socket: the flushing task waits on it, the wire never does
    blocking.settimeout(10)

    class Sock:
        _sock = writer

        def sendall(self, data: bytes) -> None:
            blocking.sendall(data)

    writer.setblocking(False)
    tasks: list[threading.Thread] = []

    def start(target: Any) -> threading.Thread:
        task = threading.Thread(target=target, daemon=True)
        tasks.append(task)
        task.start()
        return task

    wire = Wire(Sock(), start)
    frames = [bytes([n % 251]) * 3000 for n in range(60)]
    for frame in frames:
        assert wire.write(frame)  # never waits, even when the kernel takes nothing
    assert wire.deferred > 0 and tasks  # what the kernel did not take waits, in order
    got = bytearray()
    reader.settimeout(10)
    while len(got) < sum(map(len, frames)):
        got += reader.recv(65536)
    assert bytes(got) == b"".join(frames)
    for task in tasks:
        task.join(10)
    assert not wire.busy and not wire.closed

    stalled = Wire(Sock(), start)
    chunk = b"x" * 65536
    accepted = 0
    while stalled.write(chunk):
        accepted += 1
        assert accepted * len(chunk) <= 2 * MAX_PENDING + (1 << 20), "a reader that stops must be cut off"
    assert stalled.closed and not stalled.write(b"more")
    for s in (writer, reader, blocking):
        s.close()
