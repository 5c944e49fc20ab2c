"""The hub's spectators' broadcast, encoded and framed once per room and merged while sending: through
nginx and two hub processes on Redis, every spectator of a table, on a websocket or long-polling, gets
exactly the public part of every row the hub stored, once and in order, and never a card shown to the
front camera (a `shown` row's body stays empty)."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import socketio

from hub.namespaces import page_key, public_row
from hub.settings import load_hub_config
from hub.streams import HubStore
from tests.hub_servers import running_hub
from tests.hub_tables import SimTable
from tests.waiting import wait_until
from tracker.record.hub_push import HubPusher


def spectator(url: str, table: str, transport: str) -> tuple[socketio.Client, list[list[dict[str, Any]]]]:
    got: list[list[dict[str, Any]]] = []
    client = socketio.Client(reconnection=False)
    client.on("rows", got.append, namespace="/watch")
    client.connect(url, auth={"table": table}, namespaces=["/watch"], transports=[transport], wait_timeout=30)
    return client, got


def test_every_spectator_gets_each_public_row_once_in_order(tmp_path: Path) -> None:
    with running_hub(tmp_path, tables=2, delay_min=0.0) as hub:
        watchers = [("1", "websocket"), ("1", "websocket"), ("1", "polling"), ("2", "websocket"), ("2", "polling")]
        spectators = [(t, *spectator(hub.nginx.url, t, transport)) for t, transport in watchers]
        tables = {t: SimTable(tmp_path / f"table-{t}", seed=100 + int(t)) for t in ("1", "2")}
        stop = threading.Event()
        pushers = {t: HubPusher(hub.nginx.url, hub.token(t), tables[t].records) for t in tables}
        try:
            for t, pusher in pushers.items():
                tables[t].on_row.append(pusher.nudge)
                pusher.start(stop)
            for _ in range(12):  # bursts: several rows a push, and pushes closer than a delivery
                for table in tables.values():
                    table.write(5)
                time.sleep(0.05)
            # Each wait polls with its own deadline: one deadline shared by both let slow pushes leave the
            # spectators almost no time on a loaded machine.
            wait_until(lambda: all(pushers[t].stats.acked.get("game-001") == tables[t].last()["game-001"]
                                   for t in tables),
                       lambda: f"rows acknowledged {[(p.stats.acked, tables[t].last()) for t, p in pushers.items()]}")
            store = HubStore(hub.redis.url)
            expected = {t: [public_row(t, "game-001", {k: v for k, v in r.items() if k != "at"})
                            for r in store.rows(t, "game-001")] for t in tables}
            assert {t: len(rows) for t, rows in expected.items()} == {"1": 61, "2": 61}  # the start row, 60 written
            wait_until(lambda: all(sum(len(m) for m in got) >= len(expected[t]) for t, _, got in spectators),
                       lambda: f"rows seen {[(t, sum(len(m) for m in got)) for t, _, got in spectators]} of 61")
            time.sleep(0.5)  # anything sent twice would have arrived by now
            for t, _, got in spectators:
                assert [row for message in got for row in message] == expected[t]
            shown = [r for t, _, got in spectators for m in got for r in m if r["kind"] == "shown"]
            assert shown and all(r["body"] == {} for r in shown)
            # the organiser's replay view of the same game: only with the organiser's or judge's key
            replay = f"{hub.nginx.url}/organiser/tables/1/games/game-001/replay"
            key = page_key(load_hub_config(hub.config), "judge")
            with urllib.request.urlopen(f"{replay}?k={key}", timeout=10) as resp:
                page = resp.read().decode()
            assert resp.status == 200 and "/static/replay.js" in page and 'data-game="game-001"' in page
            with pytest.raises(urllib.error.HTTPError, match="403"):
                urllib.request.urlopen(f"{replay}?k=wrong", timeout=10)
        finally:
            stop.set()
            for _, client, _ in spectators:
                client.disconnect()
            for table in tables.values():
                table.close()
