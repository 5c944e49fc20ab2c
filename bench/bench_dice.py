"""Dice benchmark: how often the camera reads the diel die, D6 and D20 right, how often it accepts a wrong
reading (the target is never), and how long a read takes, per die kind and condition.

Each frame is a full 2028 x 1520 render of the demo table with two or three dice (random kinds, seats,
faces, turns and places) in the roll area, under one condition: clean, dim (half the light, more noise),
warm (a 2700 K lamp), blur (the lens out of focus), glare (specular spots on the dice and the table), tilt
(dice cocked by 8-15 degrees, leaning), touching (two dice side by side). A die counts as *read* when the
reader accepts its kind, face and seat and all three are right, *wrong* when it accepts something and any
of them is wrong, *unknown* otherwise (never found, or found and honestly not read).

`--fit` (use it on the tuning seed only) fits the confidence's logistic on the match margins and prints the
constants for `vision/dice.py`; reporting uses another seed, so the numbers are not of the samples the
constants were fitted on. The read time is the median of `DiceReader.read` on the frames, against the
median of `BoardReader.read` (the overhead loop's every-frame read) of the same frames in the same process.
The latency from rest to the roller's phone is measured by `bench/bench_dice_latency.py`.

Run: .venv/bin/python bench/bench_dice.py [--frames-per-condition 30] [--seed 2] [--fit --seed 1]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.dice as vd
from calibration.camera import default_pose
from rules.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision.board import BoardReader
from vision.dice import DiceReader, RollReading
from vision.dice_faces import SIZE_MM
from vision.synth import Renderer, TableScene
from vision.synth.dice import Die, draw_die, random_die

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}
KINDS = ("diel", "d6", "d20")
CONDITIONS = ("clean", "dim", "warm", "blur", "glare", "tilt", "touching")
TARGET = {"diel": 0.99, "d6": 0.99, "d20": 0.97}


def scene_dice(rng: np.random.Generator, area: tuple[float, float, float, float], condition: str) -> list[Die]:
    """Two or three dice in distinct cells of the area (or two touching), random in every other respect."""
    x0, y0, x1, y1 = area
    count = int(rng.integers(2, 4))
    kinds = [KINDS[int(rng.integers(3))] for _ in range(count)]
    seats = [("red", "blue")[int(rng.integers(2))] for _ in range(count)]
    tilt = (lambda: float(rng.uniform(8, 15))) if condition == "tilt" else (lambda: 0.0)
    if condition == "touching":
        cx, cy = rng.uniform(x0 + 30, x1 - 30), rng.uniform(y0 + 20, y1 - 20)
        gap = (SIZE_MM[kinds[0]] + SIZE_MM[kinds[1]]) / 2 + 0.5
        a = rng.uniform(0, math.pi)
        spots = [(cx - gap / 2 * math.cos(a), cy - gap / 2 * math.sin(a)),
                 (cx + gap / 2 * math.cos(a), cy + gap / 2 * math.sin(a))]
        return [random_die(kinds[i], PALETTE[seats[i]], spots[i], rng) for i in range(2)]
    cells = [(c, r) for c in range(3) for r in range(2)]
    picked = rng.choice(len(cells), count, replace=False)
    out = []
    for i, k in enumerate(picked):
        c, r = cells[int(k)]
        x = x0 + (c + 0.5) * (x1 - x0) / 3 + rng.uniform(-12, 12)
        y = y0 + (r + 0.5) * (y1 - y0) / 2 + rng.uniform(-8, 8)
        die = random_die(kinds[i], PALETTE[seats[i]], (x, y), rng, tilt_deg=tilt())
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
    kw: dict[str, float | int | None] = {}
    if condition == "dim":
        kw = {"lighting": 0.55, "noise": 1.6}
    elif condition == "warm":
        kw = {"kelvin": 2700.0}
    elif condition == "blur":
        kw = {"blur": 1.0}
    elif condition == "glare":
        kw = {"glare": 2}
    return renderer.finish(clean, seed, **kw)  # type: ignore[arg-type]


def score(dice: list[Die], reading: RollReading, seat_of: dict[tuple[int, int, int], str]
          ) -> list[tuple[str, str, float, float]]:
    """Per true die: (kind, outcome read|wrong|unknown, margin-derived confidence, confidence)."""
    out = []
    for die in dice:
        near = [d for d in reading.dice if math.dist(d.centre_mm, die.at_mm) < 9.0]
        if not near:
            out.append((die.kind, "unknown", 0.0, 0.0))
            continue
        got = near[0]
        if got.face is None or got.kind is None:
            out.append((die.kind, "unknown", got.confidence, got.confidence))
            continue
        right = got.kind == die.kind and got.face == die.face and got.owner == seat_of[die.colour]
        if got.owner is None:  # the face is read, the seat not: the roll is not accepted
            out.append((die.kind, "unknown", got.confidence, got.confidence))
            continue
        out.append((die.kind, "read" if right else "wrong", got.confidence, got.confidence))
    return out


def fit_logistic(margins: list[float], right: list[bool]) -> tuple[float, float]:
    """P(right | margin) = 1 / (1 + exp(-(a m + b))) by Newton's method."""
    x = np.array(margins, np.float64)
    y = np.array(right, np.float64)
    w = np.array([10.0, 0.0])
    X = np.column_stack([x, np.ones_like(x)])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(X @ w)))
        g = X.T @ (p - y)
        H = X.T @ (X * (p * (1 - p))[:, None]) + 1e-6 * np.eye(2)
        w -= np.linalg.solve(H, g)
    return float(w[0]), float(w[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames-per-condition", type=int, default=30)
    ap.add_argument("--seed", type=int, default=2, help="the reporting seed (tuning used seed 1)")
    ap.add_argument("--fit", action="store_true", help="fit the confidence on this seed's margins (tuning only)")
    ap.add_argument("--conditions", default=",".join(CONDITIONS))
    args = ap.parse_args()
    board = BoardMap.packaged()
    layout = table_layout(board)
    pose = default_pose(layout, image_size=(2028, 1520))
    renderer = Renderer(layout, pose, PALETTE)
    reference = renderer.render(TableScene({}), seed=7)
    if args.fit:
        vd.ACCEPT, vd.MIN_SCORE = -1.0, -1.0
    reader = DiceReader(layout, pose, PALETTE, reference)
    board_reader = BoardReader(layout, pose, PALETTE, reference=reference)
    assert layout.roll_area_mm is not None
    seat_of = {c: s for s, c in PALETTE.items()}
    tally: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: {"read": 0, "wrong": 0, "unknown": 0})
    margins: dict[str, list[float]] = defaultdict(list)
    rights: dict[str, list[bool]] = defaultdict(list)
    t_dice: list[float] = []
    t_board: list[float] = []
    wrong_conf: list[float] = []
    conditions = [c for c in args.conditions.split(",") if c]
    for ci, condition in enumerate(conditions):
        for n in range(args.frames_per_condition):
            seed = args.seed * 1_000_000 + ci * 10_000 + n
            rng = np.random.default_rng(seed)
            dice = scene_dice(rng, layout.roll_area_mm, condition)
            frame = frame_of(renderer, dice, seed, condition)
            t0 = time.process_time()
            reading = reader.read(frame)
            t_dice.append(time.process_time() - t0)
            if n % 5 == 0:
                t0 = time.process_time()
                board_reader.read(frame)
                t_board.append(time.process_time() - t0)
            for kind, outcome, conf, _ in score(dice, reading, seat_of):
                tally[(kind, condition)][outcome] += 1
                if outcome == "wrong":
                    wrong_conf.append(conf)
            if args.fit:
                for die in dice:
                    near = [d for d in reading.dice if math.dist(d.centre_mm, die.at_mm) < 9.0]
                    if near and near[0].kind is not None and near[0].margin > 0:
                        margins[die.kind].append(near[0].margin)
                        rights[die.kind].append(near[0].kind == die.kind and near[0].face == die.face)
        print(f"condition {condition} done", file=sys.stderr)
    print(f"seed {args.seed}, {args.frames_per_condition} frames per condition, accept at confidence >= {vd.ACCEPT}")
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
    print(f"read time (one core, CPU time): dice {1000 * md:.1f} ms per frame, board reader {1000 * mb:.1f} ms, "
          f"ratio {md / mb:.2f}")
    if args.fit:
        for kind in KINDS:
            if not margins[kind]:
                continue
            a, b = fit_logistic(margins[kind], rights[kind])
            worst = max((m for m, r in zip(margins[kind], rights[kind], strict=True) if not r), default=0.0)
            at_worst = 1 / (1 + math.exp(-(a * worst + b)))
            kept = sum(1 for m, r in zip(margins[kind], rights[kind], strict=True) if r and m > worst)
            print(f"fitted confidence {kind}: ({a:.1f}, {b:.2f}) on {len(margins[kind])} dice "
                  f"({sum(rights[kind])} right by their best match); the most confident wrong match has margin "
                  f"{worst:.3f}, confidence {at_worst:.4f}; {kept} right ones lie above it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
