"""Bounded resources over a tournament day (issue 16, item 8): one keyframe limit for the whole table
(oldest games pruned first, the running game's last rows never, a warning before), and the records of
ended games closed, not left to the garbage collector."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest

from tracker.record.keyframes import KeyframeStore
from tracker.runtime.demo import DemoTable

FRAME = 100_000
LIMIT = 3_000_000


def jpeg(rng: random.Random) -> bytes:
    return b"\xff\xd8\xff" + rng.randbytes(FRAME - 3)


def folder_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*.jpg"))


def test_one_limit_for_all_games_of_the_table(tmp_path: Path) -> None:
    rng = random.Random(16)
    root = tmp_path / "keyframes"
    warnings: list[str] = []
    for game in ("game-1", "game-2", "game-3"):
        store = KeyframeStore(root / game, LIMIT, warn_fraction=0.8, on_warning=warnings.append, root=root)
        for seq in range(1, 16):  # 1.5 MB a game: three games are 4.5 MB
            store.save(seq, "overhead", jpeg(rng))
        used, limit = store.usage()
        assert used <= limit == LIMIT
    assert folder_bytes(root) <= LIMIT, "keyframes of all games together exceed the table's one limit"
    assert not (root / "game-1").exists(), "the oldest game's keyframes go first"
    assert len(list((root / "game-3").glob("*.jpg"))) == 15, "the running game keeps its keyframes"
    assert any("keyframes in" in w and "past the limit" in w for w in warnings), "a warning comes before"


def test_the_running_games_last_rows_are_never_pruned(tmp_path: Path) -> None:
    rng = random.Random(17)
    root = tmp_path / "keyframes"
    store = KeyframeStore(root / "game-1", 1_000_000, root=root, keep_rows=20, on_warning=lambda _m: None)
    for seq in range(1, 41):
        store.save(seq, "overhead", jpeg(rng))
    kept = sorted(int(p.name[:8]) for p in (root / "game-1").glob("*.jpg"))
    assert kept == list(range(21, 41)), "the last 20 rows' keyframes stay even past the limit"


def test_a_restarted_table_counts_every_game_on_disk(tmp_path: Path) -> None:
    rng = random.Random(18)
    root = tmp_path / "keyframes"
    for game in ("game-1", "game-2"):
        store = KeyframeStore(root / game, 10 * LIMIT, root=root)  # written under a generous limit
        for seq in range(1, 21):
            store.save(seq, "overhead", jpeg(rng))
    store = KeyframeStore(root / "game-3", LIMIT, root=root, on_warning=lambda _m: None)
    assert store.usage()[0] == 40 * FRAME
    store.save(1, "overhead", jpeg(rng))
    assert folder_bytes(root) <= LIMIT
    assert sorted(int(p.name[:8]) for p in (root / "game-1").glob("*.jpg")) == list(range(12, 21))
    assert len(list((root / "game-2").glob("*.jpg"))) == 20, "the oldest game is pruned first"


def open_files(name: str) -> list[str]:
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if name in target:
            out.append(target)
    return out


@pytest.mark.slow
def test_an_ended_games_record_is_closed(tmp_path: Path) -> None:
    demo = DemoTable(fps=None, repeat=True, linger_s=0.0, hand_frames=0, settled_frames=1, folder=tmp_path)
    first = demo.table
    thread = threading.Thread(target=demo.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 300  # two rounds; a loaded machine renders slowly
    while demo.rounds < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    demo.stop.set()
    thread.join(60)
    assert demo.rounds >= 2, f"only {demo.rounds} round(s) played"
    assert first.record.closed
    assert open_files(str(tmp_path / "demo-001.sqlite")) == [], "the first game's database, WAL or shm is still open"
