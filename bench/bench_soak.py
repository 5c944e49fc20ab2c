"""Soak: a tournament day of demo games compressed into minutes, showing the table's resources flat.

The demo's scripted game is played again and again on a real table (rules engine, signed hash-chained
record on disk, table service with its web server and two connected phones), game after game as a day at
a table would go: each game's record is closed when it ends and the service moves to the next one; every
action keeps a keyframe in one table-wide keyframe store (`KeyframeStore(root=...)`). The board comes
from the script's token lists, not from rendered frames, so hours pass in minutes; keyframes are a real
JPEG of a demo frame, downscaled, under a limit scaled down with them (the pruning does not depend on
sizes). One demo game takes DEMO_GAME_S at the demo's pace (4 frames a second, 6 frames a step, 10 s
between games).

Reported after warm-up (the baseline, in this process) and at the end: resident memory, open files,
threads, keyframe bytes against the one limit, and the records' bytes; ratios end/baseline. Exit 1 when
memory grows more than 10 %, or open files or threads grow at all, or keyframes pass their limit.

    python bench/bench_soak.py [--hours 3] [--short] [--limit-mb 20]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DEMO_GAME_S = 14 * 6 / 4 + 10  # steps x frames per step / fps + the pause between games


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def threads() -> int:
    return len(os.listdir("/proc/self/task"))


def folder_mb(folder: Path, pattern: str) -> float:
    return sum(p.stat().st_size for p in folder.rglob(pattern)) / 1e6


def keyframe_jpeg() -> bytes:
    import cv2

    from calibration.camera import default_pose
    from rules.kipukas.board_map import BoardMap
    from tracker.overhead.layout import table_layout
    from tracker.runtime.demo import DEMO_IMAGE_SIZE, PALETTE
    from vision.synth import Renderer, TableScene

    layout = table_layout(BoardMap.packaged())
    frame = Renderer(layout, default_pose(layout, image_size=DEMO_IMAGE_SIZE), PALETTE).render(TableScene({}), seed=3)
    small = cv2.resize(frame, (frame.shape[1] // 4, frame.shape[0] // 4), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return bytes(data.tobytes())


class Day:
    """One table's day: games one after another, with the service, server and phones of a real table."""

    def __init__(self, folder: Path, limit_mb: float) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from rules.kipukas.board_map import BoardMap
        from tracker.record.keyframes import KeyframeStore
        from tracker.runtime.demo_script import demo_steps
        from tracker.runtime.server import WebServer
        from tracker.service.seats import Seats
        from tracker.service.service import TableService
        from web.namespace import Limits

        self.folder, self.board, self.steps = folder, BoardMap.packaged(), demo_steps()
        (folder / "records").mkdir(parents=True, exist_ok=True)
        self.key = Ed25519PrivateKey.generate()
        self.limit = int(limit_mb * 1e6)
        self.jpeg = keyframe_jpeg()
        self.games = self.rows = 0
        self.warnings: list[str] = []
        self.store_class = KeyframeStore
        self.table = self._new_table()
        self.store = self._store()
        self.service = TableService(self.table, Seats(("red", "blue"), judge_pin="2468"))
        self.server = WebServer(self.service, "127.0.0.1", 0, limits=Limits(rate_per_s=1000.0, burst=1000))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.phones = [self._phone({"pin": "2468"}), self._phone({"token": self.service.join_tokens()["red"]})]

    def _phone(self, auth: dict[str, Any]) -> Any:
        import socketio

        client = socketio.Client(reconnection=False)
        client.on("*", lambda *_a: None, namespace="/table")
        client.connect(f"http://127.0.0.1:{self.server.port}", namespaces=["/table"], transports=["websocket"],
                       auth=auth, wait_timeout=10)
        return client

    def _new_table(self) -> Any:
        from tracker.record.store import GameRecord
        from tracker.runtime.demo_script import DECKS
        from tracker.table.table import Table

        record = GameRecord(str(self.folder / "records" / f"game-{self.games + 1:05d}.sqlite"), self.key)
        return Table(self.board, record, DECKS)

    def _store(self) -> Any:
        root = self.folder / "keyframes"
        return self.store_class(root / f"game-{self.games + 1:05d}", self.limit, 0.8, self.warnings.append,
                                root=root)

    def play(self) -> None:
        from tracker.service.seats import JUDGE, SPECTATOR, player
        from tracker.table.board import StandValue

        store = self.store
        for step in self.steps:
            for line in step.say:
                self._keyframes(store, [self.table.act(f"phone:{line.split()[0]}", line)])
            board = {s: StandValue(kind, owner, count) for s, (kind, owner, count) in step.tokens.items()}
            self._keyframes(store, self.table.observe(board))
            for viewer in (JUDGE, SPECTATOR, player("red"), player("blue")):
                self.service.snapshot(viewer)
        self.rows += self.table.record.last_seq
        self.games += 1
        ended = self.table
        self.table, self.store = self._new_table(), self._store()
        self.service.replace(self.table)
        with ended.lock:
            ended.record.close()

    def _keyframes(self, store: Any, entries: list[Any]) -> None:
        for entry in entries:
            if entry.kind == "action" and entry.seq:
                store.save(entry.seq, "overhead", self.jpeg)

    def close(self) -> None:
        for phone in self.phones:
            phone.disconnect()
        self.server.shutdown()
        self.thread.join(10)
        self.table.record.close()


