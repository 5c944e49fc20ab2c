"""Long games stay instant: on records of 5,000 and 20,000 rows (a long tournament game), the time to
rebuild the state at a row, a judge's correction, the delayed spectators' view and a restart, each
beside a full replay of the same record from its first row, measured in the same process.

Each record is built once (seeded: a real game, then a walk over the actions the rules allow, with
rejected actions, camera readings and undos mixed in), with the tracker's snapshots every 200 rows.
- state at a row: `replay_record` at 200 seeded random rows (max, median; the rows fall on different
  snapshots, so nearly every one is decoded afresh, not taken from the decoded ones kept), and the judge's
  replay page
  (`TableService.state_at`: the state, the view and the row's keyframes) at 50 of them;
- correction: `Table.correct` of the last action (what a judge corrects), and of one about 100 rows
  back (every row after it is re-decided, so this grows with the distance, not with the record), and the
  longest the table's lock was held during either;
- delayed view: `Scene.of_record` rebuilt at 50 seeded rows near the head, and moving on one row at a
  time from the previous delayed scene (what the service does as the delayed row moves on);
- restart: opening the table again (record + snapshots);
- memory: Python allocations kept by the restarted table and its service after one judge view
  (tracemalloc), and the judge's first `log` message in bytes.

Each time is printed as wall-clock and as this thread's CPU time: on a machine shared with other work the
wall clock also counts the time others had the core (up to 30x here under load); on the Pi the tracker has
its core, where CPU time is what a judge waits. The target line is printed for both.

    python bench/bench_long_game.py [--rows 5000 20000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


TARGET_MS = 50.0
TARGET_RESTART_MS = 2000.0


def ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


class Lap:
    """Wall-clock time and this thread's CPU time since it was made, in ms: on a shared machine the wall
    clock also counts the time other processes had the core, the CPU time only this work's."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.thread_time()

    def done(self) -> tuple[float, float]:
        return (time.perf_counter() - self.wall) * 1000.0, (time.thread_time() - self.cpu) * 1000.0


def keep(out: dict[str, float], name: str, samples: list[tuple[float, float]]) -> None:
    """The max and median of samples (wall, cpu) as `name`_max_ms, `name`_median_ms and their _cpu twins."""
    for i, suffix in ((0, ""), (1, "_cpu")):
        values = [s[i] for s in samples]
        out[f"{name}_max_ms{suffix}"], out[f"{name}_median_ms{suffix}"] = max(values), statistics.median(values)


def keep_one(out: dict[str, float], key: str, sample: tuple[float, float]) -> None:
    out[key], out[key + "_cpu"] = sample


