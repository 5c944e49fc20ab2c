"""Delayed spectator rows leave the hub in the order they were taken, across hub processes.

Found under load (tests/test_hub_fastpath.py, 1 run in 5 with the machine loaded): a spectator got rows
18-21 before 12-17. Each hub process takes the due broadcasts atomically, but one that took rows 12-17
and was slow to publish them let another process take 18-21 on its tick and publish them first. Here
two broadcasters share a real Redis; the first is made slow between taking and publishing (the fault a
loaded machine produces by chance), and the rows must still be published in order, each once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.namespaces import Broadcaster
from hub.settings import HubConfig
from hub.streams import HubStore
from tests.hub_servers import Redis
from tests.waiting import wait_until


class Publisher:
    """Stands in for a process's socketio.emit onto the shared message queue (the published order is
    what every spectator receives); `slow_s` holds the first publish, as a descheduled process would."""

    def __init__(self, published: list[int], lock: threading.Lock, slow_s: float = 0.0) -> None:
        self.published, self.lock, self.slow_s = published, lock, slow_s
        self.entered = threading.Event()

    def emit(self, event: str, payload: Any, to: str, namespace: str) -> None:
        assert (event, to, namespace) == ("rows", "watch:1", "/watch")
        self.entered.set()
        if self.slow_s:
            time.sleep(self.slow_s)
            self.slow_s = 0.0
        with self.lock:
            self.published.extend(int(r["seq"]) for r in payload)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[HubStore]:
    server = Redis(tmp_path)
    server.start()
    try:
        yield HubStore(server.url)
    finally:
        server.stop()


def rows(store: HubStore, seqs: range, due: float) -> None:
    store.delay(due, {"table": "1", "event": "rows", "payload": [{"game": "game-001", "seq": s} for s in seqs]})


def test_a_process_slow_to_publish_does_not_let_later_rows_overtake(store: HubStore) -> None:
    cfg = HubConfig(redis_url="redis://unused", organiser_pin="1234", spectator_delay_min=0.02)
    published: list[int] = []
    lock = threading.Lock()
    slow, quick = Publisher(published, lock, slow_s=1.0), Publisher(published, lock)
    stop = threading.Event()
    rows(store, range(1, 5), time.time() - 1.0)
    first = threading.Thread(target=Broadcaster(cfg, store, slow).run, args=(stop, 0.02), daemon=True)
    second = threading.Thread(target=Broadcaster(cfg, store, quick).run, args=(stop, 0.02), daemon=True)
    first.start()
    try:
        wait_until(slow.entered.is_set, "the first process never took the due rows")
        rows(store, range(5, 9), time.time() - 0.5)  # due while the first process is still publishing
        second.start()
        wait_until(lambda: len(published) >= 8, lambda: f"published {published}")
        time.sleep(0.1)  # a row published twice would be here by now
    finally:
        stop.set()
    for thread in (first, second):
        if thread.ident is None:  # never started: the failure above says why
            continue
        thread.join(10)
        assert not thread.is_alive()
    assert published == list(range(1, 9)), "rows published out of order (or twice)"
    assert store.r.get("hub:delayed:turn") is None, "the turn was not given back"


def test_a_turn_expires_and_is_only_given_back_by_its_owner(store: HubStore) -> None:
    assert store.take_turn("a", hold_s=0.3)
    assert not store.take_turn("b", hold_s=0.3)
    store.end_turn("b")  # not b's to give back
    assert not store.take_turn("b", hold_s=0.3)
    wait_until(lambda: store.take_turn("b", hold_s=5.0), "a turn held by a process that died never expired")
    store.end_turn("a")  # expired: a no longer holds it, and must not end b's
    assert store.r.get("hub:delayed:turn") == "b"
    store.end_turn("b")
    assert store.take_turn("a", hold_s=5.0)
