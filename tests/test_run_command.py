"""`kipukas-tracker run` as a real process: recorded overhead frames and real front-camera photos from
folders, a real Socket.IO client, keyframes on disk, SIGTERM, and a record that verifies."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import pytest
import socketio

from rules.kipukas.catalog import Catalog
from rules.kipukas.compiled import native_dir, package_dir
from tracker.cli import main

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]


def deck_lines(serial_base: int) -> list[str]:
    """A legal 30-card deck: one of each character, two of each species (distinct serials)."""
    cards = Catalog.packaged().cards.values()
    lines = [f"kpks.us/{c.code}#{serial_base + 1:04d}?t{serial_base}" for c in cards if c.type == "Character"]
    for c in cards:
        if c.type == "Species":
            lines += [f"kpks.us/{c.code}#{serial_base + n:04d}?s{n}" for n in (1, 2)]
    return lines[:30]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def table_dir(tmp_path: Path, shared_dir: Path) -> tuple[Path, int]:
    from calibration.camera import default_pose
    from rules.kipukas.board_map import BoardMap
    from tracker.overhead.layout import table_layout
    from vision.synth import Renderer, TableScene, Token

    overhead, front = tmp_path / "overhead", tmp_path / "front"
    overhead.mkdir()
    front.mkdir()
    layout = table_layout(BoardMap.packaged())
    renderer = Renderer(layout, default_pose(layout), {"red": (40, 40, 210), "blue": (200, 90, 30)})
    boards = [{}, {"T7": Token("capital", "red")}, {"T7": Token("capital", "red"), "T4": Token("capital", "blue")}]
    n = 0
    for tokens in boards:
        for _ in range(4):
            n += 1
            frame = renderer.render(TableScene(dict(tokens), {}, 0), seed=n)
            cv2.imwrite(str(overhead / f"{n:04d}.jpg"), frame)
    for name in ("capture_0002.jpg", "capture_0006.jpg"):
        shutil.copy(shared_dir / "kipukas" / "qr-photos-dev" / name, front / name)
    (tmp_path / "red.txt").write_text("\n".join(deck_lines(0)) + "\n")
    (tmp_path / "blue.txt").write_text("\n".join(deck_lines(100)) + "\n")
    port = free_port()
    (tmp_path / "table.toml").write_text(f"""
