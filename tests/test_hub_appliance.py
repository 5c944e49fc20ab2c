"""A real table runtime with `[hub]` in its table.toml pushes its game to a running hub: the appliance
starts the pusher, each recorded row nudges it, and the organiser's status comes from the judge's view."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from hub.streams import HubStore
from rules.kipukas.board_map import BoardMap
from tests.hub_servers import running_hub
from tests.table_helpers import DECKS
from tracker.api import player
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
            end = time.monotonic() + 60  # polled; the deadline is for a loaded machine
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
            assert runtime.service.call_judge(player("blue")) == {"hub": True}  # the phone's button
            end = time.monotonic() + 60
            while time.monotonic() < end and "judge_called" not in store.statuses().get("1", {}):
                time.sleep(0.1)
            assert "judge_called" in store.statuses()["1"]
        finally:
            stop.set()
            runtime.close()


def test_a_player_calls_a_judge_from_the_phone_and_only_a_player_can(tmp_path: Path) -> None:
    from tests.test_web_support import auth_for, close_all, connect, new_service, running

    service = new_service(tmp_path)
    calls: list[str] = []
    service.judge_callers.append(calls.append)  # what the appliance wires to the hub pusher
    with running(service) as server:
        red, spectator = connect(server, "red", auth_for(service, "red")), connect(server, "spectator", None)
        try:
            assert red.call("call_judge", {}) == {"ok": True, "hub": True}
            denied = spectator.call("call_judge", {})
            assert denied["ok"] is False and denied["kind"] == "denied"
        finally:
            close_all([red, spectator])
    assert calls == ["red"] and "red called a judge" in service.table.warnings
