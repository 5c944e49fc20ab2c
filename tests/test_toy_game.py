"""Adding a game touches only its registration (issue 22, "Done when"): a toy game (`tests/toy_game.py`,
two seats, a hidden hand) registered with `rules.core.registry.register` and nothing else is started by
`game new`, served by the function `run` serves other games with (a real web server, real Socket.IO
clients tapping the actions their own state lists), keeps each hand from the other seat and from
spectators, lets the judge undo, and leaves a signed record that `log verify`, `log state` and
`log export` read and that replays to the same state. The tracker and the pages name no game but
Kipukas (checked below over their code)."""

from __future__ import annotations

import ast
import json
import random
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio

from rules.core import registry
from rules.core.selfplay import choose
from tests import toy_game
from tests.hub_servers import free_port
from tracker.cli import main
from tracker.commands.run import serve_interface_game
from tracker.config import parse_config
from tracker.record.store import GameRecord
from tracker.runtime.watchdog import Watchdog
from tracker.table.games import GameTable

ROOT = Path(__file__).resolve().parents[1]
PIN = "8642"


@pytest.fixture
def toy() -> Iterator[None]:
    registry.register(toy_game.NAME, toy_game.new, toy_game.example)
    yield
    registry.unregister(toy_game.NAME)


class Phone:
    """A real Socket.IO client on the table's page namespace, keeping every state it received."""

    def __init__(self, port: int, auth: dict[str, str]) -> None:
        self.states: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.client = socketio.Client()
        self.client.on("state", self._state, namespace="/table")
        self.client.connect(f"http://127.0.0.1:{port}", namespaces=["/table"], wait_timeout=10, auth=auth)

    def _state(self, state: dict[str, Any]) -> None:
        self.raw.append(json.dumps(state))
        self.states.append(state)

    def call(self, event: str, data: dict[str, Any]) -> dict[str, Any]:
        ack: dict[str, Any] = self.client.call(event, data, namespace="/table", timeout=10)
        return ack

    def wait_for(self, seq: int) -> dict[str, Any]:
        end = time.monotonic() + 10
        while time.monotonic() < end:
            if self.states and self.states[-1]["seq"] >= seq:
                return self.states[-1]
            time.sleep(0.02)
        raise AssertionError(f"no state at row {seq} within 10 s")


def connect(port: int, auth: dict[str, str]) -> Phone:
    end = time.monotonic() + 30
    while True:
        try:
            return Phone(port, auth)
        except socketio.exceptions.ConnectionError:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)


