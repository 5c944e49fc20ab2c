"""The hub's roles and limits on real servers: table tokens (only their own records, a pinned key),
organiser/judge/spectator pages under a strict CSP, pairings as CSV, the tournament-wide delay, and the
hub's configuration errors."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio

from hub.namespaces import page_key
from hub.settings import load_hub_config, parse_hub_config, token_hash
from hub.streams import HubStore
from tests.hub_servers import Hub, running_hub
from tests.hub_tables import SimTable
from tracker.config import ConfigError, parse_config

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    # a delay of 0.03 min (1.8 s) stands in for the tournament's 15 minutes
    with running_hub(tmp_path_factory.mktemp("hub"), tables=3, delay_min=0.03) as running:
        yield running


def connect(hub: Hub, namespace: str, auth: dict[str, Any]) -> socketio.Client:
    client = socketio.Client(reconnection=False)
    client.connect(hub.nginx.url, auth=auth, namespaces=[namespace], transports=["websocket"], wait_timeout=10)
    return client


def head_of(table: SimTable) -> dict[str, Any]:
    seq, digest, sig = table.games[-1]._db.execute("SELECT seq, hash, signature FROM head").fetchone()
    return {"seq": seq, "hash": digest, "signature": sig}


def http(url: str, data: bytes | None = None) -> tuple[int, str, dict[str, str]]:
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode(), dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def test_a_wrong_token_is_refused_and_a_token_writes_only_its_own_table(hub: Hub, tmp_path: Path) -> None:
    with pytest.raises(socketio.exceptions.ConnectionError):
        connect(hub, "/push", {"token": "not-a-table-token"})
    table = SimTable(tmp_path, seed=11)
    table.write(4)
    client = connect(hub, "/push", {"token": hub.token("2")})
    try:
        key = table.games[-1]._meta("public_key")
        assert client.call("hello", {"game": "game-001", "public_key": key, "table": "1"},
                           namespace="/push")["table"] == "2"
        rows = [r.to_json() for r in table.rows("game-001")]
        answer = client.call("rows", {"game": "game-001", "table": "1", "rows": rows, "head": head_of(table)},
                             namespace="/push")
        assert answer == {"acked": 5, "duplicates": 0, "witnessed": True}
        store = HubStore(hub.redis.url)
        assert store.games("1") == [] and store.top("2", "game-001") == 5  # the claim "table 1" counts for nothing
    finally:
        client.disconnect()
        table.close()


def test_a_table_showing_another_key_is_refused_and_a_forged_head_is_not_witnessed(hub: Hub, tmp_path: Path) -> None:
    first, impostor = SimTable(tmp_path / "a", seed=12), SimTable(tmp_path / "b", seed=13)
    client = connect(hub, "/push", {"token": hub.token("3")})
    try:
        assert "acked" in client.call("hello", {"game": "game-001", "public_key": first.games[-1]._meta("public_key")},
                                      namespace="/push")
        refused = client.call("hello", {"game": "game-002", "public_key": impostor.games[-1]._meta("public_key")},
                              namespace="/push")
        assert "pinned to another key" in refused["error"]
        first.write(2)
        forged = head_of(impostor) | {"seq": 3, "hash": first.rows("game-001")[-1].hash}
        answer = client.call("rows", {"game": "game-001", "rows": [r.to_json() for r in first.rows("game-001")],
                                      "head": forged}, namespace="/push")
        assert answer["acked"] == 3 and "does not verify" in answer["error"] and "witnessed" not in answer
        assert HubStore(hub.redis.url).heads("3", "game-001") == []
    finally:
        client.disconnect()
        first.close()
        impostor.close()


def test_spectators_get_public_rows_only_after_the_tournament_delay(hub: Hub, tmp_path: Path) -> None:
    table = SimTable(tmp_path, seed=14)
    got: list[tuple[float, dict[str, Any]]] = []
    watcher = socketio.Client(reconnection=False)
    watcher.on("rows", lambda rows: got.extend((time.time(), r) for r in rows), namespace="/watch")
    watcher.connect(hub.nginx.url, auth={"table": "1"}, namespaces=["/watch"], transports=["websocket"])
    pusher = connect(hub, "/push", {"token": hub.token("1")})
    try:
        record = table.games[-1]
        record.append("shown", "front", {"card": "HMPU#0004", "known": True})
        record.append("action", "phone:red", {"text": "red move T1", "accepted": True})
        pusher.call("hello", {"game": "game-001", "public_key": record._meta("public_key")}, namespace="/push")
        sent = time.time()
        pusher.call("rows", {"game": "game-001", "rows": [r.to_json() for r in table.rows("game-001")]},
                    namespace="/push")
        time.sleep(0.8)
        assert got == [], "spectators saw rows before the tournament's delay"
        end = time.time() + 60  # polled: 3 s here; the deadline is for a loaded machine
        while len(got) < 3 and time.time() < end:
            time.sleep(0.1)
        assert [r["seq"] for _, r in got] == [1, 2, 3]
        assert all(at - sent >= 1.7 for at, _ in got)
        shown = got[1][1]
        assert shown["kind"] == "shown" and shown["body"] == {}  # which card: never to spectators
        assert got[2][1]["body"] == {"text": "red move T1", "accepted": True}
    finally:
        watcher.disconnect()
        pusher.disconnect()
        table.close()


def test_organiser_and_judge_roles_pairings_csv_and_downloads(hub: Hub, tmp_path: Path) -> None:
    with pytest.raises(socketio.exceptions.ConnectionError):
        connect(hub, "/organiser", {"pin": "0000"})
    cfg = load_hub_config(hub.config)
    org, judge = page_key(cfg, "organiser"), page_key(cfg, "judge")
    base = hub.nginx.url + "/organiser/pairings.csv"
    csv = "round,table,red,blue,result\n1,1,Ana,Ben,\n1,2,Cy,Dee,draw\n"
    assert http(f"{base}?k={judge}", csv.encode())[0] == 403  # a judge reads, never imports
    assert http(base)[0] == 403
    status, body, _ = http(f"{base}?k={org}", b"round,table,red,blue\n1,1,Ana,\n")
    assert status == 400 and "line 2: red/blue" in json.loads(body)["error"]
    assert http(f"{base}?k={org}", csv.encode())[:2] == (200, '{"imported": 2}')
    client = connect(hub, "/organiser", {"pin": hub.organiser_pin})
    seen: dict[str, Any] = {}
    client.on("welcome", lambda w: seen.update(w), namespace="/organiser")
    try:
        answer = client.call("result", {"round": "1", "table": "1", "result": "red"}, namespace="/organiser")
        assert answer == {"ok": True}
        overview = client.call("overview", None, namespace="/organiser")
        assert overview["standings"][0] == {"player": "Ana", "points": 1.0, "played": 1}
        assert overview["rounds"] == [1] and overview["standings_by_round"]["1"] == overview["standings"]
        assert {s["player"]: s["points"] for s in overview["standings"]} == {"Ana": 1.0, "Ben": 0.0, "Cy": 0.5,
                                                                             "Dee": 0.5}
    finally:
        client.disconnect()
    judge_client = connect(hub, "/organiser", {"pin": hub.judge_pin})
    try:
        assert "only the organiser" in judge_client.call("result", {"round": "1", "table": "1", "result": "blue"},
                                                         namespace="/organiser")["error"]
    finally:
        judge_client.disconnect()
    status, body, _ = http(f"{base}?k={judge}")
    assert status == 200 and body.splitlines()[1] == "1,1,Ana,Ben,red"
    table = SimTable(tmp_path, seed=15)
    table.write(3)
    pusher = connect(hub, "/push", {"token": hub.token("2")})
    try:
        pusher.call("hello", {"game": "game-009", "public_key": table.games[-1]._meta("public_key")}, namespace="/push")
        pusher.call("rows", {"game": "game-009", "rows": [r.to_json() for r in table.rows("game-001")]},
                    namespace="/push")
    finally:
        pusher.disconnect()
    rows_url = hub.nginx.url + "/organiser/tables/2/games/game-009.jsonl"
    assert http(rows_url)[0] == 403
    status, body, _ = http(f"{rows_url}?k={judge}")
    assert status == 200 and body.splitlines() == [json.dumps(r.to_json(), sort_keys=True)
                                                   for r in table.rows("game-001")]  # as `log export` writes
    table.close()


def test_pages_carry_a_strict_csp_and_load_only_local_assets(hub: Hub) -> None:
    for path in ("/", "/organiser", "/watch/1"):
        status, body, headers = http(hub.nginx.url + path)
        assert status == 200 and "script-src 'self'" in headers["Content-Security-Policy"]
        assert "<script>" not in body and "http://" not in body and "https://" not in body
    assert http(hub.nginx.url + "/watch/99")[0] == 404
    assert http(hub.nginx.url + "/static/socket.io.min.js")[0] == 200


def test_hub_and_table_configs_name_what_is_wrong(tmp_path: Path) -> None:
    good = ('[hub]\nredis_url = "redis://:pw@127.0.0.1:6379/0"\norganiser_pin = "1234"\n'
            'secret = "0123456789abcdef"\n[tables]\n"1" = "' + token_hash("t") + '"\n')
    assert parse_hub_config(good).table_of("t") == "1"
    with pytest.raises(ConfigError, match=r"\[hub\] redis_url: .*password"):
        parse_hub_config(good.replace(":pw@", ""))
    with pytest.raises(ConfigError, match=r"\[tables\] 1: expected the SHA-256"):
        parse_hub_config(good.replace(token_hash("t"), "secret-token"))
    with pytest.raises(ConfigError, match=r"\[hub\] colour: unknown key"):
        parse_hub_config(good.replace("[tables]", 'colour = "red"\n[tables]'))
    cfg = parse_config('[hub]\nurl = "http://hub.local:8080"\ntoken = "abc"\n')
    assert (cfg.hub_url, cfg.hub_token) == ("http://hub.local:8080", "abc")
    with pytest.raises(ConfigError, match=r"\[hub\] token: the hub needs both"):
        parse_config('[hub]\nurl = "http://hub.local"\n')
    with pytest.raises(ConfigError, match=r"\[hub\] url: 'ftp://x' is not"):
        parse_config('[hub]\nurl = "ftp://x"\ntoken = "abc"\n')


def test_hub_token_command_prints_a_token_and_only_its_hash_for_hub_toml(capsys: pytest.CaptureFixture[str],
                                                                         tmp_path: Path) -> None:
    from tracker.cli import main

    assert main(["hub", "token", "--table", "7"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["table"] == "7" and out["hub_toml"] == f'"7" = "{token_hash(out["token"])}"'
    assert out["token"] not in out["hub_toml"]
    assert main(["hub"]) == 2 and "needs --config" in capsys.readouterr().err
    bad = tmp_path / "hub.toml"
    bad.write_text('[hub]\nredis_url = "redis://127.0.0.1"\n', encoding="utf-8")
    assert main(["hub", "--config", str(bad)]) == 2 and "[hub] redis_url" in capsys.readouterr().err
