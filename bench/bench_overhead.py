"""Overhead-camera benchmark: accuracy of the board reader over seeded rendered frames, and its speed.

Frames vary the table state (random legal positions of pieces and cards), the camera pose (the default
straight-down pose most of the time, plus tilted, rolled, shifted and lower ones), the light, noise, blur,
JPEG quality, and hands over the table. Each composed table is finished with several camera effects, so
``--frames`` frames need far fewer compositions.

Prints per-stand and per-slot accuracy on unobstructed regions, the false-change rate (a region under a
hand reported as a different state without being flagged obstructed), the face-down QR read rate at the
default pose, and the median time of a full read, of a re-read of two changed regions and of a frame
where nothing changed on one core, each as a ratio to an in-process baseline (decoding one JPEG of the same
frame). Each is timed as a Pi camera delivers frames (with its ISP's low-resolution stream, made here
outside the timed part because the ISP makes it in hardware) and, for the full read and the unchanged
frame, as a source without one delivers them (the reader shrinks the frame itself, inside the timing).

Run: .venv/bin/python bench/bench_overhead.py [--frames 1000] [--seed 1] [--timing-frames 40]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.slots
from calibration.camera import default_pose
from calibration.layout import TableLayout
from rules.kipukas.board_map import BoardMap
from rules.kipukas.identity import is_kipukas_payload
from tracker.overhead.layout import table_layout
from tracker.runtime.allocator import keep_freed_memory
from tracker.sources.capture import simulated_lores
from vision.board import BoardReader
from vision.observation import BoardObservation
from vision.synth import Renderer, RenderTruth, SlotCard, TableScene, Token

PALETTE = {"red": (40, 40, 210), "blue": (200, 90, 30)}
POSES = [  # (name, weight, tilt, yaw, offset, height)
    ("default", 6, 0.0, 0.0, (0.0, 0.0), 1000.0),
    ("tilt12", 1, 12.0, 0.0, (0.0, 0.0), 1000.0),
    ("tilt18-roll", 1, 18.0, -6.0, (30.0, -20.0), 1000.0),
    ("roll90", 1, 0.0, 90.0, (0.0, 0.0), 1000.0),
    ("low-shifted", 1, 6.0, 4.0, (-40.0, 25.0), 900.0),
]
VARIANTS_PER_TABLE = 5


@dataclass
class Tally:
    stand_ok: int = 0
    stand_n: int = 0
    slot_ok: int = 0
    slot_n: int = 0
    occluded: int = 0
    false_change: int = 0
    flagged: int = 0
    spurious: int = 0
    qr_ok: int = 0
    qr_n: int = 0
    frames: int = 0
    errors: list[str] = field(default_factory=list)


def random_scene(layout: TableLayout, rng: np.random.Generator, tag: int) -> TableScene:
    toks: dict[str, Token] = {}
    for s in layout.stands:
        if rng.random() < 0.55:
            kind = str(rng.choice(["capital", "basecamp", "soul"])) if s.kind == "territory" else "soul"
            toks[s.id] = Token(kind, str(rng.choice(sorted(PALETTE))),
                               count=int(rng.integers(1, 4)) if kind == "soul" else 1,
                               flipped=bool(kind == "soul" and rng.random() < 0.25))
    slots: dict[str, list[SlotCard]] = {}
    for sl in layout.slots:
        u = rng.random()
        if u < 0.4:
            slots[sl.id] = [SlotCard("down", f"kpks.us/B{tag % 1000:03d}#{int(rng.integers(10000)):04d}?{sl.id}x")]
        elif u < 0.6:
            slots[sl.id] = [SlotCard("up")]
        elif u < 0.72 and not sl.id.startswith("transit"):
            slots[sl.id] = [SlotCard("landscape")]
    hands = int(rng.choice([0, 0, 0, 1, 1, 2]))
    return TableScene(toks, slots, hands)


def score(obs: BoardObservation, scene: TableScene, truth: RenderTruth, default_pose_: bool, t: Tally,
          label: str) -> None:
    for sid, o in obs.stands.items():
        tok = scene.tokens.get(sid)
        want = ("empty", None) if tok is None else (tok.kind, tok.owner)
        got = (o.state, o.owner)
        if truth.occluded[sid] > 0.0:
            t.occluded += 1
            if o.obstructed:
                t.flagged += 1
            elif got != want:
                t.false_change += 1
                t.errors.append(f"{label} {sid}: under a hand, read {got} for {want}")
            continue
        if o.obstructed:
            t.spurious += 1  # flagged though visible: costs availability, not correctness
            continue
        t.stand_n += 1
        if got == want:
            t.stand_ok += 1
        else:
            t.errors.append(f"{label} {sid}: read {got} for {want}")
    for sid, so in obs.slots.items():
        cards = scene.slots.get(sid)
        face = cards[-1].face if cards else "empty"
        if truth.occluded[sid] > 0.0:
            t.occluded += 1
            if so.obstructed:
                t.flagged += 1
            elif so.state != face:
                t.false_change += 1
                t.errors.append(f"{label} slot {sid}: under a hand, read {so.state} for {face}")
            continue
        if so.obstructed:
            t.spurious += 1
            continue
        t.slot_n += 1
        if so.state == face:
            t.slot_ok += 1
        else:
            t.errors.append(f"{label} slot {sid}: read {so.state} for {face}")
        if face == "down" and default_pose_ and cards:
            t.qr_n += 1
            t.qr_ok += so.payload == cards[-1].payload


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timing-frames", type=int, default=40)
    ap.add_argument("--no-reference", action="store_true",
                    help="read without a reference frame of the empty table (obstruction by skin colour only)")
    ap.add_argument("--breakdown", action="store_true",
                    help="also print where the timed full reads and unchanged frames spend their CPU time, per stage")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    keep_freed_memory()  # as the appliance does at start-up (tracker.cli)
    layout = table_layout(BoardMap.packaged())
    rng = np.random.default_rng(args.seed)
    weights = np.array([p[1] for p in POSES], float)
    tallies = {p[0]: Tally() for p in POSES}
    setups: dict[str, tuple[Renderer, BoardReader]] = {}
    t0 = time.perf_counter()
    tables = (args.frames + VARIANTS_PER_TABLE - 1) // VARIANTS_PER_TABLE
    timing_frames: list[np.ndarray] = []
    for k in range(tables):
        name, _, tilt, yaw, off, height = POSES[int(rng.choice(len(POSES), p=weights / weights.sum()))]
        if name not in setups:
            pose = default_pose(layout, tilt_deg=tilt, yaw_deg=yaw, offset_mm=off, height_mm=height)
            r = Renderer(layout, pose, PALETTE)
            ref = None if args.no_reference else r.render(TableScene({}), seed=999)
            setups[name] = (r, BoardReader(layout, pose, PALETTE, ref, accept=is_kipukas_payload))
        renderer, reader = setups[name]
        scene = random_scene(layout, rng, k)
        clean, truth = renderer.compose(scene, seed=k)
        for v in range(VARIANTS_PER_TABLE):
            frame = renderer.finish(clean, seed=k * 100 + v, lighting=float(rng.uniform(0.75, 1.25)),
                                    noise=float(rng.uniform(0.5, 2.0)), blur=float(rng.uniform(0.0, 1.2)),
                                    jpeg_quality=int(rng.integers(70, 96)))
            obs = reader.read(frame)
            score(obs, scene, truth, name == "default", tallies[name], f"table {k} v{v} ({name})")
            tallies[name].frames += 1
            if name == "default" and scene.hands == 0 and len(timing_frames) < args.timing_frames:
                timing_frames.append(frame)
    wall = time.perf_counter() - t0

    total = Tally()
    print(f"overhead bench: {sum(t.frames for t in tallies.values())} frames, {tables} composed tables, "
          f"seed {args.seed}, {wall:.0f} s, {'no reference frame' if args.no_reference else 'with reference frame'}")
    print(f"{'pose':<14}{'frames':>7}{'stands':>16}{'slots':>16}{'QR (default)':>16}{'false chg':>12}")
    for name, t in tallies.items():
        for f in ("stand_ok", "stand_n", "slot_ok", "slot_n", "occluded", "false_change", "flagged", "spurious",
                  "qr_ok", "qr_n", "frames"):
            setattr(total, f, getattr(total, f) + getattr(t, f))
        total.errors += t.errors
        print(f"{name:<14}{t.frames:>7}{pct(t.stand_ok, t.stand_n):>16}{pct(t.slot_ok, t.slot_n):>16}"
              f"{pct(t.qr_ok, t.qr_n):>16}{pct(t.false_change, t.occluded):>12}")
    print(f"{'all':<14}{total.frames:>7}{pct(total.stand_ok, total.stand_n):>16}{pct(total.slot_ok, total.slot_n):>16}"
          f"{pct(total.qr_ok, total.qr_n):>16}{pct(total.false_change, total.occluded):>12}")
    print(f"regions under a hand: {total.occluded}, flagged obstructed: {total.flagged}, "
          f"reported as a change: {total.false_change}; visible regions flagged obstructed anyway: "
          f"{total.spurious} ({pct(total.spurious, total.spurious + total.stand_n + total.slot_n).split()[0]})")
    for e in total.errors[:15]:
        print("  miss:", e)

    t = timing(layout, setups["default"], timing_frames)
    full, reread, still, base = t["full"], t["reread"], t["still"], t["base"]
    print(f"CPU time per 2028x1520 frame, one core (median of {len(timing_frames)}), with the camera's lores "
          f"stream: full read {full * 1e3:.1f} ms, "
          f"re-read of 2 changed regions {reread * 1e3:.1f} ms, frame where nothing changed {still * 1e3:.1f} ms; "
          f"baseline JPEG decode of the same frame {base * 1e3:.1f} ms: full = {full / base:.2f}x baseline, "
          f"re-read = {reread / base:.2f}x, nothing changed = {still / base:.2f}x "
          f"(targets: full <= 15 ms and unchanged <= 5 ms on one Pi 5 core)")
    print(f"the unchanged frames re-read {t['still_reads']:.0f} regions in {t['still_reading']:.0f} of "
          f"{len(timing_frames)} frames (regions the change test sees change in the new noise and JPEG, or "
          f"readings not yet confident) and tried {t['still_codes']:.0f} unread face-down codes again; one "
          f"that re-reads nothing costs {t['still_none'] * 1e3:.1f} ms ({t['still_none'] / base:.2f}x)"
          if t["still_none"] == t["still_none"] else
          f"the unchanged frames re-read {t['still_reads']:.0f} regions: every one re-read some")
    print(f"face-down QR decode, per new card: {t['qr_per_card'] * 1e3:.1f} ms ({t['qr_per_card'] / base:.2f}x; "
          f"{t['qr_cards']:.1f} face-down cards a frame): {t['qr_full'] * 1e3:.1f} ms of the full read, which "
          f"includes it; without it the full read is {(full - t['qr_full']) * 1e3:.1f} ms "
          f"({(full - t['qr_full']) / base:.2f}x)")
    print(f"from a source without a lores stream (the reader shrinks each frame itself): full read "
          f"{t['full_plain'] * 1e3:.1f} ms ({t['full_plain'] / base:.2f}x), frame where nothing changed "
          f"{t['still_plain'] * 1e3:.1f} ms ({t['still_plain'] / base:.2f}x)")
    print(f"speed targets (issue 14, one Pi 5 core ~ one core here): full read <= 15 ms (~1.2x a JPEG decode): "
          f"{'met' if full <= 0.015 else 'NOT met'} at {full * 1e3:.1f} ms, "
          f"{'met' if full / base <= 1.2 else 'NOT met'} as a ratio ({full / base:.2f}x); "
          f"unchanged frame <= 5 ms (~0.4x): {'met' if still <= 0.005 else 'NOT met'} at {still * 1e3:.1f} ms, "
          f"{'met' if still / base <= 0.4 else 'NOT met'} as a ratio ({still / base:.2f}x). On a loaded machine "
          f"read the ratios")
    if args.breakdown:  # a second pass, so that the timers' own cost stays out of the figures above
        with Stages() as stages:
            timing(layout, setups["default"], timing_frames, stages)
        stages.report(base)
    ok = (total.stand_ok >= 0.995 * total.stand_n and total.slot_ok >= 0.99 * total.slot_n
          and total.false_change == 0 and (total.qr_n == 0 or total.qr_ok >= 0.9 * total.qr_n))
    print("accuracy targets:", "met" if ok else "NOT met",
          "(stands >= 99.5%, slots >= 99%, QR >= 90%, no false changes)")
    return 0 if ok else 1


class Stages:
    """CPU time per stage of the timed reads (``--breakdown``): the reader's steps wrapped with a timer for
    the length of the timing, per kind of read (a stage called inside another is counted in both)."""

    STEPS = (("vision.board", "BoardReader", "_read_stand", "stands (rule + second opinion's verdict)"),
             ("vision.board", "BoardReader", "_read_slot", "slots (rule, face-down QR included)"),
             ("vision.board", "BoardReader", "_stack_stands", "stands' stacked passes (with the blur estimate)"),
             ("vision.board", "BoardReader", "_read_under", "under-mat areas"),
             ("vision.board", "BoardReader", "_ask_opinion", "patch classifier batch"),
             ("vision.board", "BoardReader", "_retry_code", "face-down code retries"),
             ("vision.obstruction", "ObstructionFinder", "find_small", "obstruction finder"),
             ("vision.motion", "MotionGuard", "update", "motion check"),
             ("vision.light", "LightModel", "measure", "light measured"),
             ("vision.board", "BoardReader", "_changed_regions", "change test"))

    def __init__(self) -> None:
        self.kind = ""
        self.spent: dict[tuple[str, str], float] = {}
        self.reads: dict[str, int] = {}
        self.total: dict[str, float] = {}
        self._undo: list[tuple[object, str, object]] = []

    def __enter__(self) -> Stages:
        import importlib
        for module, cls_name, name, label in self.STEPS:
            cls = getattr(importlib.import_module(module), cls_name)
            plain = getattr(cls, name)
            self._undo.append((cls, name, plain))
            setattr(cls, name, self._timed(plain, label))
        return self

    def __exit__(self, *exc: object) -> None:
        for cls, name, plain in self._undo:
            setattr(cls, name, plain)
        self._undo.clear()

    def _timed(self, plain: object, label: str) -> object:
        def run(*a: object, **k: object) -> object:
            t = time.process_time()
            try:
                return plain(*a, **k)  # type: ignore[operator]
            finally:
                key = (self.kind, label)
                self.spent[key] = self.spent.get(key, 0.0) + time.process_time() - t
        return run

    def count(self, kind: str, took: float) -> None:
        self.reads[kind] = self.reads.get(kind, 0) + 1
        self.total[kind] = self.total.get(kind, 0.0) + took

    def report(self, base: float) -> None:
        for kind, n in self.reads.items():
            mean = self.total[kind] / n
            parts = [(label, self.spent.get((kind, label), 0.0) / n) for *_, label in self.STEPS]
            named = sum(v for _, v in parts)
            print(f"where the time of a {kind} goes (mean of {n}, {mean * 1e3:.1f} ms = {mean / base:.2f}x a JPEG "
                  f"decode): " + ", ".join(f"{label} {v * 1e3:.1f} ms" for label, v in parts if v > 0)
                  + f"; the rest (frame checks, light, rectifying and normalising, bookkeeping) "
                  f"{(mean - named) * 1e3:.1f} ms")


def timing(layout: TableLayout, setup: tuple[Renderer, BoardReader], frames: list[np.ndarray],
           stages: Stages | None = None) -> dict[str, float]:
    """Medians of: a full read (a fresh reader, so nothing is reused), a re-read of two regions, a frame
    where nothing changed (the same table with new sensor noise and JPEG), each with the ISP's lores
    (made outside the timing: the ISP's hardware makes it); the full read and the unchanged frame again
    by a reader that shrinks each frame itself (a source without a lores), and the JPEG decode baseline.
    CPU time of this process (one thread: ``cv2.setNumThreads(1)``), so other jobs on the machine do not
    count; the ratios to the decode are still the figure to compare across machines."""
    renderer, reader = setup
    decodes: list[float] = []  # CPU time of each face-down QR decode (vision.slots.decode_qr) of a read
    plain_decode = vision.slots.decode_qr

    def timed_decode(gray: np.ndarray) -> str | None:
        t = time.process_time()
        try:
            return plain_decode(gray)
        finally:
            decodes.append(time.process_time() - t)

    vision.slots.decode_qr = timed_decode  # read_slot's face-down decode, timed inside the full read
    fulls: list[float] = []
    rereads: list[float] = []
    stills: list[float] = []
    bases: list[float] = []
    fulls_plain: list[float] = []
    stills_plain: list[float] = []
    reads: list[int] = []
    codes: list[int] = []
    qr_full: list[float] = []
    qr_cards: list[int] = []
    changed = [layout.stands[0].id, layout.slots[0].id]
    noise = np.random.default_rng(5)
    for f in frames:
        _, buf = cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 90])
        t = time.process_time()
        cv2.imdecode(buf, cv2.IMREAD_COLOR)
        bases.append(time.process_time() - t)
        again = np.clip(f + noise.normal(0.0, 2.0, f.shape), 0, 255).astype(np.uint8)
        _, buf2 = cv2.imencode(".jpg", again, [cv2.IMWRITE_JPEG_QUALITY, 90])
        again = cv2.imdecode(buf2, cv2.IMREAD_COLOR)
        lores, lores_again = simulated_lores(f), simulated_lores(again)  # the ISP's, outside the timing
        fresh = BoardReader(reader.layout, reader.pose, reader.palette, renderer.base())
        decodes.clear()
        if stages is not None:
            stages.kind = "full read"
        t = time.process_time()
        fresh.read(f, lores=lores)
        fulls.append(time.process_time() - t)
        if stages is not None:
            stages.count("full read", fulls[-1])
            stages.kind = ""
        qr_full.append(sum(decodes))
        qr_cards.append(len(decodes))
        t = time.process_time()
        fresh.read(f, only=changed, lores=lores)
        rereads.append(time.process_time() - t)
        if stages is not None:
            stages.kind = "frame where nothing changed"
        t = time.process_time()
        fresh.read(again, lores=lores_again)
        stills.append(time.process_time() - t)
        if stages is not None:
            stages.count("frame where nothing changed", stills[-1])
            stages.kind = ""
        reads.append(fresh.regions_read)
        codes.append(fresh.qr_retried)
        plain = BoardReader(reader.layout, reader.pose, reader.palette, renderer.base())
        t = time.process_time()
        plain.read(f)
        fulls_plain.append(time.process_time() - t)
        t = time.process_time()
        plain.read(again)
        stills_plain.append(time.process_time() - t)
    vision.slots.decode_qr = plain_decode
    m = statistics.median
    none = [s for s, n, c in zip(stills, reads, codes, strict=True) if n == 0 and c == 0]
    return {"full": m(fulls), "reread": m(rereads), "still": m(stills), "base": m(bases),
            "full_plain": m(fulls_plain), "still_plain": m(stills_plain), "still_reads": float(sum(reads)),
            "still_reading": float(sum(n > 0 for n in reads)), "still_none": m(none) if none else float("nan"),
            "still_codes": float(sum(codes)), "qr_full": m(qr_full), "qr_cards": statistics.mean(qr_cards),
            "qr_per_card": sum(qr_full) / max(sum(qr_cards), 1)}


def pct(ok: int, n: int) -> str:
    return f"{100.0 * ok / n:6.2f}% ({n})" if n else "-"


if __name__ == "__main__":
    sys.exit(main())
