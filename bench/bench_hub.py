"""Load bench of the tournament hub, on loopback, with real redis-server and nginx and two hub processes.

Simulated tables (a real signed SQLite record written at RATE rows a second, pushed by the real pusher)
send through nginx; spectator sockets (bench/hub_spectators.py, in a second process) watch them through
nginx. Reported: broadcast latency p50/p99 (from the moment a table records a row to the moment a
spectator has it), rows/s ingested, the hub's memory per spectator socket; then the faults: a hub process
killed, Redis killed and restarted, one table cut off; after which 0 rows lost, 0 duplicated, and every
record on the hub verifies. The ratio is against a baseline run in this process: the same latency with
one table and one spectator.

    python bench/bench_hub.py            # 32 tables at 10/s, 2,000 spectators, a 5-minute cut-off
    python bench/bench_hub.py --short    # 8 tables, 200 spectators, a 5-second cut-off (about a minute)
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import socketio

from bench.hub_report import pct, per_row, print_profile, print_stalls, report
from bench.hub_spectators import WITNESSES, run_spectators, same_content
from bench.hub_table_groups import TimedPusher, run_group
from hub.collector import ENV as GC_ENV
from hub.namespaces import page_key
from hub.profiling import ENV as PROFILE_ENV
from hub.settings import load_hub_config
from hub.stalls import ENV as STALLS_ENV
from hub.stalls import install_stalls
from hub.streams import HubStore
from hub.verify import check_row, head_valid
from tests.hub_servers import CutProxy, Hub, running_hub
from tests.hub_tables import SimTable
from tracker.record.hub_push import PUSH_WINDOW


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sys_s(pid: int) -> float:
    """System (kernel) CPU seconds of a process so far: for the hub, mostly sending on its sockets."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[12]) / os.sysconf("SC_CLK_TCK")


