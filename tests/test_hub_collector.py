"""The hub process's garbage collector kept off the event loop (issue 20: a full collection over 1,000
sockets' objects stood a hub process still for 300-430 ms under the bench), the stall notes the bench reads
to find such pauses, and the bench's links not holding small frames back (TCP_NODELAY).

Frozen objects are never walked by automatic collections, but nothing is lost for good: cyclic garbage
among them is freed by the real full collection the collector runs when one is due."""

from __future__ import annotations

import gc
import json
import socket
import threading
import time
import urllib.request
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.collector import Collector, settle_start_up
from hub.stalls import StallLog, read_stalls
from tests.hub_servers import CutProxy, running_hub
from tests.waiting import wait_until


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A two-object cycle nobody else holds, made from a function so no frame keeps it."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture
def thawed() -> Iterator[None]:
    """The test process's collector as it was: nothing left frozen by a test."""
    gc.unfreeze()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.collect()


def test_frozen_cyclic_garbage_waits_for_the_due_full_collection_and_is_freed_then(thawed: None) -> None:
    now = [0.0]
    collector = Collector(freeze_every_s=1.0, full_every_s=10.0, clock=lambda: now[0])
    a, b = Node(), Node()
    a.other, b.other = b, a
    held = weakref.ref(a)
    collector.step()  # the cycle survived: frozen
    assert gc.get_freeze_count() > 0
    del a, b
    gc.collect()  # an ordinary full collection does not walk frozen objects
    assert held() is not None, "a frozen cycle was walked by an ordinary collection"
    now[0] = 5.0
    collector.step()  # not due yet: only young objects collected
    assert held() is not None and collector.fulls == 0
    now[0] = 10.0
    collector.step()  # due: everything unfrozen and collected, then the survivors frozen again
    assert held() is None, "cyclic garbage among frozen objects was never freed: memory would grow"
    assert collector.fulls == 1 and collector.freezes == 3
    figures = collector.figures()  # other threads of the test process may freeze more meanwhile
    assert figures["freezes"] == 3 and figures["full_collections"] == 1 and figures["frozen"] > 0


def test_young_cyclic_garbage_is_freed_at_every_step(thawed: None) -> None:
    collector = Collector(freeze_every_s=1.0, full_every_s=100.0, clock=lambda: 0.0)
    young = cycle()
    collector.step()
    assert young() is None, "garbage made since the last step was frozen instead of freed"


def test_start_up_is_frozen(thawed: None) -> None:
    frozen = settle_start_up()
    # the frozen count is no lower bound for later: a frozen object whose last reference goes (another
    # thread's passing object) leaves the permanent generation; what start-up made must no longer be walked
    walked = len(gc.get_objects())
    assert frozen > 1000 and walked < frozen // 10, (frozen, walked)


def test_a_collector_refuses_a_full_collection_more_often_than_its_steps() -> None:
    with pytest.raises(ValueError, match="full_every_s"):
        Collector(freeze_every_s=10.0, full_every_s=5.0)
    with pytest.raises(ValueError, match="freeze_every_s"):
        Collector(freeze_every_s=0.0)


def test_stall_notes_collections_and_a_late_probe_within_the_window(tmp_path: Path) -> None:
    log = StallLog(tmp_path / "stalls-test.jsonl")
    start = time.time()
    log.install(lambda probe: threading.Thread(target=probe, daemon=True).start())
    try:
        gc.collect()
        time.sleep(0.3)
    finally:
        log.close()
    end = time.time()
    got = read_stalls(tmp_path / "stalls-test.jsonl", start, end)
    assert any(int(g[1]) == 2 for g in got["gc"]), got["gc"]
    assert len(got["lag"]) >= 10 and all(start <= s[0] <= end and s[1] > -0.005 for s in got["lag"])
    assert read_stalls(tmp_path / "stalls-test.jsonl", end + 1, end + 2) == {"gc": [], "lag": []}
    lines = (tmp_path / "stalls-test.jsonl").read_text().splitlines()
    assert all(set(json.loads(line)) == {"gc", "lag"} for line in lines)


def test_the_bench_links_stay_up_while_idle_and_do_not_hold_small_frames_back(tmp_path: Path) -> None:
    """A table's link in the bench is cut only when the bench cuts it: one idle for longer than its connect
    timeout (5 s) was closed under the table, whose next push was lost or found the link gone."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        link = CutProxy(server.getsockname()[1], "127.0.0.9")
        try:
            with socket.create_connection(("127.0.0.1", link.port), timeout=10) as client:
                upstream, _ = server.accept()
                with upstream:
                    upstream.settimeout(10)
                    client.sendall(b"ping")
                    assert upstream.recv(4) == b"ping"
                    assert len(link.conns) == 2
                    assert all(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in link.conns)
                    time.sleep(6.0)  # idle past the link's connect timeout
                    upstream.sendall(b"pong")
                    assert client.recv(4) == b"pong", "the idle link was closed"
                    client.sendall(b"again")
                    assert upstream.recv(5) == b"again"
        finally:
            link.close()


@pytest.mark.slow
def test_a_hub_process_freezes_survivors_and_says_so(tmp_path: Path) -> None:
    with running_hub(tmp_path, tables=1, workers=1) as hub:
        url = f"http://127.0.0.1:{hub.workers[0].port}/healthz"

        def figures() -> dict[str, int]:
            with urllib.request.urlopen(url, timeout=10) as resp:
                got: dict[str, int] = json.loads(resp.read())["collector"]
                return got

        first = figures()
        assert first["frozen"] > 1000, "start-up's objects were not frozen"
        wait_until(lambda: figures()["freezes"] >= 1, timeout=30, what="the hub's collector to take a step")
        assert figures()["full_collections"] == 0
