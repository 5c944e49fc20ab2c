"""Dice benchmark: how often the camera reads the diel die, D6 and D20 right, how often it accepts a wrong
reading (the target is never), per die kind and condition; the read time; and the latency from the dice
coming to rest to the roller's phone.

Accuracy: each frame is a full 2028 x 1520 render of the demo table with two or three dice (random kinds,
seats, faces, turns and places) in the roll area, under one condition: clean, dim (half the light, more
noise), warm (a 2700 K lamp), cool (7500 K), blur (the lens out of focus), glare (specular spots on the
dice and the table), tilt (dice cocked by 8-15 degrees, leaning), touching (two dice side by side),
colours (seats whose dice are green and yellow: colours the network was never told about). A die counts
as *read* when the reader accepts its kind, face and seat and all three are right, *wrong* when it accepts
something and any of them is wrong, *unknown* otherwise (never found, or found and honestly not read).

`--fit` (on the tuning seed 1 only) prints, per kind, the acceptance just above the most confident wrong
guess of that seed, as `training.train_dice --accept ...` writes it into the manifest; the figures are
reported on seed 2 and on seed 3, which nothing was tuned on.

Latency (`--latency`): the demo's dice round (`tracker.runtime.demo_dice`: D6 roll-off, a re-roll, the D20
trap roll, two D6 of an attack, the diel die) rendered first, then fed at 15 fps to the real overhead loop
(dice reader, rest detector, desk, rules, SQLite record) behind the real web server; a Socket.IO client
joined as each seat. Counted from the feed time of the first frame with the dice at rest (no hand, no
motion) to the roller's client receiving a state that holds the reading's "read N - confirm".

`--why diel,d6` prints every lost die of those kinds with the reader's reason (shape, guess, probability);
`--net FOLDER` reads with another network folder (a candidate, compared with the shipped one on seed 1);
`--d20-net FOLDER` has a candidate D20 numeral network (`vision.dice_d20`) read the numeral of a die the face
network typed D20 (none is shipped: the face network reads it).

Run: .venv/bin/python bench/bench_dice.py [--frames-per-condition 8] [--seed 2] [--fit --seed 1] [--latency]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.board import BoardReader
from vision.dice import DiceReader, RollReading
from vision.dice_faces import SIZE_MM
from vision.synth import Renderer, TableScene
from vision.synth.dice import Die, draw_die, random_die

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}
UNSEEN = {"green": (70, 160, 40), "yellow": (30, 200, 220)}  # the "colours" condition's seats
KINDS = ("diel", "d6", "d20")
CONDITIONS = ("clean", "dim", "warm", "cool", "blur", "glare", "tilt", "touching", "colours")
TARGET = {"diel": 0.99, "d6": 0.99, "d20": 0.97}
# never below this, whatever the tuning seed shows: a few hundred dice cannot prove a lower one safe
ACCEPT_FLOOR = 0.9
FPS = 15.0


def scene_dice(rng: np.random.Generator, area: tuple[float, float, float, float], condition: str,
               palette: dict[str, tuple[int, int, int]]) -> list[Die]:
    """Two or three dice in distinct cells of the area (or two touching), random in every other respect."""
    x0, y0, x1, y1 = area
    count = int(rng.integers(2, 4))
    kinds = [KINDS[int(rng.integers(3))] for _ in range(count)]
    seats = list(palette)
    colours = [palette[seats[int(rng.integers(len(seats)))]] for _ in range(count)]
    tilt = (lambda: float(rng.uniform(8, 15))) if condition == "tilt" else (lambda: 0.0)
    if condition == "touching":
        cx, cy = rng.uniform(x0 + 30, x1 - 30), rng.uniform(y0 + 20, y1 - 20)
        gap = (SIZE_MM[kinds[0]] + SIZE_MM[kinds[1]]) / 2 + 0.5
        a = rng.uniform(0, math.pi)
        spots = [(cx - gap / 2 * math.cos(a), cy - gap / 2 * math.sin(a)),
                 (cx + gap / 2 * math.cos(a), cy + gap / 2 * math.sin(a))]
        return [random_die(kinds[i], colours[i], spots[i], rng) for i in range(2)]
    cells = [(c, r) for c in range(3) for r in range(2)]
    picked = rng.choice(len(cells), count, replace=False)
    out = []
    for i, k in enumerate(picked):
        c, r = cells[int(k)]
        x = x0 + (c + 0.5) * (x1 - x0) / 3 + rng.uniform(-12, 12)
        y = y0 + (r + 0.5) * (y1 - y0) / 2 + rng.uniform(-8, 8)
        die = random_die(kinds[i], colours[i], (x, y), rng, tilt_deg=tilt())
        if condition == "glare":
            die = Die(die.kind, die.face, die.colour, die.at_mm, die.angle_deg, die.tilt_deg, 0.0,
                      float(rng.uniform(0.4, 0.8)))
        out.append(die)
    return out


def frame_of(renderer: Renderer, dice: list[Die], seed: int, condition: str) -> np.ndarray:
    rng = np.random.default_rng([seed, 5])
    clean, _ = renderer.compose(TableScene({}), seed)
    for die in dice:
        draw_die(clean, renderer, die, rng)
    kw: dict[str, float | int | None] = {
        "dim": {"lighting": 0.55, "noise": 1.6}, "warm": {"kelvin": 2700.0}, "cool": {"kelvin": 7500.0},
        "blur": {"blur": 1.0}, "glare": {"glare": 2}}.get(condition, {})
    return renderer.finish(clean, seed, **kw)  # type: ignore[arg-type]


def score(dice: list[Die], reading: RollReading, seat_of: dict[tuple[int, int, int], str]
          ) -> list[tuple[str, str, str, float, bool, bool]]:
    """Per true die: (kind, outcome read|wrong|unknown, the network's guessed kind, its probability, whether
    the guess (kind and face) was right, whether glare may have hidden part of its mark)."""
    out = []
    for die in dice:
        near = [d for d in reading.dice if math.dist(d.centre_mm, die.at_mm) < 9.0]
        if not near:
            out.append((die.kind, "unknown", "", 0.0, False, False))
            continue
        got = near[0]
        guess_kind = got.guess.split(":")[0] if got.guess else ""
        guess_right = got.guess == f"{die.kind}:{die.face}"
        shape_ok = not got.why.startswith("shape ")
        if not got.known:
            out.append((die.kind, "unknown", guess_kind if shape_ok else "", got.confidence, guess_right, got.hidden))
            continue
        right = got.kind == die.kind and got.face == die.face and got.owner == seat_of[die.colour]
        out.append((die.kind, "read" if right else "wrong", guess_kind, got.confidence, guess_right, got.hidden))
    return out


def lost_why(die: Die, reading: RollReading) -> str:
    """Why a die was not read: the reader's reason, shape and guess for the die found nearest it."""
    near = sorted(reading.dice, key=lambda d: math.dist(d.centre_mm, die.at_mm))
    if not near or math.dist(near[0].centre_mm, die.at_mm) >= 9.0:
        return f"not found (unresolved blobs {reading.unresolved}, hand {reading.hand}, {len(reading.dice)} found)"
    d = near[0]
    return (f"shape {d.shape}, guess {d.guess} p={d.confidence:.3f}, owner {d.owner}, why: {d.why or '-'}, "
            f"off by {math.dist(d.centre_mm, die.at_mm):.1f} mm")