class Load:
    """Tables pushing through their own cuttable links, and the spectator process."""

    def __init__(self, hub: Hub, folder: Path, tables: int, spectators: int, window: int = 1,
                 groups: int = 0) -> None:
        """`groups` > 0: the tables, their links and pushers run in that many processes of their own
        (`bench.hub_table_groups`) instead of in this one, behind its one GIL."""
        self.hub, self.stop = hub, threading.Event()
        ctx = mp.get_context("spawn")
        self.groups = []
        for g in range(groups):
            mine = [str(n) for n in range(1, tables + 1) if (n - 1) % groups == g]
            commands, results = ctx.Queue(), ctx.Queue()
            proc = ctx.Process(target=run_group, args=(hub.nginx.port, {t: hub.token(t) for t in mine},
                                                        str(folder / f"group-{g}"), window, commands, results))
            self.groups.append((proc, commands, results))
        self.group_figures: list[dict[str, Any]] = []
        tables_here = 0 if groups else tables
        self.tables = {str(n): SimTable(folder / f"table-{n}", seed=7000 + n) for n in range(1, tables_here + 1)}
        self.links = {t: CutProxy(hub.nginx.port, f"127.0.{n % 250 + 1}.1") for n, t in enumerate(self.tables)}
        self.pushers = {t: TimedPusher(self.links[t].url, hub.token(t), self.tables[t].records, window=window)
                        for t in self.tables}
        for t, table in self.tables.items():
            table.on_row.append(self.pushers[t].nudge)
        self.commands: Any = ctx.Queue()
        self.results: Any = ctx.Queue()
        self.spectators = ctx.Process(target=run_spectators,
                                      args=(hub.nginx.port, spectators, tables, self.commands, self.results))
        self.wanted = spectators
        # a handful of real python-socketio clients beside the lean ones, to check they get the same rows
        self.real: dict[str, socketio.Client] = {}
        self.real_rows: dict[str, list[dict[str, Any]]] = {}
        self.real_recording = False
        self.real_tables = [str(t) for t in range(1, min(WITNESSES, tables) + 1)] if spectators >= 400 else []
        self.started = 0.0  # when the recorded play began (epoch seconds)

    def _connect_real(self) -> None:
        for t in self.real_tables:
            client = socketio.Client(reconnection=False)
            self.real_rows[t] = []

            def got(rows: list[dict[str, Any]], t: str = t) -> None:
                if self.real_recording:
                    self.real_rows[t] += rows

            client.on("rows", got, namespace="/watch")
            client.connect(f"http://127.0.0.1:{self.hub.nginx.port}", auth={"table": t}, namespaces=["/watch"],
                           transports=["websocket"], wait_timeout=30)
            self.real[t] = client

    def connect(self, timeout: float) -> dict[str, Any]:
        self._connect_real()
        self.spectators.start()
        for pusher in self.pushers.values():
            pusher.start(self.stop)
        for proc, _, _ in self.groups:
            proc.start()
        end = time.monotonic() + timeout
        while True:
            time.sleep(1.0)
            self.commands.put("count")
            state: dict[str, Any] = self.results.get(timeout=30)
            if state["connected"] + state["refused"] >= self.wanted or time.monotonic() > end:
                return state

    def play(self, rate: float, seconds: float) -> dict[str, Any]:
        # the bench's 32 tables share one heap (a real table is a Pi of its own): a full collection here
        # held every table's push at once (100-200 ms, hub.stalls); set-up's objects are frozen instead
        gc.collect()
        gc.freeze()
        self.commands.put("record")
        self.real_recording = True
        time.sleep(0.5)
        for pusher in self.pushers.values():
            pusher.recording, pusher.connects0 = True, pusher.stats.connects
        self.started = time.time()
        for _, commands, _ in self.groups:
            commands.put(("play", rate, seconds))
        threads = [t.run(rate) for t in self.tables.values()]
        start = time.monotonic()
        time.sleep(seconds)
        for t in self.tables.values():
            t.stop.set()
        for th in threads:
            th.join()
        elapsed = time.monotonic() - start
        self.group_figures = [results.get(timeout=120) for _, _, results in self.groups]
        time.sleep(1.0)
        self.commands.put("stop")
        got: dict[str, Any] = self.results.get(timeout=60)
        self.real_recording = False
        got["elapsed"] = elapsed
        got["same"] = same_content(got.get("seen", {}), self.real_rows)
        return got

    def figures(self) -> dict[str, Any]:
        """Rows acknowledged and written, the pushers' lateness samples and the tables' CPU seconds, from
        this process's tables or from the groups'."""
        late: dict[str, list[float]] = {"sent": [], "acked": []}
        for pusher in self.pushers.values():
            for k in late:
                late[k] += pusher.late[k]
        out = {"acked": sum(sum(p.stats.acked.values()) for p in self.pushers.values()),
               "written": sum(sum(t.last().values()) for t in self.tables.values()), "late": late, "cpu_s": 0.0,
               "reconnects": sum(p.stats.connects - p.connects0 for p in self.pushers.values()),
               "errors": sorted({p.stats.last_error for p in self.pushers.values() if p.stats.last_error})}
        for g in self.group_figures:
            out["reconnects"] += g.get("reconnects", 0)
            out["errors"] += g.get("errors", [])
            out["acked"] += g["acked"]
            out["written"] += g["written"]
            out["cpu_s"] += g["cpu_s"]
            for k in late:
                late[k] += g["late"][k]
        return out

    def close(self) -> None:
        self.stop.set()
        for proc, commands, _ in self.groups:
            commands.put(("stop",))
            proc.join(20)
            if proc.is_alive():
                proc.kill()
        for client in self.real.values():
            client.disconnect()
        if self.spectators.is_alive():
            self.commands.put("stop")
            self.spectators.join(20)
            if self.spectators.is_alive():
                self.spectators.kill()
        for link in self.links.values():
            link.close()
        for t in self.tables.values():
            t.close()


