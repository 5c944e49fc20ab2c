"""How `bench/bench_hub.py` prints a load run: latency percentiles, the figures of one run (latency per
stage, rows ingested, CPU per row and per delivery, memory per socket, content check) and the hub
processes' merged profile."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def per_row(r: dict[str, Any]) -> float:
    """Hub CPU seconds per row ingested and sent to all its spectators."""
    return float(r["cpu"]["hub processes"]) / max(1, r["acked"])


def report(title: str, r: dict[str, Any], tables: int, rate: float, base_p99: float) -> float:
    """Print one load run's figures; its broadcast p99 in seconds."""
    lat = r["latencies"]
    p50, p99 = pct(lat, 0.5), pct(lat, 0.99)
    print(f"{title}:")
    print(f"  load: {tables} tables at {rate:g} rows/s, {r['spectators']} spectator sockets through nginx "
          f"across 2 hub processes (connected in {r['connect_s']:.1f} s, refused {r['refused']}, "
          f"dropped {r['dropped']})")
    print(f"  broadcast latency p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms over {len(lat)} row deliveries "
          f"sampled (target p99 <= 250 ms: {'met' if p99 <= 0.25 else 'NOT met'}); "
          f"ratio p99 / baseline p99 = {p99 / base_p99:.2f}")
    if r.get("reconnects") or r.get("errors"):
        print(f"  table links: {r.get('reconnects', 0)} reconnections in the measured window (a push unanswered "
              f"for 10 s, or the link lost; its rows are sent again: inside the latency above); pushers' last "
              f"errors (any time): "
              f"{'; '.join(r.get('errors', [])) or 'none'}", flush=True)
    wanted = r["acked"] / r["elapsed"] * r["spectators"] / tables
    print(f"  rows ingested: {r['acked']} of {r['written']} written, {r['acked'] / r['elapsed']:.0f} rows/s; "
          f"messages delivered to spectators: {r['messages'] / r['elapsed']:.0f}/s carrying "
          f"{wanted:.0f} row deliveries/s ({r['sent']['direct']} written straight to a socket, "
          f"{r['sent']['queued']} through engine.io's queue)")
    window = r["elapsed"] + 1.5
    print("  CPU while playing (cores busy): " + ", ".join(f"{k} {v / window:.2f}" for k, v in r["cpu"].items())
          + f", spectator clients (bench) {r['client_cpu_s'] / window:.2f}"
          + f"; load average now {Path('/proc/loadavg').read_text().split()[0]}")
    print(f"  hub CPU per row ingested and sent to its ~{r['spectators'] / tables:.0f} spectators: "
          f"{per_row(r) * 1e6:.0f} us, "
          f"per row delivery {per_row(r) / max(1.0, r['spectators'] / tables) * 1e6:.1f} us, "
          f"per message delivered {r['cpu']['hub processes'] / max(1, r['messages']) * 1e6:.1f} us "
          f"({r['hub_kernel_s'] / max(1e-9, r['cpu']['hub processes']):.0%} of the hub's CPU in the kernel)")
    stages = r.get("stages", {})
    order = ("sent", "arrived", "checked", "stored", "acked", "picked", "writing", "written")
    print("  where the latency is (how late a row is, p50 / p99 ms, at each stage; 'received' at the spectator): "
          + ", ".join(f"{k} {pct(stages[k], 0.5) * 1000:.0f} / {pct(stages[k], 0.99) * 1000:.0f}"
                      for k in order if stages.get(k))
          + f", received {p50 * 1000:.0f} / {p99 * 1000:.0f}", flush=True)
    if all(stages.get(k) for k in ("sent", "arrived", "written")):
        print("  whose time it is (the medians' differences, ms): " + split_of_latency(stages, p50), flush=True)
    same = r.get("same", {})
    if same.get("tables"):
        print(f"  content: {same['tables']} real python-socketio clients (tables 1-{same['tables']}) and the lean "
              f"client's socket of the same table got the same rows, in order, once: "
              f"{'yes' if same['differing'] == 0 else 'NO, ' + str(same['differing']) + ' tables differ'} "
              f"({same['compared']} rows compared); rows with more than a spectator may see: {same['private']}"
              + (f"; first difference: {same['example']}" if same.get("example") else ""),
              flush=True)
    print(f"  memory per spectator socket: {r['rss_per_socket_kb']:.1f} KB in the hub processes "
          f"(+{r['nginx_kb'] / max(1, r['spectators']):.1f} KB in nginx)", flush=True)
    return p99


