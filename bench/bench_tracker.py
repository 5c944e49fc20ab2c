"""Latency from the frame that shows a completed move to the state reaching a Socket.IO client, with
frames fed at 15 fps (moves of tokens, and cards laid in mat slots or turned over), and the frame rate the
overhead loop sustains on one core.

The demo's scripted game is rendered first (rendering is not part of the tracker's work), then fed to
the real loop (board reader, stabiliser, reconciliation, rules, SQLite record) behind the real web
server. The loop rate is measured with the front camera's reader also running on the same core: each
overhead frame is followed by one 1280x720 front-camera frame (the table as the front camera would see
it between presentations), and both costs count. The front camera reads at its own rate, as the
appliance runs it (``tracker.front.camera.LIVE_CPU_PER_FRAME_S``); its cost when it decodes every frame
in which something moved is printed too. Both cameras deliver their ISP's low-resolution stream beside
each frame, as picamera2 does; it is made here before the timed part (the ISP makes it in hardware), and
the overhead loop is also timed without it (the reader shrinks each frame itself). Latency counts from
the feed time of the first frame of a step (the move is complete in it, with hands still over parts of
the table) to the client receiving a state whose record holds the action that step produced. Every
figure's ratio is against a JPEG decode (quality 90) of the same frame, measured in the same process
(a 2028x1520 overhead frame; a 1280x720 front frame for the front camera's own cost).
"""

from __future__ import annotations

import statistics
import threading
import time

import cv2
import numpy as np
import socketio

from tracker.front.camera import LIVE_CPU_PER_FRAME_S, FrontCamera
from tracker.runtime.allocator import keep_freed_memory
from tracker.runtime.demo import DemoFrames, DemoTable, begin_step
from tracker.runtime.demo_script import demo_steps
from tracker.runtime.server import WebServer
from tracker.sources.capture import Frame, simulated_lores
from tracker.table.loop import OverheadLoop