def accuracy(args: argparse.Namespace) -> None:
    board = BoardMap.packaged()
    layout = table_layout(board)
    pose = default_pose(layout, image_size=(2028, 1520))
    renderer = Renderer(layout, pose, PALETTE)
    reference = renderer.render(TableScene({}), seed=7)
    reader = DiceReader(layout, pose, {**PALETTE, **UNSEEN}, reference, net_folder=args.net,
                        d20_folder=args.d20_net)
    if reader.net is None:
        raise SystemExit(f"no face network: {reader.net_error}")
    if args.d20_net is not None and reader.d20 is None:
        raise SystemExit(f"no D20 network: {reader.d20_error}")
    print(f"D20 numerals read by {reader.d20.where if reader.d20 else 'the face network'}")
    if args.fit:
        reader.net.accept = {k: 0.0 for k in reader.net.accept}
        reader.net.accept_hidden = {k: 0.0 for k in reader.net.accept}
        if reader.d20 is not None:
            reader.d20.accept = 0.0
    board_reader = BoardReader(layout, pose, PALETTE, reference=reference)
    assert layout.roll_area_mm is not None
    seat_of = {c: s for s, c in {**PALETTE, **UNSEEN}.items()}
    tally: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: {"read": 0, "wrong": 0, "unknown": 0})
    guesses: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    hidden: dict[str, list[tuple[float, bool]]] = defaultdict(list)  # the same, of dice whose mark glare hid
    t_dice: list[float] = []
    t_board: list[float] = []
    conditions = [c for c in args.conditions.split(",") if c]
    for ci, condition in enumerate(conditions):
        palette = UNSEEN if condition == "colours" else PALETTE
        for n in range(args.frames_per_condition):
            seed = args.seed * 1_000_000 + ci * 10_000 + n
            rng = np.random.default_rng(seed)
            dice = scene_dice(rng, layout.roll_area_mm, condition, palette)
            frame = frame_of(renderer, dice, seed, condition)
            t0 = time.process_time()
            reading = reader.read(frame)
            t_dice.append(time.process_time() - t0)
            if n % 4 == 0:
                t0 = time.process_time()
                board_reader.read(frame)
                t_board.append(time.process_time() - t0)
            for die, (kind, outcome, guess_kind, p, guess_right, hid) in zip(dice, score(dice, reading, seat_of),
                                                                             strict=True):
                tally[(kind, condition)][outcome] += 1
                if args.why and outcome != "read" and kind in args.why.split(","):
                    print(f"lost {condition} {seed} {kind}:{die.face} {outcome}: {lost_why(die, reading)}")
                if guess_kind:
                    (hidden if hid else guesses)[guess_kind].append((p, guess_right))
        print(f"condition {condition} done", file=sys.stderr)
    net = reader.net
    d20_accept = f", D20 network {reader.d20.accept}" if reader.d20 is not None else ""
    print(f"seed {args.seed}, {args.frames_per_condition} frames per condition, accept at p >= {net.accept}"
          f" (glare hid part of the mark: {net.accept_hidden}){d20_accept}")
    print(f"{'kind':5} {'condition':9} {'dice':>5} {'read':>7} {'wrong':>6} {'unknown':>8}")
    totals: dict[str, dict[str, int]] = defaultdict(lambda: {"read": 0, "wrong": 0, "unknown": 0})
    for kind in KINDS:
        for condition in conditions:
            t = tally[(kind, condition)]
            n = sum(t.values())
            for k, v in t.items():
                totals[kind][k] += v
            if n:
                print(f"{kind:5} {condition:9} {n:5d} {100 * t['read'] / n:6.1f}% {t['wrong']:6d} "
                      f"{100 * t['unknown'] / n:7.1f}%")
    for kind in KINDS:
        t = totals[kind]
        n = max(1, sum(t.values()))
        ok = t["read"] / n >= TARGET[kind] and t["wrong"] == 0
        print(f"{kind:5} all       {n:5d} {100 * t['read'] / n:6.1f}% {t['wrong']:6d} {100 * t['unknown'] / n:7.1f}%"
              f"   target >= {100 * TARGET[kind]:.0f}% read, 0 wrong: {'met' if ok else 'NOT met'}")
    md, mb = statistics.median(t_dice), statistics.median(t_board)
    print(f"read time (one core, CPU time): dice reader {1000 * md:.1f} ms per frame, board reader "
          f"{1000 * mb:.1f} ms on the same frames, ratio {md / mb:.2f}")
    if args.fit:
        print(fit_report(guesses, hidden))
        if args.dump is not None:  # every guess, to compare networks at any acceptance without a re-run
            args.dump.write_text(json.dumps({**guesses, **{f"{k} hidden": v for k, v in hidden.items()}}, indent=0))