def split_of_latency(stages: dict[str, list[float]], received_p50: float) -> str:
    """The median broadcast latency split by whose processes it passed through. Each stage's median is of
    the same rows' cumulative lateness, so the differences add up to the received median. `sent` is the
    table's side (its recording, the pusher, and its wait for the answer to the push before: in the bench
    all 32 tables share one process); `arrived` - `sent` is the bench's cuttable link, nginx and the hub's
    queue of events; `written` - `arrived` is the hub and Redis; the rest nginx and the bench's spectator
    client."""
    sent, arrived, written = (pct(stages[k], 0.5) for k in ("sent", "arrived", "written"))
    return (f"at the table until the push leaves {sent * 1000:.0f} (bench: tables and pushers, and the wait "
            f"for the previous push's answer), to the hub {(arrived - sent) * 1000:.0f} (bench's link, nginx, "
            f"the hub's queue), in the hub and Redis {(written - arrived) * 1000:.0f}, to the spectator "
            f"{(received_p50 - written) * 1000:.0f} (nginx, the bench's spectator client)")


def print_profile(folder: Path, r: dict[str, Any], top: int = 30) -> None:
    """The hub processes' profiles merged: the functions with the most own time, as microseconds per row
    ingested (profiled time includes cProfile's own overhead, so compare shares, not absolute figures)."""
    import pstats

    files = sorted(folder.glob("hub-*.prof"))
    if not files:
        print(f"  profile: no hub-*.prof in {folder} (did the hub processes stop cleanly?)", flush=True)
        return
    stats = pstats.Stats(*[str(f) for f in files])
    entries = cast(dict[Any, Any], stats.stats)  # type: ignore[attr-defined]
    total = sum(v[2] for v in entries.values())
    rows = max(1, int(r["acked"]))
    print(f"  profile of {len(files)} hub processes: {total:.1f} s of own time, {total / rows * 1e6:.0f} us per row "
          f"ingested; top {top} by own time (share, us per row, calls per row, function):", flush=True)
    for (file, line, name), v in sorted(entries.items(), key=lambda kv: -kv[1][2])[:top]:
        print(f"    {v[2] / total:6.1%} {v[2] / rows * 1e6:7.1f} {v[1] / rows:7.2f}  {name} "
              f"({Path(file).name}:{line})", flush=True)


def print_stalls(folder: Path, start: float, end: float) -> dict[str, dict[str, float]]:
    """Each process's stalls in the measured window (`hub.stalls`): its garbage collections (how many, the
    time it stood still in them, the longest) and how late its 5 ms probe woke (p50 / p99 / longest: the
    wait for its event loop, or for the GIL and a core). The figures per process, by file name."""
    from hub.stalls import read_stalls

    out: dict[str, dict[str, float]] = {}
    files = sorted(folder.glob("stalls-*.jsonl"))
    if not files:
        return out
    span = max(1e-9, end - start)
    print(f"  stalls in the measured window ({span:.0f} s; GC pauses, and how late a 5 ms sleep woke):", flush=True)
    for f in files:
        got = read_stalls(f, start, end)
        if not got["lag"]:
            continue
        gcs = got["gc"]
        full = [s for s in gcs if s[1] == 2]
        lag = [s[1] for s in got["lag"]]
        fig = {"gc_n": float(len(gcs)), "gc_s": sum(s[2] for s in gcs), "gc_max": max((s[2] for s in gcs), default=0.0),
               "gc2_n": float(len(full)), "gc2_max": max((s[2] for s in full), default=0.0),
               "lag50": pct(lag, 0.5), "lag99": pct(lag, 0.99), "lag_max": max(lag)}
        out[f.stem.removeprefix("stalls-")] = fig
        print(f"    {f.stem.removeprefix('stalls-'):>12}: {len(gcs)} collections ({len(full)} full), "
              f"{fig['gc_s'] * 1000:.0f} ms in all ({fig['gc_s'] / span:.1%} of the window), longest "
              f"{fig['gc_max'] * 1000:.1f} ms (full: {fig['gc2_max'] * 1000:.1f} ms); probe late p50 "
              f"{fig['lag50'] * 1000:.1f} ms, p99 {fig['lag99'] * 1000:.1f} ms, longest {fig['lag_max'] * 1000:.0f} ms",
              flush=True)
    return out