FPS = 15.0
CARD_VERBS = ("play", "reveal")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    cv2.setNumThreads(1)
    keep_freed_memory()  # as the appliance does at start-up (tracker.cli)
    demo = DemoTable(fps=None, repeat=False)
    steps = demo_steps()
    frames = list(DemoFrames(demo.renderer, steps, hand_frames=2, settled_frames=5).frames())
    lores = [simulated_lores(f) for _, _, _, f in frames]  # the ISP's second stream (hardware, not timed)
    baseline_ms = statistics.median(
        [(lambda t0: (cv2.cvtColor(f, cv2.COLOR_BGR2GRAY), time.perf_counter() - t0)[1])(time.perf_counter())
         for _, _, _, f in frames[:30]]) * 1000

    server = WebServer(demo.service, "127.0.0.1", 0)
    server.start()
    received: dict[int, float] = {}
    client = socketio.Client()

    def on_state(state: dict[str, object]) -> None:
        now = time.perf_counter()
        for entry in state["log"]:  # type: ignore[attr-defined]
            received.setdefault(int(entry["seq"]), now)

    client.on("state", on_state, namespace="/table")
    client.connect(f"http://127.0.0.1:{server.port}", namespaces=["/table"], transports=["websocket"])

    loop = OverheadLoop(demo.table, demo.reader)
    completed: dict[int, float] = {}  # step -> feed time of its first settled frame
    produced: dict[int, int] = {}  # record seq of an overhead action -> step
    cards: set[int] = set()  # those of them that came from the mat (a card laid in a slot or turned over)
    period = 1.0 / FPS
    start = time.perf_counter()
    for n, (index, step, first, frame) in enumerate(frames):
        due = start + n * period
        time.sleep(max(0.0, due - time.perf_counter()))
        if first:
            begin_step(demo.table, step)
        if first:  # conservative: the step's first frame (hands still over the table) starts the clock
            completed[index] = time.perf_counter()
        before = demo.table.record.last_seq
        loop.process(frame, lores[n])
        for entry in demo.table.entries(before):
            if entry.kind == "action" and entry.source == "overhead":
                produced[entry.seq] = index
                if entry.text.split(" ")[1] in CARD_VERBS:
                    cards.add(entry.seq)
    time.sleep(1.0)
    client.disconnect()
    server.shutdown()
    latencies = [(received[seq] - completed[step]) * 1000 for seq, step in produced.items() if seq in received]
    card_latencies = [(received[seq] - completed[step]) * 1000 for seq, step in produced.items()
                      if seq in received and seq in cards]

    cpu: list[float] = []
    front_cpu: list[float] = []
    decode: list[float] = []
    front_decode: list[float] = []
    shots = [cv2.resize(f, (1280, 720), interpolation=cv2.INTER_AREA) for _, _, _, f in frames]
    shots_lores = [simulated_lores(s) for s in shots]
    fresh = DemoTable(fps=None, repeat=False)
    loop = OverheadLoop(fresh.table, fresh.reader)
    front = FrontCamera(cpu_per_frame_s=LIVE_CPU_PER_FRAME_S)
    decoded = 0
    t_wall = time.perf_counter()
    for n, (_, _, _, frame) in enumerate(frames):
        t0 = time.process_time()
        loop.process(frame, lores[n])
        cpu.append(time.process_time() - t0)
        skipped = front.skipped
        t0 = time.process_time()
        front.process(Frame(n, n / FPS, shots[n], shots_lores[n]))
        front_cpu.append(time.process_time() - t0)
        decoded += front.still.last_read and front.skipped == skipped
    wall = time.perf_counter() - t_wall
    plain_cpu: list[float] = []  # a source without a lores stream: the reader shrinks every frame
    plain = DemoTable(fps=None, repeat=False)
    plain_loop = OverheadLoop(plain.table, plain.reader)
    for _, _, _, frame in frames:
        t0 = time.process_time()
        plain_loop.process(frame)
        plain_cpu.append(time.process_time() - t0)
    every_cpu: list[float] = []  # the front camera decoding every frame where something moved
    every = FrontCamera()
    for n, shot in enumerate(shots):
        t0 = time.process_time()
        every.process(Frame(n, n / FPS, shot, shots_lores[n]))
        every_cpu.append(time.process_time() - t0)
    for (_, _, _, frame), shot in zip(frames[:30], shots[:30], strict=True):
        for image, out in ((frame, decode), (shot, front_decode)):
            _, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            t0 = time.process_time()
            cv2.imdecode(buf, cv2.IMREAD_COLOR)
            out.append(time.process_time() - t0)
    h, w = frames[0][3].shape[:2]
    print(f"frames: {len(frames)} at {w}x{h}, fed at {FPS:g} fps; overhead actions timed: {len(latencies)}")
    print(f"baseline (BGR->grey of one frame): {baseline_ms:.2f} ms")
    print(f"move -> state at a Socket.IO client: median {statistics.median(latencies):.0f} ms, "
          f"p95 {percentile(latencies, 0.95):.0f} ms (target median < 300 ms)")
    print(f"card laid in a slot or turned over -> state at a client: "
          f"median {statistics.median(card_latencies):.0f} ms, "
          f"max {max(card_latencies):.0f} ms over {len(card_latencies)} card actions (target median <= 300 ms)")
    per_frame = statistics.median(cpu) * 1000
    front_ms = statistics.median(front_cpu) * 1000
    decode_ms = statistics.median(decode) * 1000
    front_decode_ms = statistics.median(front_decode) * 1000
    both = statistics.mean(c + f for c, f in zip(cpu, front_cpu, strict=True)) * 1000
    print(f"baseline (JPEG decode of one frame): overhead 2028x1520 {decode_ms:.2f} ms, "
          f"front 1280x720 {front_decode_ms:.2f} ms")
    print(f"loop step, median CPU per frame: {per_frame:.1f} ms  ratio {per_frame / baseline_ms:.0f}x grey, "
          f"{per_frame / decode_ms:.2f}x JPEG decode; front camera 1280x720, median {front_ms:.1f} ms "
          f"({front_ms / front_decode_ms:.2f}x its JPEG decode)")
    over_mean = statistics.mean(cpu) * 1000
    plain_mean = statistics.mean(plain_cpu) * 1000
    front_mean = statistics.mean(front_cpu) * 1000
    every_mean = statistics.mean(every_cpu) * 1000
    print(f"mean CPU per frame: overhead loop {over_mean:.1f} ms ({over_mean / decode_ms:.2f}x; alone "
          f"{1000 / over_mean:.1f} fps; from a source without a lores stream {plain_mean:.1f} ms = "
          f"{plain_mean / decode_ms:.2f}x), front camera at its own rate ({LIVE_CPU_PER_FRAME_S * 1000:g} ms "
          f"a frame on average) {front_mean:.1f} ms ({front_mean / front_decode_ms:.2f}x its JPEG decode; "
          f"it decoded {decoded} of {len(front_cpu)} frames, skipped {front.skipped} that moved for want of "
          f"time); decoding every frame that moved it would take {every_mean:.1f} ms "
          f"({every_mean / front_decode_ms:.2f}x)")
    print(f"overhead loop with the front camera running, one core: mean CPU {both:.1f} ms a frame "
          f"({both / decode_ms:.2f}x a JPEG decode) = {1000 / both:.1f} fps sustainable (target >= 30); "
          f"a Pi 4 core (~3.5x slower): ~{1000 / both / 3.5:.1f} fps (target >= 10); "
          f"wall rate here {len(frames) / wall:.1f} fps")
    assert np.isfinite(per_frame)


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    main()