def test_a_game_added_by_registration_alone_is_played_from_phones(tmp_path: Path, toy: None,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    state_dir, port = tmp_path / "state", free_port()
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nplayers = ["red", "blue"]\nstate_dir = "{state_dir}"\njudge_pin = "{PIN}"\n'
                      f'[web]\nport = {port}\n[overhead]\nsource = "none"\n[game]\nname = "toy"\ntarget = 6\n',
                      encoding="utf-8")
    assert main(["game", "new", "--config", str(config)]) == 0
    started = json.loads(capsys.readouterr().out)
    assert started["game"] == "toy" and started["players"] == ["red", "blue"] and started["rows"] == 1
    record = Path(started["record"])
    assert main(["game", "status", "--config", str(config)]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["game"] == "toy" and status["verified"] and status["result"] is None
    assert status["view"]["players"]["red"]["hand"] == 0  # the status command shows the spectator's view

    stop, dog = threading.Event(), Watchdog(stall_s=20.0)
    cfg = parse_config(config.read_text(encoding="utf-8"))
    server = threading.Thread(target=serve_interface_game, args=(cfg, state_dir, (record, dog, stop)), daemon=True)
    server.start()
    try:
        judge = connect(port, {"pin": PIN})
        tokens = json.loads((state_dir / "seats.json").read_text(encoding="utf-8"))
        phones = {seat: connect(port, {"token": tokens[seat]}) for seat in ("red", "blue")}
        spectator = connect(port, {})
        seq = judge.wait_for(1)["seq"]
        assert seq == 1
        # a seat may not act for the other one, and the rules refuse out of turn: nothing is lost
        ack = phones["red"].call("act", {"text": "blue draw 1"})
        assert not ack["ok"], ack
        rng = random.Random(22)
        for turn in range(40):
            seat = ("red", "blue")[turn % 2]
            mine = phones[seat].wait_for(seq)
            assert {g["seat"] for g in mine["actions"]} == {seat}  # taps offered only for the phone's seat
            other = "blue" if seat == "red" else "red"
            assert not phones[other].wait_for(seq)["actions"]
            line = choose([o["text"] for g in mine["actions"] for o in g["options"]], rng, {"play": 2.0})
            ack = phones[seat].call("act", {"text": line})
            assert ack["ok"] and ack["entry"]["accepted"] and ack["entry"]["action"] == line, ack
            seq = ack["entry"]["seq"]
            if judge.wait_for(seq)["result"]:
                break
        final = judge.wait_for(seq)
        assert final["result"] and "#toy_win" in str(final["result"])
        # the judge takes back the winning play; the game goes on
        ack = judge.call("undo", {"reason": "misplayed"})
        assert ack["ok"], ack
        seq += 1
        assert not judge.wait_for(seq)["result"]
        for who in (*phones.values(), spectator):
            who.wait_for(seq)
        drawn = {s: [e["action"] for e in judge.states[-1]["log"] if e["action"].startswith(f"{s} draw")]
                 for s in ("red", "blue")}
        assert drawn["red"] and drawn["blue"]
        for seat, phone in phones.items():
            other = "blue" if seat == "red" else "red"
            for state in phone.states:  # the other seat's hand is a count, never its cards
                assert isinstance(state["view"]["players"][other]["hand"], int)
                assert isinstance(state["view"]["players"][seat]["hand"], list)
            log = [e["action"] for e in phone.states[-1]["log"]]
            assert set(drawn[seat]) <= set(log) and f"{other} draw ?" in log
            assert not any(re.search(rf"{other} draw [0-9]", raw) for raw in phone.raw)
        for state in spectator.states:
            assert all(isinstance(p["hand"], int) for p in state["view"]["players"].values())
        assert not any(re.search(r"(red|blue) draw [0-9]", raw) for raw in spectator.raw)
        before = final_text = judge.states[-1]["state_text"]
        for who in (judge, *phones.values(), spectator):
            who.client.disconnect()
    finally:
        stop.set()
        server.join(timeout=30)
    assert not server.is_alive()
    assert f"toy table 'table' on http://127.0.0.1:{port}/" in capsys.readouterr().out

    # the signed record replays to the same state, verifies, and is read by the log commands
    rec = GameRecord(str(record), readonly=True)
    try:
        again = GameTable.open(rec)
        assert again.game.to_text() == final_text and again.name == "toy" and again.game.seats == ("red", "blue")
    finally:
        rec.close()
    assert main(["log", "verify", str(record), "--state", str(state_dir)]) == 0
    verified = json.loads(capsys.readouterr().out)
    assert verified["ok"] and verified["rows"] == seq
    assert main(["log", "state", str(record)]) == 0
    assert capsys.readouterr().out == f"# toy state after row {seq} of {seq}\n{before}\n"
    out = tmp_path / "record.json"
    assert main(["log", "export", str(record), "--format", "json", "--out", str(out)]) == 0
    capsys.readouterr()
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert [r["kind"] for r in rows][:2] == ["start", "action"] and rows[0]["body"]["game"] == "toy"
    assert rows[-1]["kind"] == "undo"


def _code_strings(path: Path) -> list[str]:
    """The string constants of a Python file that are not docstrings (help texts, keys, messages)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs]


# A file format id, not a game: tile layout files (tracker/overhead/tiles.py) keep the name they were
# published under, so existing layout files still load.
FORMAT_IDS = ("tilemap-layout/1",)


def test_the_tracker_and_the_pages_name_no_game_but_kipukas() -> None:
    """The other games reach the tracker and the pages only through the registry: no code string (help
    texts and messages included; docstrings may give examples) names one of them."""
    found: list[str] = []
    for path in sorted([*(ROOT / "tracker").rglob("*.py"), *(ROOT / "web").rglob("*.py")]):
        for text in _code_strings(path):
            if re.search(r"kaiju|tilemap|tile-map", text) and text not in FORMAT_IDS:
                found.append(f"{path.relative_to(ROOT)}: {text!r}")
    for path in sorted([*(ROOT / "web" / "static").glob("*.js"), *(ROOT / "web" / "templates").glob("*.html")]):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"kaiju|tilemap|tile-map", line, re.IGNORECASE):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_command_line_offers_a_registered_game(toy: None, capsys: pytest.CaptureFixture[str]) -> None:
    """`game new --help` and `demo --help` list the games of the registry, a registered one included."""
    for command in (["game", "new", "--help"], ["demo", "--help"]):
        with pytest.raises(SystemExit):
            main(command)
        assert "toy" in capsys.readouterr().out


def test_the_order_a_configuration_gives_survives_the_record(tmp_path: Path, toy: None) -> None:
    """A row's body is stored with sorted keys; a game that reads its seating order from a mapping (kaiju's
    seats, the toy's decks) must replay in the order it was started in, or a restart referees another game."""
    from rules.core.registry import example
    from tracker.errors import RecordError
    from tracker.record.keys import load_or_create_key
    from tracker.table.games import replay

    key = load_or_create_key(tmp_path / "state")
    for name, seats in (("toy", ["red", "green", "blue"]), ("kaiju", ["yellow", "red", "blue"])):
        record = GameRecord(str(tmp_path / f"{name}.sqlite"), key)
        table = GameTable.start(record, name, example(name, seats))
        assert table.game.seats == tuple(seats)
        line = table.game.legal_actions()[0]
        assert table.act(line, "judge").accepted
        assert replay(record).seats == tuple(seats) and replay(record).to_text() == table.game.to_text()
        record.close()
    # a record written before `config_text`: the seats' mapping is put back in the start row's order
    old = GameRecord(str(tmp_path / "old.sqlite"), key)
    old.append("start", "tracker", {"game": "toy", "config": example("toy", ["red", "green", "blue"]),
                                    "players": ["red", "green", "blue"]})
    assert replay(old).seats == ("red", "green", "blue")
    old.close()
    # a start row whose players the configuration does not seat is refused, naming both
    bad = GameRecord(str(tmp_path / "bad.sqlite"), key)
    bad.append("start", "tracker", {"game": "toy", "config": example("toy", ["red", "blue"]),
                                    "players": ["red", "green"]})
    with pytest.raises(RecordError, match="start row seats red, green, but its configuration seats blue, red"):
        replay(bad)
    bad.close()