def measure(rows: int, seed: int, folder: Path) -> dict[str, float]:
    from rules.kipukas.board_map import BoardMap
    from tests.long_game import long_table
    from tests.table_helpers import KEY
    from tracker.record.snapshots import SnapshotStore, snapshot_path
    from tracker.record.store import GameRecord
    from tracker.service.seats import JUDGE
    from tracker.service.service import TableService
    from tracker.service.views import Scene
    from tracker.table.replay import replay, replay_record
    from tracker.table.table import Table

    path = folder / f"long-{rows}.sqlite"
    t0 = time.perf_counter()
    table = long_table(path, rows, seed)
    build_s = (time.perf_counter() - t0)
    board = BoardMap.packaged()
    record = table.record
    n = record.last_seq
    rng = random.Random(seed * 7919 + rows)
    out: dict[str, float] = {"rows": n, "build_s": build_s}

    lap = Lap()
    full = replay(list(record.rows()), board)
    keep_one(out, "full_replay_ms", lap.done())
    assert full.game.to_text() == table.game.to_text(), "the live table differs from a full replay"

    reader = GameRecord(str(path), readonly=True)
    snaps = SnapshotStore(snapshot_path(str(path)), readonly=True)
    times = []
    rows_sampled = rng.sample(range(1, n + 1), 200)
    for upto in rows_sampled:
        lap = Lap()
        replay_record(reader, board, upto=upto, snapshots=snaps)
        times.append(lap.done())
    keep(out, "state_at_row", times)
    service = TableService(table)
    times = []
    for upto in rows_sampled[:50]:
        lap = Lap()
        service.state_at(JUDGE, upto)
        times.append(lap.done())
    keep(out, "replay_page", times)

    times = []
    for upto in rng.sample(range(n - 300, n), 50):
        lap = Lap()
        Scene.of_record(table, upto)
        times.append(lap.done())
    keep(out, "delayed_view", times)
    times = []
    scene = Scene.of_record(table, n - 200)
    for upto in range(n - 199, n - 179):  # the delayed row moving on, one row at a time
        lap = Lap()
        scene = Scene.of_record(table, upto, scene)
        times.append(lap.done())
    keep(out, "delayed_step", times)

    recent = [r for r in record.rows(after=n - 150) if r.kind == "action" and r.body["accepted"]]
    held: list[float] = []
    original_lock = table.lock

    class TimedLock:
        """The table's lock, noting how long each hold lasts."""

        def __enter__(self) -> None:
            original_lock.acquire()
            self.t0 = time.perf_counter()

        def __exit__(self, *_: object) -> None:
            held.append(ms(self.t0))
            original_lock.release()

    table.lock = TimedLock()  # type: ignore[assignment]
    lap = Lap()
    table.correct("judge", recent[-1].seq, "", "bench: struck")  # the action just made
    keep_one(out, "correction_ms", lap.done())
    far = [r for r in recent if r.seq <= n - 100][-1]
    lap = Lap()
    table.correct("judge", far.seq, "", "bench: struck")  # ~100 rows back: every later row is re-decided
    keep_one(out, "correction_100_ms", lap.done())
    out["correction_lock_held_max_ms"] = out["correction_lock_held_max_ms_cpu"] = max(held)
    table.lock = original_lock
    check = replay(list(record.rows()), board)
    assert check.game.to_text() == table.game.to_text(), "the corrected table differs from a full replay"
    table.record.close()
    if table.snapshots is not None:
        table.snapshots.close()

    lap = Lap()
    again = Table(board, GameRecord(str(path), KEY), snapshots=SnapshotStore(snapshot_path(str(path))))
    keep_one(out, "restart_ms", lap.done())
    again.record.close()
    tracemalloc.start()  # a second restart, measured for memory only (tracing slows allocation down)
    again = Table(board, GameRecord(str(path), KEY), snapshots=SnapshotStore(snapshot_path(str(path))))
    service = TableService(again)
    service.snapshot(JUDGE)
    first_log = service.log_pages(JUDGE, 0)
    out["memory_kept_mb"] = tracemalloc.get_traced_memory()[0] / 1e6
    tracemalloc.stop()
    out["first_log_kb"] = len(json.dumps(first_log[0])) / 1024
    assert again.game.to_text() == check.game.to_text()
    again.record.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, nargs="+", default=[5000, 20000])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bench-long-"))
    lines = [("state at a row, max", "state_at_row_max_ms"), ("state at a row, median", "state_at_row_median_ms"),
             ("replay page at a row, max", "replay_page_max_ms"),
             ("replay page at a row, median", "replay_page_median_ms"),
             ("correction of the last action", "correction_ms"),
             ("correction ~100 rows back", "correction_100_ms"),
             ("table lock held during a correction, max", "correction_lock_held_max_ms"),
             ("delayed spectators' view, max", "delayed_view_max_ms"),
             ("delayed spectators' view, median", "delayed_view_median_ms"),
             ("delayed view moving on a row, max", "delayed_step_max_ms"),
             ("delayed view moving on a row, median", "delayed_step_median_ms"), ("restart", "restart_ms")]
    for rows in args.rows:
        r = measure(rows, args.seed, folder)
        full, full_cpu = r["full_replay_ms"], r["full_replay_ms_cpu"]
        print(f"--- record of {int(r['rows'])} rows (built in {r['build_s']:.0f} s); full replay {full:.0f} ms "
              f"(CPU {full_cpu:.0f} ms)")
        print(f"  {'':<42} {'wall':>8}      {'CPU':>8}      ratio to a full replay (wall)")
        for label, key in lines:
            print(f"  {label:<42} {r[key]:8.1f} ms   {r[key + '_cpu']:8.1f} ms   {r[key] / full:.4f}")
        print(f"  {'memory kept by a restarted table':<42} {r['memory_kept_mb']:8.1f} MB")
        print(f"  {'judge first log message':<42} {r['first_log_kb']:8.0f} kB")
        keys = ("state_at_row_max_ms", "correction_ms", "correction_100_ms", "delayed_view_max_ms",
                "delayed_step_max_ms", "replay_page_max_ms")
        for clock, suffix in (("wall", ""), ("CPU", "_cpu")):
            worst = max(r[k + suffix] for k in keys)
            restart = r["restart_ms" + suffix]
            met = worst <= TARGET_MS and restart <= TARGET_RESTART_MS
            print(f"  target (issue 17: each <= {TARGET_MS:.0f} ms worst case, restart <= "
                  f"{TARGET_RESTART_MS / 1000:.0f} s), {clock}: {'met' if met else 'NOT met'} "
                  f"(worst {worst:.1f} ms, restart {restart:.0f} ms)")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
