"""How long Redis's `appendfsync always` waits for the disk, alone and beside the bench's tables (issue 20).

An appending write + `fdatasync` of 300 bytes, as Redis's AOF does once per loop, timed in a loop on the
disk the bench uses (the temporary folder), first alone, then while `--tables` SQLite records commit with
`synchronous=FULL` at 10 rows/s each (the bench's simulated tables write to the same disk). Prints p50 /
p90 / p99 / longest of each and the ratio of the second to the first, measured in this one process.

    python bench/bench_hub_fsync.py [--tables 32] [--seconds 10]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def fsyncs(folder: Path, seconds: float) -> list[float]:
    """Seconds each appending `fdatasync` took, one every 3 ms or so, for `seconds`."""
    fd = os.open(folder / "aof.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    took: list[float] = []
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            os.write(fd, b"x" * 300)
            t = time.perf_counter()
            os.fdatasync(fd)
            took.append(time.perf_counter() - t)
            time.sleep(0.003)
    finally:
        os.close(fd)
    return took


def table(path: Path, stop: threading.Event, commits: list[float]) -> None:
    """One table's record: a row committed (WAL, synchronous=FULL) 10 times a second."""
    db = sqlite3.connect(path, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, body TEXT)")
    next_at = time.monotonic()
    while not stop.is_set():
        t = time.perf_counter()
        with db:
            db.execute("INSERT INTO records (body) VALUES (?)", ("y" * 300,))
        commits.append(time.perf_counter() - t)
        next_at += 0.1
        stop.wait(max(0.0, next_at - time.monotonic()))
    db.close()


def line(name: str, took: list[float]) -> str:
    return (f"{name}: {len(took)} fdatasyncs, p50 {pct(took, 0.5) * 1000:.2f} ms, p90 {pct(took, 0.9) * 1000:.2f} ms, "
            f"p99 {pct(took, 0.99) * 1000:.2f} ms, longest {max(took) * 1000:.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[0]} on {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-fsync-") as tmp:
        folder = Path(tmp)
        alone = fsyncs(folder, args.seconds)
        print(line("alone", alone), flush=True)
        stop, commits = threading.Event(), list[float]()
        threads = [threading.Thread(target=table, args=(folder / f"table-{n}.sqlite", stop, commits))
                   for n in range(args.tables)]
        for th in threads:
            th.start()
        try:
            time.sleep(1.0)
            beside = fsyncs(folder, args.seconds)
        finally:
            stop.set()
            for th in threads:
                th.join()
        print(line(f"beside {args.tables} tables committing at 10 rows/s", beside)
              + f"; their commits p50 {pct(commits, 0.5) * 1000:.1f} ms, p99 {pct(commits, 0.99) * 1000:.1f} ms",
              flush=True)
        print(f"beside / alone: p50 {pct(beside, 0.5) / pct(alone, 0.5):.2f}, p99 "
              f"{pct(beside, 0.99) / pct(alone, 0.99):.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
