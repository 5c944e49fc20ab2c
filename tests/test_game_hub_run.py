"""The two games at a real table: `kipukas-tracker run` as a real process serving a tile-map table to a
real Socket.IO client (and the runtime resuming it from its record), and a kaiju table pushing its signed record to a
real hub (redis-server, nginx, hub processes) with the drawn cards' names kept from spectators."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import socketio

from hub.namespaces import public_row
from hub.streams import HubStore
from rules.core.selfplay import choose
from rules.kaiju.decks import preconstructed
from tests.hub_servers import free_port, running_hub
from tracker.cli import main
from tracker.config import parse_config
from tracker.record.keys import load_or_create_key
from tracker.record.store import GameRecord
from tracker.runtime.game_runtime import GameRuntime
from tracker.service.seats import JUDGE

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]


def start_game(tmp_path: Path, game: str, capsys: pytest.CaptureFixture[str], extra: str = "") -> tuple[Path, Path]:
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nplayers = ["red", "blue"]\nstate_dir = "{tmp_path / "state"}"\n'
                      f'[web]\nport = {free_port()}\n[overhead]\nsource = "none"\n[game]\nname = "{game}"\n{extra}',
                      encoding="utf-8")
    assert main(["game", "new", "--config", str(config)]) == 0
    return config, Path(json.loads(capsys.readouterr().out)["record"])


def serve(config: Path) -> tuple[subprocess.Popen[str], socketio.Client, list[dict[str, Any]]]:
    port = int(config.read_text(encoding="utf-8").split("port = ")[1].split()[0])
    proc = subprocess.Popen([sys.executable, "-m", "tracker.cli", "run", "--config", str(config)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    states: list[dict[str, Any]] = []
    client = socketio.Client()
    client.on("state", states.append, namespace="/table")
    deadline = time.monotonic() + 60
    while True:
        try:
            client.connect(f"http://127.0.0.1:{port}", namespaces=["/table"], wait_timeout=5,
                           auth={"pin": ""})  # a judge on the Pi itself (no PIN configured)
            return proc, client, states
        except socketio.exceptions.ConnectionError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise AssertionError(f"run did not serve: {proc.communicate()[1]}") from None
            time.sleep(0.3)


def stop(proc: subprocess.Popen[str], client: socketio.Client) -> str:
    client.disconnect()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    return out


def test_run_serves_a_tilemap_table_and_resumes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config, record = start_game(tmp_path, "tilemap", capsys, 'map = "skirmish"\n')
    proc, client, states = serve(config)
    rng = random.Random(9)
    try:
        for _ in range(3):
            lines = [o["text"] for g in states[-1]["actions"] for o in g["options"]]
            ack = client.call("act", {"text": choose(lines, rng, {"end": 0.5})}, namespace="/table", timeout=10)
            assert ack["ok"] and ack["entry"]["accepted"], ack
            seq = ack["entry"]["seq"]
            end = time.monotonic() + 10
            while states[-1]["seq"] < seq and time.monotonic() < end:
                time.sleep(0.05)
        before = states[-1]["state_text"]
    finally:
        out = stop(proc, client)
    assert "tilemap table" in out and str(record) in out
    # A restart replays the record to the same state (what `run` builds for the game in progress).
    again = GameRuntime(parse_config(config.read_text(encoding="utf-8")), record, tmp_path / "state")
    try:
        state = again.service.snapshot(JUDGE)
        assert state["state_text"] == before and state["seq"] == 4
    finally:
        again.close()
    assert main(["log", "verify", str(record)]) == 0
    capsys.readouterr()
    assert main(["log", "state", str(record)]) == 0
    assert capsys.readouterr().out == f"# tilemap state after row 4 of 4\n{before}\n"
    sheet = tmp_path / "sheet.html"
    assert main(["log", "export", str(record), "--format", "sheet", "--out", str(sheet)]) == 0
    assert "<h1>tilemap score sheet</h1>" in sheet.read_text(encoding="utf-8")


def test_a_kaiju_table_pushes_to_the_hub_without_the_drawn_cards(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with running_hub(tmp_path / "hub", tables=1, workers=1) as hub:
        config, record = start_game(tmp_path, "kaiju", capsys,
                                    f'[hub]\nurl = "{hub.nginx.url}"\ntoken = "{hub.token("1")}"\n')
        cfg = parse_config(config.read_text(encoding="utf-8"))
        halt = threading.Event()
        runtime = GameRuntime(cfg, record, tmp_path / "state", stop=halt)
        runtime.start()
        try:
            rng = random.Random(2)
            for _ in range(30):
                runtime.service.act(JUDGE, choose(runtime.table.game.legal_actions(), rng, {"keep": 3.0}))
            store, game, last = HubStore(hub.redis.url), record.stem, runtime.table.record.last_seq
            end = time.monotonic() + 20
            while time.monotonic() < end and store.top("1", game) != last:
                time.sleep(0.1)
            held = store.rows("1", game)
            assert [r["hash"] for r in held] == [r.hash for r in runtime.table.record.rows()]
            assert int(store.heads("1", game)[-1]["seq"]) == last
            draws = [r.body["text"] for r in runtime.table.record.rows(kinds=("action",)) if " draw " in r.body["text"]]
            public = json.dumps([public_row("1", game, r) for r in held])
            assert draws and not any(d in public for d in draws) and "draw planning ?" in public
            end = time.monotonic() + 10
            while time.monotonic() < end and store.statuses().get("1", {}).get("game") != game:
                time.sleep(0.1)
            assert sorted(store.statuses()["1"]["players"]) == ["blue", "red"]
        finally:
            halt.set()
            runtime.close()


def test_the_runtime_follows_game_new_to_another_game_and_its_seats(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from tracker.runtime.appliance import fresh_record, make_current
    from tracker.service.seats import player
    from tracker.table.games import GameTable

    config, record = start_game(tmp_path, "tilemap", capsys, 'map = "skirmish"\n')
    state = tmp_path / "state"
    runtime = GameRuntime(parse_config(config.read_text(encoding="utf-8")), record, state)
    try:
        key, version = runtime.service.judge_key(), runtime.service.version()
        path = fresh_record(state)
        GameTable.start(GameRecord(str(path), load_or_create_key(state)), "kaiju",
                        {**preconstructed(3)}).record.close()
        make_current(path)
        assert runtime.switch_game() and runtime.service.game == "kaiju"
        assert sorted(runtime.service.seats.players) == ["blue", "green", "red"] and runtime.service.judge_key() == key
        assert runtime.service.version() > version
        assert runtime.service.snapshot(player("green"))["actions"]  # the new seat acts from its phone
    finally:
        runtime.close()