def rule(wrong: list[float]) -> float:
    """The documented acceptance rule: the larger of `ACCEPT_FLOOR` and the most confident wrong guess plus a
    fifth of the way to 1."""
    worst = max(wrong, default=0.0)
    return max(ACCEPT_FLOOR, worst + 0.2 * (1.0 - worst))


def fit_report(clear: dict[str, list[tuple[float, bool]]], hidden: dict[str, list[tuple[float, bool]]]) -> str:
    """Per kind, the rule's acceptance over the guesses of dice whose mark glare did not hide (`clear`) and,
    never below it, over those whose mark it may have hidden (round 13), and the `--accept`/`--accept-hidden`
    that write them; every (p, right) guess of each part given."""
    lines, spec, spec_hidden = [], [], []
    for kind in KINDS:
        accept = rule([p for p, right in clear[kind] if not right])
        strict = max(accept, rule([p for p, right in hidden[kind] if not right]))
        for part, got, at in (("", clear[kind], accept), (" hidden", hidden[kind], strict)):
            wrong = sorted(p for p, right in got if not right)
            kept = sum(1 for p, right in got if right and p >= at)
            lines.append(f"fit {kind}{part}: {len(got)} guesses, {len(wrong)} wrong (the most confident: "
                         f"{', '.join(f'{p:.5f}' for p in wrong[-3:]) or '-'}); accept at {at:.5f} keeps {kept} "
                         "right ones")
        spec.append(f"{kind}={accept:.5f}")
        spec_hidden.append(f"{kind}={strict:.5f}")
    lines.append(f"write it: .venv/bin/python -m training.train_dice --accept {','.join(spec)} "
                 f"--accept-hidden {','.join(spec_hidden)}")
    return "\n".join(lines)