def sample(day: Day) -> dict[str, float]:
    return {"memory MB": rss_mb(), "open files": open_files(), "threads": threads(),
            "keyframes MB": folder_mb(day.folder / "keyframes", "*.jpg"),
            "records MB": folder_mb(day.folder / "records", "*.sqlite*")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hours", type=float, default=3.0, help="hours of demo games at the demo's pace")
    ap.add_argument("--short", action="store_true", help="CI: half an hour of demo games")
    ap.add_argument("--limit-mb", type=float, default=20.0, help="the table-wide keyframe limit")
    args = ap.parse_args()
    hours = 0.5 if args.short else args.hours
    games = max(8, round(hours * 3600 / DEMO_GAME_S))
    with tempfile.TemporaryDirectory(prefix="kipukas-soak-") as tmp:
        day = Day(Path(tmp), args.limit_mb)
        started = time.perf_counter()
        warm = max(2, games // 4)
        base: dict[str, float] = {}
        peak_keyframes = 0.0
        for n in range(games):
            day.play()
            now = sample(day) if (n + 1) % 5 == 0 or n + 1 in (warm, games) else None
            if now is not None:
                peak_keyframes = max(peak_keyframes, now["keyframes MB"])
            if n + 1 == warm:
                base = sample(day)
        end = sample(day)
        took = time.perf_counter() - started
        day.close()
    print(f"soak: {games} demo games ({games * DEMO_GAME_S / 3600:.1f} h at the demo's pace, {day.rows} record rows) "
          f"in {took:.0f} s; baseline after {warm} games, in this process")
    flat = True
    for what in ("memory MB", "open files", "threads"):
        ratio = end[what] / base[what] if base[what] else float("nan")
        print(f"  {what:<12} {base[what]:8.1f} -> {end[what]:8.1f}  (ratio {ratio:.3f})")
        allowed = base[what] * 1.10 if what == "memory MB" else base[what]
        flat = flat and end[what] <= allowed
    limit_mb = args.limit_mb
    print(f"  keyframes    peak {peak_keyframes:.1f} MB, end {end['keyframes MB']:.1f} MB of one {limit_mb:g} MB "
          f"table-wide limit; {len(day.warnings)} warning(s) before pruning")
    print(f"  records      {end['records MB']:.1f} MB for {games} games ({1000 * end['records MB'] / games:.0f} KB "
          "a game: kept, they are the evidence)")
    flat = flat and peak_keyframes <= limit_mb
    print("flat" if flat else "NOT FLAT")
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
