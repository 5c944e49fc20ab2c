"""The native libraries' own chatter stays out of the tracker's output: OpenCV's ``[ WARN...]`` lines and
FFmpeg's messages are silenced at start-up, and a command stopped by Ctrl-C waits for its camera thread,
so zxing-cpp never prints ``nanobind: leaked ... instances`` (nor aborts with ``terminate called``): those
come at the interpreter's exit from a daemon thread left inside a decode (about two runs in five of
``demo`` stopped by Ctrl-C did so before), which the last test rules out directly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tracker.cli import main

ROOT = Path(__file__).resolve().parent.parent
NOISE = ("WARN", "nanobind", "leaked", "terminate called", "moov atom", "VIDEOIO", "Traceback")


def test_a_missing_camera_and_a_corrupt_video_give_one_line_each(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCV_")}
    bad = tmp_path / "corrupt.mp4"
    bad.write_bytes(bytes(range(256)) * 40)
    for source in (["--camera", "97"], ["--video", str(bad)]):
        done = subprocess.run([sys.executable, "-m", "tracker.cli", "register", "--out", str(tmp_path / "deck.txt"),
                               *source], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("kipukas-tracker register: cannot open"), done.stderr
        assert not any(word in done.stderr for word in NOISE), done.stderr
    asked = subprocess.run([sys.executable, "-m", "tracker.cli", "register", "--out", str(tmp_path / "deck.txt"),
                            "--camera", "97"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                           env={**env, "OPENCV_LOG_LEVEL": "WARNING"})
    assert asked.returncode == 2 and "WARN" in asked.stderr  # what an operator sets is never overridden


def test_the_demo_command_waits_for_its_table_thread() -> None:
    def interrupt_once_playing() -> None:
        for _ in range(600):
            if any(t.name == "demo-table" for t in threading.enumerate()):
                time.sleep(1.0)
                os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, delivered to the main thread in serve_forever
                return
            time.sleep(0.1)

    ctrl_c = threading.Thread(target=interrupt_once_playing, name="ctrl-c")
    ctrl_c.start()
    try:
        assert main(["demo", "--port", "0", "--fps", "0"]) == 0
    finally:
        ctrl_c.join()
    assert not [t.name for t in threading.enumerate() if t.name == "demo-table"], "the demo returned while playing"
