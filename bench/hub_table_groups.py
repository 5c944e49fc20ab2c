"""Simulated tables for bench_hub in processes of their own: a real table is a Pi of its own, while 32
tables, their pushers and their cuttable links in the bench's one process are about 200 threads behind one
GIL, which adds its own wait to every row before it even leaves ("sent" in the bench's split). Each group
process runs some of the tables (`SimTable`, the real pusher, a `CutProxy` from the table's own loopback
address, so nginx's ip_hash spreads them as before) and answers the bench's commands over queues.
"""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path
from typing import Any

from hub.stalls import install_stalls
from tests.hub_servers import CutProxy
from tests.hub_tables import SimTable
from tracker.record.hub_push import HubPusher


class TimedPusher(HubPusher):
    """The real pusher, noting how late each row is when its push leaves ("sent": the table's own queueing:
    the pusher waking, reading SQLite, the bench process's threads) and when the hub's answer is back
    ("acked": the push through the link and nginx, checked and stored in Redis, and the answer back).
    A row sent again (after a refusal or a reconnect) is noted each time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.late: dict[str, list[float]] = {"sent": [], "acked": []}
        self.recording = False
        self.connects0 = 0  # connections made before the measured window (reconnections are counted after it)

    def _emit_rows(self, cursor: Any, data: dict[str, Any], generation: int) -> None:
        if self.recording:
            sent = time.time()
            self.late["sent"] += [sent - float(row["ts"]) for row in data["rows"]]
        super()._emit_rows(cursor, data, generation)

    def _answered(self, cursor: Any, data: dict[str, Any], generation: int, answer: Any) -> None:
        if self.recording:
            acked = time.time()
            self.late["acked"] += [acked - float(row["ts"]) for row in data["rows"]]
        super()._answered(cursor, data, generation, answer)


def run_group(port: int, tokens: dict[str, str], folder: str, window: int, commands: Any, results: Any) -> None:
    """Process entry: start the tables' pushers; on ("play", rate, seconds) record that long and send back
    rows acknowledged and written, the pushers' lateness samples and this process's CPU seconds; stop on
    ("stop",)."""
    install_stalls(f"tables-{Path(folder).name}", lambda probe: threading.Thread(target=probe, daemon=True).start())
    stop = threading.Event()
    tables = {t: SimTable(Path(folder) / f"table-{t}", seed=7000 + int(t)) for t in tokens}
    links = {t: CutProxy(port, f"127.0.{(int(t) - 1) % 250 + 1}.1") for t in tokens}
    pushers = {t: TimedPusher(links[t].url, tokens[t], tables[t].records, window=window) for t in tokens}
    for t in tokens:
        tables[t].on_row.append(pushers[t].nudge)
        pushers[t].start(stop)
    try:
        while True:
            command = commands.get()
            if command[0] != "play":
                return
            _, rate, seconds = command
            gc.collect()  # set-up's objects out of the collector's sight, as in bench_hub's own process
            gc.freeze()
            cpu0 = time.process_time()
            for p in pushers.values():
                p.recording, p.connects0 = True, p.stats.connects
            threads = [table.run(rate) for table in tables.values()]
            time.sleep(seconds)
            for table in tables.values():
                table.stop.set()
            for th in threads:
                th.join()
            time.sleep(1.0)
            late: dict[str, list[float]] = {"sent": [], "acked": []}
            for p in pushers.values():
                p.recording = False
                for k in late:
                    late[k] += p.late[k]
            results.put({"acked": sum(sum(p.stats.acked.values()) for p in pushers.values()),
                         "written": sum(sum(table.last().values()) for table in tables.values()),
                         "late": late, "cpu_s": time.process_time() - cpu0,
                         "reconnects": sum(p.stats.connects - p.connects0 for p in pushers.values()),
                         "errors": sorted({p.stats.last_error for p in pushers.values() if p.stats.last_error})})
    finally:
        stop.set()
        for link in links.values():
            link.close()
        for table in tables.values():
            table.close()
