"""A real table runtime with `[hub]` in its table.toml pushes its game to a running hub: the appliance
starts the pusher, each recorded row nudges it, and the organiser's status comes from the judge's view."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from hub.streams import HubStore
from rules.board_map import BoardMap
from tests.hub_servers import running_hub
from tests.table_helpers import DECKS
from tracker.config import parse_config
from tracker.runtime.appliance import TableRuntime, new_game

pytestmark = pytest.mark.slow


def test_a_table_with_a_hub_in_its_config_pushes_its_record_and_status(tmp_path: Path) -> None:
    with running_hub(tmp_path / "hub", tables=1, workers=1) as hub:
        cfg = parse_config(f'[hub]\nurl = "{hub.nginx.url}"\ntoken = "{hub.token("1")}"\n'
                           '[overhead]\nsource = "none"\n[recording]\nkeyframes = false\n')
        state = tmp_path / "state"
        table = new_game(state, DECKS, BoardMap.packaged())
        stop = threading.Event()
        runtime = TableRuntime(cfg, table, state, stop=stop)
        runtime.start()
        try:
            table.act("phone:red", "red affinity Avian")
            table.warn("overhead camera lost: no frame for 2 s")
            store, game = HubStore(hub.redis.url), Path(table.record.path).stem
            end = time.monotonic() + 20
            while time.monotonic() < end and not (
                    store.top("1", game) == table.record.last_seq
                    and "overhead camera lost" in str(store.statuses().get("1", {}).get("warnings"))):
                time.sleep(0.1)
            assert runtime.hub is not None and runtime.hub.stats.connected
            held = store.rows("1", game)
            assert [r["hash"] for r in held] == [r.hash for r in table.record.rows()]
            status = store.statuses()["1"]
            assert status["players"] == ["blue", "red"] and status["game"] == game and status["phase"]
            assert int(store.heads("1", game)[-1]["seq"]) == table.record.last_seq
        finally:
            stop.set()
            runtime.close()