[table]
name = "test table"
state_dir = "{tmp_path / 'state'}"
[overhead]
source = "folder"
path = "overhead"
fps = 20
[front]
source = "folder"
path = "front"
fps = 2
[web]
port = {port}
""")
    return tmp_path, port


def test_run_tracks_recordings_and_stops_cleanly(table_dir: tuple[Path, int]) -> None:
    folder, port = table_dir
    cmd = [sys.executable, "-m", "tracker.cli", "run", "--config", str(folder / "table.toml"),
           "--deck", f"red={folder / 'red.txt'}", "--deck", f"blue={folder / 'blue.txt'}"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    states: list[dict[str, Any]] = []
    client = socketio.Client()
    client.on("state", states.append, namespace="/table")
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                client.connect(f"http://127.0.0.1:{port}", namespaces=["/table"], wait_timeout=5)
                break
            except socketio.exceptions.ConnectionError:
                time.sleep(0.3)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as resp:
            health = json.load(resp)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if states and any("recording ended" in w for w in states[-1]["warnings"]) \
                    and sum("recording ended" in w for w in states[-1]["warnings"]) >= 2:
                break
            time.sleep(0.2)
        client.disconnect()
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "kipukas-tracker run: table 'test table'" in out
    # the operator can tell which rules engine runs: the start-up line and /healthz say the same
    engine = "interpreted" if native_dir(package_dir(), os.environ) is None else "compiled"
    assert f"kipukas-tracker run: rules engine {engine} (" in out and health["rules_engine"] == engine
    final = states[-1]
    log = [(e["action"], e["accepted"], e["rule"]) for e in final["log"]]
    # Capitals before affinities are out of order: the camera saw them, the rules rejected them.
    assert ("red capital 7", False, "#game_setup") in log
    assert final["stands"] == {} and final["observed"]["T4"]["kind"] == "capital"
    assert not final["in_sync"] and any("T7" in d for d in final["differences"])
    # Both photos' cards were shown to the front camera; neither is in the decks, so no question.
    state_dir = folder / "state"
    record = next((state_dir / "records").glob("game-*.sqlite"))
    keyframes = sorted(p.name for p in (state_dir / "keyframes" / record.stem).iterdir())
    assert any(k.endswith("-overhead.jpg") for k in keyframes)
    assert main(["log", "verify", str(record)]) == 0
    rows = [json.loads(line) for line in subprocess.run(
        [sys.executable, "-m", "tracker.cli", "log", "export", str(record)], cwd=ROOT, capture_output=True,
        text=True, check=True).stdout.splitlines()]
    shown = [r["body"]["card"] for r in rows if r["kind"] == "shown"]
    assert set(shown) == {"jKPw#0002", "ro1A#0002"}
    assert all("?" not in json.dumps(r) for r in rows if r["kind"] == "shown")  # tokens never recorded
    assert (state_dir / "table_key.pem").stat().st_mode & 0o077 == 0


def test_service_waits_for_a_game_then_follows_game_new(table_dir: tuple[Path, int],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder, port = table_dir
    cfg = str(folder / "table.toml")
    assert main(["game", "status", "--config", cfg]) == 0
    assert json.loads(capsys.readouterr().out) == {"record": None}
    errors = (folder / "stderr.log").open("w")  # drained to a file: a full pipe would stall the tracker
    proc = subprocess.Popen([sys.executable, "-m", "tracker.cli", "run", "--config", cfg], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        assert proc.stdout is not None
        assert "no game in progress" in proc.stdout.readline()  # up, and waiting: not a failed service
        assert main(["game", "new", "--config", cfg, "--deck", f"red={folder / 'red.txt'}",
                     "--deck", f"blue={folder / 'blue.txt'}"]) == 0
        record = json.loads(capsys.readouterr().out)["record"]
        assert "kipukas-tracker run: table 'test table'" in proc.stdout.readline()
        client = socketio.Client()
        states: list[dict[str, Any]] = []
        client.on("state", states.append, namespace="/table")
        client.connect(f"http://127.0.0.1:{port}", namespaces=["/table"], wait_timeout=10)
        deadline = time.monotonic() + 30
        while not (states and any(e["action"] == "red capital 7" for e in states[-1]["log"])) \
                and time.monotonic() < deadline:
            time.sleep(0.2)
        assert any(e["action"] == "red capital 7" for e in states[-1]["log"])
        # A second game started while the tracker runs: the pages switch to it within seconds. (On a slow
        # machine the recording may still be playing then, and its last frames go to the new game.)
        before, started = len(states), time.time()
        assert main(["game", "new", "--config", cfg, "--deck", f"red={folder / 'red.txt'}",
                     "--deck", f"blue={folder / 'blue.txt'}"]) == 0
        second = json.loads(capsys.readouterr().out)["record"]
        assert second != record

        def switched() -> bool:
            return any(st["phase"] == "affinity" and all(e["time"] >= started for e in st["log"])
                       for st in states[before:])

        deadline = time.monotonic() + 15
        while not switched() and time.monotonic() < deadline:
            time.sleep(0.2)
        client.disconnect()
        assert switched(), [(st["phase"], st["log"]) for st in states[before:]]
        assert main(["game", "status", "--config", cfg]) == 0
        assert json.loads(capsys.readouterr().out)["record"] == second
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
        errors.close()
    assert proc.returncode == 0


def test_bad_decks_and_configs_exit_2(table_dir: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = table_dir
    bad = folder / "bad.txt"
    bad.write_text("kpks.us/HMPU#0001?x\n")
    before = set(threading.enumerate())
    assert main(["run", "--config", str(folder / "table.toml"), "--deck", f"red={bad}",
                 "--deck", f"blue={folder / 'blue.txt'}"]) == 2
    assert "red's deck is not legal" in capsys.readouterr().err
    assert main(["game", "new", "--config", str(folder / "table.toml"), "--deck", f"red={bad}"]) == 2
    assert "one deck per seat" in capsys.readouterr().err
    assert main(["run", "--config", str(folder / "missing.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err
    # the failed `run` above had started its watchdog: it must not outlive the command (in a test process it
    # would go on pinging whatever `$NOTIFY_SOCKET` points at)
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=5)
        assert not (thread.name == "watchdog" and thread.is_alive()), "a failed run left its watchdog running"


def test_game_new_takes_a_play_style_the_record_keeps(table_dir: tuple[Path, int],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from rules.kipukas.board_map import BoardMap
    from tracker.record.store import GameRecord
    from tracker.table.replay import replay

    folder, _ = table_dir
    decks = ["--deck", f"red={folder / 'red.txt'}", "--deck", f"blue={folder / 'blue.txt'}"]
    cfg = str(folder / "table.toml")
    assert main(["game", "new", "--config", cfg, *decks, "--style", "coastal-war", "--cycles", "4"]) == 0
    record = GameRecord(json.loads(capsys.readouterr().out)["record"], readonly=True)
    start = next(iter(record.rows())).body
    assert start["style"] == {"name": "coastal-war", "cycles": 4, "params": {}}
    game = replay(list(record.rows()), BoardMap.packaged()).game
    assert game.style.name == "coastal-war" and game.style.cycles == 4
    assert main(["game", "new", "--config", cfg, *decks, "--style", "chess"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown play style 'chess'" in err


def test_table_toml_chooses_the_play_style_and_errors_name_section_and_key(
        table_dir: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 19 item 4: [style] in table.toml picks the style of `game new` (the command line overrides it);
    a style or territory the rules do not know exits 2 with one line naming the file, section and key."""
    from tracker.record.store import GameRecord

    folder, _ = table_dir
    decks = ["--deck", f"red={folder / 'red.txt'}", "--deck", f"blue={folder / 'blue.txt'}"]
    toml = folder / "table.toml"
    base = toml.read_text()
    toml.write_text(base + "[style]\nname = 'king-of-the-hill'\nhill = '3'\nhold = 2\n")
    assert main(["game", "new", "--config", str(toml), *decks, "--cycles", "9"]) == 0
    start = next(iter(GameRecord(json.loads(capsys.readouterr().out)["record"], readonly=True).rows())).body
    assert start["style"] == {"name": "king-of-the-hill", "cycles": 9, "params": {"hill": "3", "hold": 2}}
    assert main(["game", "new", "--config", str(toml), *decks, "--style", "domination"]) == 0
    start = next(iter(GameRecord(json.loads(capsys.readouterr().out)["record"], readonly=True).rows())).body
    assert start["style"] == {"name": "domination", "cycles": None, "params": {}}
    for section, key, problem in (("name = 'chess'", "[style] name", "unknown play style 'chess'"),
                                  ("name = 'king-of-the-hill'\nhill = 'Z9'", "[style] hill", "'Z9' is not a territory"),
                                  ("name = ''", "[style] name", "expected a play style name")):
        toml.write_text(base + "[style]\n" + section + "\n")
        assert main(["game", "new", "--config", str(toml), *decks]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and f"table.toml: {key}" in err and problem in err, err


def test_game_new_with_one_card_in_two_decks_exits_2_and_leaves_no_record(
        table_dir: tuple[Path, int], capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = table_dir
    cfg = str(folder / "table.toml")
    assert main(["game", "new", "--config", cfg, "--deck", f"red={folder / 'red.txt'}",
                 "--deck", f"blue={folder / 'red.txt'}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "listed twice" in err and "Traceback" not in err
    assert not list(folder.rglob("game-*.sqlite")), "a refused game must not leave a record file"
    assert main(["game", "new", "--config", cfg, "--deck", f"red={folder / 'red.txt'}",
                 "--deck", f"blue={folder / 'blue.txt'}"]) == 0
    capsys.readouterr()
    assert main(["game", "status", "--config", cfg]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["phase"] == "affinity" and status["players"] == ["blue", "red"] and status["verified"]


def test_demo_on_a_busy_port_exits_2_with_one_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "tracker.cli", "demo", "--port", str(port)], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == f"kipukas-tracker demo: cannot listen on 127.0.0.1:{port}: port {port} is in use by " \
                          "another program\n"


def test_demo_of_another_game_on_a_busy_port_or_an_unknown_game_exits_2_with_one_line() -> None:
    """`demo --game` shares the Kipukas demo's serving: the same one-line refusals, and no record left open."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "tracker.cli", "demo", "--game", "tilemap", "--port", str(port)],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == f"kipukas-tracker demo: cannot listen on 127.0.0.1:{port}: port {port} is in use by " \
                          "another program\n"
    done = subprocess.run([sys.executable, "-m", "tracker.cli", "demo", "--game", "chess"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("kipukas-tracker demo: --game: unknown game 'chess'")
