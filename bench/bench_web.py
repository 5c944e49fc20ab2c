"""Broadcast latency of the web service: N connected phones while the table changes R times a second.

The server (a real table, its record on disk, the Flask-SocketIO app on the threaded WSGI server) runs
in this process; the clients (python-socketio over websockets: players of both seats, a judge and
spectators) run in worker processes. A driver thread records a rejected phone action R times a
second (each one a new record row and a new state for every room) and notes when each version was
made; clients note when they receive it (`time.monotonic` is one clock for all processes on Linux).
Reported: broadcast latency median and p99, messages lost, the server's memory before and after, and
the ratio of the median to an in-process baseline: JSON-encoding one state snapshot.

    python bench/bench_web.py [--minutes 10] [--clients 100] [--rate 10] [--workers 4] [--no-before]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def client_worker(url: str, auths: list[dict[str, Any] | None], ready: Any, stop: Any, out: Any) -> None:
    """Connect the given clients, then record (version, receipt time) of every state until told to stop
    (a client that asked for deltas applies each to its last state, as the pages do)."""
    import socketio

    from broadcast.deltas import apply

    received: list[list[tuple[int, float]]] = [[] for _ in auths]
    last: list[dict[str, Any] | None] = [None for _ in auths]
    clients = []
    for i, auth in enumerate(auths):
        # Phones are browsers; this client's pure-Python UTF-8 check of every frame would be the bottleneck.
        c = socketio.Client(reconnection=False, websocket_extra_options={"skip_utf8_validation": True})

        def on_state(state: dict[str, Any], i: int = i) -> None:
            last[i] = state
            received[i].append((int(state["version"]), time.monotonic()))

        def on_delta(delta: dict[str, Any], i: int = i) -> None:
            before = last[i]
            if before is None or [before.get("version"), before.get("seq")] != delta["base"]:
                return  # not its base: a page would ask for the whole state again; counted as not received
            state = apply(before, delta)
            last[i] = state
            received[i].append((int(state["version"]), time.monotonic()))

        c.on("state", on_state, namespace="/table")
        c.on("delta", on_delta, namespace="/table")
        c.connect(url, namespaces=["/table"], transports=["websocket"], auth=auth, wait_timeout=30)
        clients.append(c)
    ready.put(len(clients))
    stop.wait()
    time.sleep(1.0)  # let the last broadcasts arrive
    out.put(received)
    closing = [threading.Thread(target=c.disconnect) for c in clients]  # each waits for the server's goodbye
    for t in closing:
        t.start()
    for t in closing:
        t.join(10)


def phase(args: argparse.Namespace, table: Any, service: Any, framed: bool, deltas: bool) -> dict[str, Any]:
    """One measurement: a web server (framed or the library's own framing), the clients (taking deltas or
    whole states) in worker processes, the table changing `rate` times a second for `minutes`."""
    from tests.test_web_support import PIN
    from tracker.runtime.server import WebServer

    server = WebServer(service, "127.0.0.1", 0, framed=framed)
    server.start()
    url = f"http://127.0.0.1:{server.port}"
    tokens = service.join_tokens()
    auths: list[dict[str, Any] | None] = []
    for i in range(args.clients):
        kind = i % 10
        auth = ({"pin": PIN} if kind == 0 else {} if kind == 1 else
                {"token": tokens["red" if kind % 2 else "blue"]})
        auths.append(auth | {"deltas": True} if deltas else auth or None)
    ctx = mp.get_context("spawn")
    ready, out, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
    workers = [ctx.Process(target=client_worker, args=(url, auths[w::args.workers], ready, stop, out))
               for w in range(args.workers)]
    rss_before = rss_mb()
    for w in workers:
        w.start()
    connected = sum(ready.get(timeout=120) for _ in workers)

    made: dict[int, float] = {}
    period = 1.0 / args.rate
    end = time.monotonic() + args.minutes * 60
    next_at = time.monotonic()

    def drive() -> None:
        nonlocal next_at
        n = 0
        while time.monotonic() < end:
            next_at += period
            table.act("phone:red", f"red capital {90 + n % 9}")  # rejected: a new row, the game unchanged
            made[service.version()] = time.monotonic()
            n += 1
            time.sleep(max(0.0, next_at - time.monotonic()))

    samples: list[tuple[float, float]] = []

    def sample() -> None:
        while time.monotonic() < end:
            samples.append(((time.monotonic() - started) / 60, rss_mb()))
            time.sleep(min(30.0, args.minutes * 6))

    driver = threading.Thread(target=drive)
    sampler = threading.Thread(target=sample, daemon=True)
    cpu0 = time.process_time()
    started = time.monotonic()
    driver.start()
    sampler.start()
    driver.join()
    elapsed = time.monotonic() - started
    cpu = time.process_time() - cpu0
    stop.set()
    results = [out.get(timeout=120) for _ in workers]
    for w in workers:
        w.join(30)
    rss_after = rss_mb()
    server.shutdown()

    latencies, lost = [], 0
    for per_worker in results:
        for got in per_worker:
            seen = {v: t for v, t in got}
            for version, at in made.items():
                if version in seen:
                    latencies.append((seen[version] - at) * 1000)
                else:
                    lost += 1
    latencies.sort()
    return {"connected": connected, "made": len(made), "elapsed": elapsed, "latencies": latencies, "lost": lost,
            "rss_before": rss_before, "rss_after": rss_after, "samples": samples, "cpu": cpu}


def report(title: str, r: dict[str, Any], baseline_ms: float) -> float:
    lat = r["latencies"]
    median = statistics.median(lat)
    p99 = lat[int(0.99 * (len(lat) - 1))]
    print(f"{title}:")
    print(f"  clients connected: {r['connected']} (judges, spectators, players of both seats); updates: {r['made']} "
          f"in {r['elapsed']:.0f} s ({r['made'] / r['elapsed']:.1f}/s); deliveries measured {len(lat)}")
    print(f"  broadcast latency: median {median:.1f} ms, p99 {p99:.1f} ms, max {lat[-1]:.1f} ms "
          f"(target p99 < 100 ms: {'met' if p99 < 100 else 'NOT met'})")
    print(f"  updates not received (coalesced or lost): {r['lost']} of {r['made'] * r['connected']}")
    print(f"  server process CPU (table, service, web server): {r['cpu'] / r['elapsed']:.2f} cores")
    during = ", ".join(f"{mb:.0f} MiB at {m:.1f} min" for m, mb in r["samples"][:: max(1, len(r["samples"]) // 8)])
    print(f"  server memory: {r['rss_before']:.0f} MiB before the clients, {r['rss_after']:.0f} MiB after the run; "
          f"during it: {during}")
    print(f"  baseline: JSON-encoding one snapshot {baseline_ms:.3f} ms; median latency = "
          f"{median / baseline_ms:.0f}x baseline, p99 = {p99 / baseline_ms:.0f}x", flush=True)
    return p99


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0, help="how long the table keeps changing (default 10)")
    ap.add_argument("--clients", type=int, default=100, help="connected clients (default 100)")
    ap.add_argument("--rate", type=float, default=10.0, help="table updates per second (default 10)")
    ap.add_argument("--workers", type=int, default=4, help="client processes (default 4)")
    ap.add_argument("--no-before", action="store_true",
                    help="skip the run with whole states framed per socket by the library (what was before)")
    args = ap.parse_args(argv)

    from rules.kipukas.board_map import BoardMap
    from tests.table_helpers import KEY
    from tests.test_web_support import PIN, golden_script
    from tracker.record.store import GameRecord
    from tracker.service.seats import SPECTATOR, Seats
    from tracker.service.service import TableService
    from tracker.table.table import Table

    decks, lines = golden_script()
    folder = Path(tempfile.mkdtemp(prefix="bench-web-"))
    table = Table(BoardMap.packaged(), GameRecord(str(folder / "bench.sqlite"), KEY), decks)
    for line in lines[:40]:  # a game under way: cards in hands and in play, a bout, a long record
        table.act(f"phone:{line.split()[0]}", line)
    service = TableService(table, Seats(("red", "blue"), judge_pin=PIN))

    snapshot = service.snapshot(SPECTATOR)
    t0 = time.perf_counter()
    for _ in range(200):
        json.dumps(snapshot)
    baseline_ms = (time.perf_counter() - t0) / 200 * 1000
    print(f"state size {len(json.dumps(snapshot)) / 1024:.1f} KiB (spectator)", flush=True)

    before = None
    if not args.no_before:
        before = phase(args, table, service, framed=False, deltas=False)
        report("before (whole states, framed per socket by the websocket library)", before, baseline_ms)
    after = phase(args, table, service, framed=True, deltas=True)
    p99 = report("after (deltas from each room's previous state, encoded and framed once per room)", after,
                 baseline_ms)
    if before is not None:
        b = before["latencies"]
        print(f"after / before: median {statistics.median(after['latencies']) / statistics.median(b):.3f}, "
              f"p99 {p99 / b[int(0.99 * (len(b) - 1))]:.3f}, server CPU {after['cpu'] / before['cpu']:.3f}")
    final_size = len(json.dumps(service.snapshot(SPECTATOR))) / 1024
    print(f"state size at the end {final_size:.1f} KiB (spectator)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