def latency(seed: int) -> None:
    import socketio

    from tracker.runtime.demo import DemoTable, after_throw, begin_step
    from tracker.runtime.demo_dice import DiceFrames, dice_steps
    from tracker.runtime.server import WebServer
    from tracker.table.loop import OverheadLoop

    cv2.setNumThreads(1)
    demo = DemoTable(fps=None, repeat=False, script="dice", hand_frames=2, settled_frames=5)
    steps = dice_steps()
    maker = DiceFrames(demo.renderer, demo.palette, steps, demo.hand_frames, demo.settled_frames, seed=seed)
    rendered = [(i, step, list(maker.step_frames(i, step))) for i, step in enumerate(steps)]
    server = WebServer(demo.service, "127.0.0.1", 0)
    server.start()
    seen: dict[tuple[str, str], float] = {}  # (seat, reading id) -> first receive time
    lock = threading.Lock()
    clients = []
    for seat in ("red", "blue"):
        client = socketio.Client()

        def on_state(state: dict[str, object], seat: str = seat) -> None:
            now = time.perf_counter()
            with lock:
                for roll in state.get("camera_rolls", []) or []:  # type: ignore[union-attr]
                    seen.setdefault((seat, str(roll["id"])), now)

        client.on("state", on_state, namespace="/table")
        client.connect(f"http://127.0.0.1:{server.port}", namespaces=["/table"], transports=["websocket"],
                       auth={"token": demo.service.join_tokens()[seat]})
        clients.append(client)
    loop = OverheadLoop(demo.table, demo.reader, dice=(demo.dice_reader, demo.desk))
    rest_at: dict[str, tuple[str, float]] = {}  # reading id -> (roller, feed time of the first frame at rest)
    made: dict[str, float] = {}  # reading id -> when the loop had made it (the rest is the broadcast)
    period = 1.0 / FPS
    n = 0
    start = time.perf_counter()
    cpu: list[float] = []
    for _, step, frames in rendered:
        begin_step(demo.table, step)
        known = {p.id for p in demo.desk.pending}
        at_rest = None
        for k, frame in enumerate(frames):
            time.sleep(max(0.0, start + n * period - time.perf_counter()))
            n += 1
            if step.dice and k == demo.hand_frames:
                at_rest = time.perf_counter()
            t0 = time.process_time()
            loop.process_dice(frame)
            cpu.append(time.process_time() - t0)
            for p in demo.desk.pending:
                if p.id not in known and at_rest is not None:
                    made.setdefault(str(p.id), time.perf_counter())
        time.sleep(0.3)  # the last broadcast of this step reaches the clients
        for p in demo.desk.pending:
            if p.id not in known and at_rest is not None:
                rest_at[str(p.id)] = (p.player, at_rest)
        after_throw(demo.table, demo.desk, step)
    time.sleep(0.5)
    for client in clients:
        client.disconnect()
    server.shutdown()
    lat = [(seen[(roller, rid)] - t) * 1000 for rid, (roller, t) in rest_at.items() if (roller, rid) in seen]
    grey = []
    for _, _, frames in rendered[:3]:
        for f in frames[:5]:
            t0 = time.process_time()
            cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)
            grey.append(time.process_time() - t0)
    g = statistics.median(grey) * 1000
    print(f"latency seed {seed}: {len(rest_at)} readings reached phones ({len(lat)} timed) of "
          f"{sum(1 for s in steps if s.dice)} throws; fed at {FPS:g} fps, 3 frames to agree")
    if lat:
        print(f"dice at rest -> 'read N - confirm' at the roller's Socket.IO client: "
              f"median {statistics.median(lat):.0f} ms, max {max(lat):.0f} ms (target <= 300 ms)")
        loop_part = [(made[rid] - t) * 1000 for rid, (_, t) in rest_at.items() if rid in made]
        print(f"  of which rest -> reading made by the loop (frames to agree at {FPS:g} fps, reads, record): "
              f"median {statistics.median(loop_part):.0f} ms; the rest is the broadcast to the phone")
    c = statistics.median(cpu) * 1000
    print(f"dice loop step, median CPU {c:.1f} ms a frame, ratio {c / g:.0f}x a BGR->grey of the same frame "
          f"({g:.2f} ms)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames-per-condition", type=int, default=8)
    ap.add_argument("--seed", type=int, default=2, help="the reporting seed (tuning used seed 1)")
    ap.add_argument("--fit", action="store_true", help="print the acceptance fitted on this seed (tuning only)")
    ap.add_argument("--conditions", default=",".join(CONDITIONS))
    ap.add_argument("--net", type=Path, default=None, help="a network folder to read with (default: the package's)")
    ap.add_argument("--d20-net", type=Path, default=None,
                    help="a candidate D20 numeral network folder (training/train_d20.py; default: none)")
    ap.add_argument("--dump", type=Path, default=None, help="with --fit: write every guess (p, right) here")
    ap.add_argument("--why", default="", help="kinds (diel,d6,d20) whose lost dice are printed with the reason")
    ap.add_argument("--latency", action="store_true", help="also measure rest -> roller's phone")
    ap.add_argument("--latency-only", action="store_true")
    args = ap.parse_args()
    if not args.latency_only:
        accuracy(args)
    if args.latency or args.latency_only:
        latency(args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