def stage_times(hub: Hub, since: float) -> dict[str, list[float]]:
    """Every hub process's lateness samples per stage (`broadcast.timing`) taken after `since`."""
    total: dict[str, list[float]] = {}
    key = page_key(load_hub_config(hub.config), "judge")
    for w in hub.workers:
        with urllib.request.urlopen(f"http://127.0.0.1:{w.port}/healthz?since={since}&k={key}", timeout=30) as resp:
            for k, v in json.loads(resp.read()).get("timing", {}).items():
                total.setdefault(k, []).extend(v)
    return total


def deliveries(hub: Hub) -> dict[str, int]:
    """How the hub processes sent spectators' messages so far: straight to a socket's wire, or queued."""
    total = {"direct": 0, "queued": 0}
    for w in hub.workers:
        with urllib.request.urlopen(f"http://127.0.0.1:{w.port}/healthz", timeout=10) as resp:
            for k, v in json.loads(resp.read()).get("deliveries", {}).items():
                total[k] = total.get(k, 0) + int(v)
    return total


def _children(pid: int) -> list[int]:
    """nginx's master and its worker."""
    out = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids = task / "children"
        if kids.exists():
            out += [int(k) for k in kids.read_text().split()]
    return out


def measure(folder: Path, tables: int, spectators: int, rate: float, seconds: float,
            delay_min: float = 0.0, broadcast: str = "framed", window: int = 1, groups: int = 0) -> dict[str, Any]:
    with running_hub(folder, tables, delay_min=delay_min, broadcast=broadcast) as hub:
        load = Load(hub, folder, tables, spectators, window, groups)
        try:
            idle = {w.port: rss_kb(w.proc.pid) for w in hub.workers if w.proc}
            nginx_idle = rss_kb(hub.nginx.proc.pid) if hub.nginx.proc else 0
            t0 = time.monotonic()
            state = load.connect(timeout=max(60.0, spectators / 20))
            connect_s = time.monotonic() - t0
            loaded = {w.port: rss_kb(w.proc.pid) for w in hub.workers if w.proc}
            pids = {"hub processes": [w.proc.pid for w in hub.workers if w.proc],
                    "nginx": [p for p in _children(hub.nginx.proc.pid)] if hub.nginx.proc else [],
                    "redis": [hub.redis.proc.pid] if hub.redis.proc else []}
            before = {k: sum(cpu_s(p) for p in v) for k, v in pids.items()}
            kernel0 = sum(sys_s(p) for p in pids["hub processes"])
            own = time.process_time()
            sent0 = deliveries(hub)
            profiling = bool(os.environ.get(PROFILE_ENV))
            if profiling:
                for w in hub.workers:
                    if w.proc:
                        w.proc.send_signal(signal.SIGUSR1)
            got = load.play(rate, seconds + delay_min * 60)
            if profiling:
                for w in hub.workers:
                    if w.proc:
                        w.proc.send_signal(signal.SIGUSR2)
                time.sleep(2.0)
            sent = {k: v - sent0.get(k, 0) for k, v in deliveries(hub).items()}
            tables_fig = load.figures()
            stages: dict[str, list[float]] = dict(tables_fig["late"])
            stages |= stage_times(hub, load.started)
            cpu = {k: sum(cpu_s(p) for p in v) - before[k] for k, v in pids.items()}
            kernel = sum(sys_s(p) for p in pids["hub processes"]) - kernel0
            cpu["tables and pushers (bench)"] = time.process_time() - own + tables_fig["cpu_s"]
            acked, written = int(tables_fig["acked"]), int(tables_fig["written"])
            got["reconnects"], got["errors"] = tables_fig["reconnects"], tables_fig["errors"]
            return {"spectators": state["connected"], "refused": state["refused"], "connect_s": connect_s,
                    "latencies": [x - delay_min * 60 for x in got["latencies"]], "rows_seen": got["rows"],
                    "dropped": got["dropped"],
                    "elapsed": got["elapsed"], "acked": acked, "written": written, "cpu": cpu,
                    "messages": got["messages"], "client_cpu_s": got["cpu_s"], "sent": sent,
                    "hub_kernel_s": kernel, "stages": stages, "same": got["same"],
                    "window": (load.started, load.started + got["elapsed"]),
                    "reconnects": got["reconnects"], "errors": got["errors"],
                    "rss_per_socket_kb": (sum(loaded.values()) - sum(idle.values())) / max(1, state["connected"]),
                    "nginx_kb": (rss_kb(hub.nginx.proc.pid) if hub.nginx.proc else 0) - nginx_idle}
        finally:
            load.close()


def store_capacity(folder: Path, rows: int = 2000, clients: int = 1) -> float:
    """Single-row appends a second into one Redis (the Lua check and AOF `appendfsync always`) from
    `clients` concurrent connections, each its own table (Redis fsyncs once per loop for all of them)."""
    from hub.verify import PushedRow
    from tests.hub_servers import Redis

    table = SimTable(folder / "table", seed=9)
    table.write(rows - 1)
    pushed = [check_row(r.to_json()) for r in table.rows("game-001")]
    table.close()
    server = Redis(folder / "redis")
    server.start()
    try:
        each = rows // clients

        def client(n: int) -> None:
            store = HubStore(server.url)
            for row in pushed[:each]:
                store.append(f"capacity-{n}", "game-001", [row])

        workers = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        start = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        elapsed = time.perf_counter() - start
        assert isinstance(pushed[0], PushedRow)
        assert all(HubStore(server.url).top(f"capacity-{n}", "game-001") == each for n in range(clients))
        return each * clients / elapsed
    finally:
        server.stop()


def faults(folder: Path, tables: int, rate: float, cut_s: float) -> dict[str, Any]:
    """Worker kill, Redis kill and restart, one table cut off for `cut_s`: then count lost/duplicated rows."""
    with running_hub(folder, tables) as hub:
        load = Load(hub, folder, tables, 0)
        try:
            for pusher in load.pushers.values():
                pusher.start(load.stop)
            for t in load.tables.values():
                t.run(rate)
            time.sleep(2.0)
            hub.workers[0].kill()
            time.sleep(2.0)
            hub.workers[0].start()
            time.sleep(2.0)
            hub.redis.kill()
            time.sleep(2.0)
            hub.redis.start()
            time.sleep(2.0)
            load.links["1"].cut()
            print(f"  table 1 cut off for {cut_s:g} s ...", flush=True)
            time.sleep(cut_s)
            load.links["1"].restore()
            for t in load.tables.values():
                t.stop.set()
            end = time.monotonic() + 60
            def caught_up() -> bool:
                return all(load.pushers[t].stats.acked.get(g) == s
                           for t in load.tables for g, s in load.tables[t].last().items())

            while time.monotonic() < end and not caught_up():
                time.sleep(0.2)
            store = HubStore(hub.redis.url)
            lost = duplicated = bad = 0
            for t, table in load.tables.items():
                key = table.games[0]._meta("public_key") or ""
                for game, last in table.last().items():
                    held = store.rows(t, game)
                    seqs = [r["seq"] for r in held]
                    duplicated += len(seqs) - len(set(seqs))
                    lost += len(set(range(1, last + 1)) - set(seqs))
                    local = {r.seq: r.hash for r in table.rows(game)}
                    for r in held:
                        if check_row({k: v for k, v in r.items() if k != "at"}).hash != local.get(r["seq"]):
                            bad += 1
                    heads = store.heads(t, game)
                    if not heads or int(heads[-1]["seq"]) != last or not all(
                            head_valid(key, int(h["seq"]), h["hash"], h["signature"]) for h in heads):
                        bad += 1
            rows = sum(sum(t.last().values()) for t in load.tables.values())
            return {"rows": rows, "lost": lost, "duplicated": duplicated, "bad": bad}
        finally:
            load.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--short", action="store_true", help="a small, quick run (8 tables, 200 spectators)")
    ap.add_argument("--tables", type=int)
    ap.add_argument("--spectators", type=int)
    ap.add_argument("--rate", type=float, default=10.0, help="rows a second per table (default 10)")
    ap.add_argument("--seconds", type=float, help="how long the tables play under load")
    ap.add_argument("--delayed", action="store_true",
                    help="also measure the spectators behind a tournament delay (rows coalesced per table)")
    ap.add_argument("--no-before", action="store_true",
                    help="skip the run with the library's own per-socket broadcast (broadcast = \"plain\")")
    ap.add_argument("--window", type=int, default=PUSH_WINDOW,
                    help=f"pushes a table keeps on their way before the first is answered (the pusher's default, "
                         f"{PUSH_WINDOW})")
    ap.add_argument("--also-window", type=int, default=0,
                    help="also measure the tables with this push window (e.g. 4: pipelined), in this process")
    ap.add_argument("--also-first", action="store_true",
                    help="with --also-window: run that one first (the machine's load drifts)")
    ap.add_argument("--table-procs", type=int, default=0,
                    help="run the simulated tables in this many processes of their own (default 0: in this one)")
    ap.add_argument("--no-faults", action="store_true", help="skip the store capacity and the fault run")
    ap.add_argument("--profile", metavar="DIR",
                    help="run the hub processes of the main load under cProfile (hub/profiling.py), write their "
                         "profiles to DIR and print where their CPU went (slower: profiling costs CPU too)")
    ap.add_argument("--compare-gc", action="store_true",
                    help="first measure the hub processes with CPython's own garbage collector, then with "
                         "hub/collector.py (the default), in this process, and print the ratio")
    ap.add_argument("--stalls", metavar="DIR",
                    help="keep every process's GC pauses and probe lateness (hub/stalls.py) in DIR (default: a "
                         "temporary folder)")
    ap.add_argument("--cut-seconds", type=float, help="how long one table is cut off (default 300; --short 5)")
    args = ap.parse_args()
    tables = args.tables or (8 if args.short else 32)
    spectators = args.spectators if args.spectators is not None else (200 if args.short else 2000)
    seconds = args.seconds or (8.0 if args.short else 30.0)
    cut_s = args.cut_seconds if args.cut_seconds is not None else (5.0 if args.short else 300.0)
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[0]} on {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-hub-") as tmp:
        # every process of the bench notes its GC pauses and wake-up lateness here
        stalls = Path(args.stalls).resolve() if args.stalls else Path(tmp) / "stalls"
        os.environ[STALLS_ENV] = str(stalls)
        install_stalls("bench", lambda probe: threading.Thread(target=probe, daemon=True).start())
        base = measure(Path(tmp) / "baseline", 1, 1, args.rate, min(seconds, 5.0))
        base_p99 = pct(base["latencies"], 0.99)
        print(f"baseline (1 table, 1 spectator): p50 {pct(base['latencies'], 0.5) * 1000:.1f} ms, "
              f"p99 {base_p99 * 1000:.1f} ms", flush=True)
        before = None
        if not args.no_before:
            before = measure(Path(tmp) / "load-plain", tables, spectators, args.rate, seconds, broadcast="plain")
            report("before (broadcast = \"plain\": python-socketio frames and sends per socket)", before, tables,
                   args.rate, base_p99)
        other = None

        def windowed(window: int) -> dict[str, Any]:
            got = measure(Path(tmp) / f"load-window-{window}", tables, spectators, args.rate, seconds, window=window,
                          groups=args.table_procs)
            report(f"the same, tables keeping up to {window} pushes on their way (window {window})", got, tables,
                   args.rate, base_p99)
            return got

        if args.also_window and args.also_first:
            other = windowed(args.also_window)
        library_gc = None
        if args.compare_gc:  # the hub processes with CPython's own collector, then (below) with hub.collector
            os.environ[GC_ENV] = "python"
            try:
                library_gc = measure(Path(tmp) / "load-python-gc", tables, spectators, args.rate, seconds,
                                     window=args.window, groups=args.table_procs)
            finally:
                os.environ.pop(GC_ENV, None)
            report("the hub processes with CPython's own garbage collector (KIPUKAS_HUB_GC=python)", library_gc,
                   tables, args.rate, base_p99)
            print_stalls(stalls, *library_gc["window"])
        if args.profile:
            os.environ[PROFILE_ENV] = str(Path(args.profile).resolve())
        try:
            r = measure(Path(tmp) / "load", tables, spectators, args.rate, seconds, window=args.window,
                        groups=args.table_procs)
        finally:
            os.environ.pop(PROFILE_ENV, None)
        p99 = report(f"after (broadcast = \"framed\": encoded and framed once per room, merged while sending; "
                     f"push window {args.window})", r, tables, args.rate, base_p99)
        print_stalls(stalls, *r["window"])
        if args.profile:
            print_profile(Path(args.profile), r)
        if args.also_window and not args.also_first:
            other = windowed(args.also_window)
        if library_gc is not None:
            print(f"hub.collector / CPython's own collector: p50 "
                  f"{pct(r['latencies'], 0.5) / pct(library_gc['latencies'], 0.5):.3f}, "
                  f"p99 {p99 / pct(library_gc['latencies'], 0.99):.3f}", flush=True)
        if other is not None:
            print(f"window {args.also_window} / window {args.window}: "
                  f"p50 {pct(other['latencies'], 0.5) / pct(r['latencies'], 0.5):.3f}, "
                  f"p99 {pct(other['latencies'], 0.99) / p99:.3f}", flush=True)
        if before is not None:
            b99 = pct(before["latencies"], 0.99)
            b50 = pct(before["latencies"], 0.5)
            print(f"after / before: p99 {p99 / b99:.3f}, p50 {pct(r['latencies'], 0.5) / b50:.3f}, "
                  f"hub CPU per row ingested {per_row(r) / per_row(before):.3f}", flush=True)
        if args.delayed:
            d = measure(Path(tmp) / "delayed", tables, spectators, args.rate, seconds, delay_min=0.02)
            late50, late99 = pct(d["latencies"], 0.5) * 1000, pct(d["latencies"], 0.99) * 1000
            print(f"with a tournament delay (1.2 s standing in for 15 min; each table's due rows sent once a second): "
                  f"{d['spectators']} spectators, lateness beyond the delay p50 {late50:.0f} ms, "
                  f"p99 {late99:.0f} ms, messages {d['messages'] / d['elapsed']:.0f}/s, "
                  f"hub {d['cpu']['hub processes'] / (d['elapsed'] + 1.5):.2f} cores", flush=True)
        same_ok = r["same"].get("differing", 0) == 0 and r["same"].get("private", 0) == 0
        if args.no_faults:
            return 0 if p99 <= 0.25 and same_ok else 1
        one, many = store_capacity(Path(tmp) / "capacity-1"), store_capacity(Path(tmp) / "capacity-32", clients=32)
        print(f"store capacity: {one:.0f} single-row appends/s from 1 client, {many:.0f}/s from 32 concurrent "
              "clients (Lua contiguity and chain check, appendfsync always: one fsync per Redis loop)", flush=True)
        f = faults(Path(tmp) / "faults", tables, args.rate, cut_s)
        print(f"faults (hub process killed, Redis killed and restarted, table cut off {cut_s:g} s): "
              f"{f['rows']} rows, lost {f['lost']}, duplicated {f['duplicated']}, not verifying {f['bad']}")
        ok = f["lost"] == 0 and f["duplicated"] == 0 and f["bad"] == 0 and p99 <= 0.25 and same_ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
