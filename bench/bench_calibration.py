"""Calibration benchmark: does `calibrate` put every stand top within 3 px, on any lens and view?

1. The real map pictures (``shared/kipukas/images/map_top.jpeg``, ``map_top_example.png``) against their
   hand-labelled stand tops (``tests/data/real_stand_tops.json``).
2. Seeded warps of the real top-down picture into a Pi HQ camera's 2028x1520 frame (``vision.synth
   .photo_warp``), per condition: lenses 2.8-16 mm, tilts up to 45 degrees, any roll, the map filling a
   third of the frame height or more, exposure, white balance, blur, noise and JPEG; each condition draws
   the other factors at random. Prints the pass rate (every stand top within 3 px), the largest stand
   error, the focal length's error, and the median time of one calibration as a ratio to decoding a JPEG
   of the same frame in the same run.
3. Steeper views (55-65 degrees): refused, naming the tilt.
4. The pose check during play (``calibration.drift.PoseTracker``): time of one check of an unmoved table,
   and the stand error after a re-pose of a bumped camera.

Seeds: the tests use seeds 1-9 and the tuning runs used 100-108; report with the default ``--seed 1000``.

Run: .venv/bin/python bench/bench_calibration.py [--per-condition 3] [--seed 1000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.camera import CameraPose, default_pose
from calibration.drift import PoseTracker
from calibration.errors import CalibrationError
from calibration.layout import MAP_SURFACE_Z_MM
from calibration.procedure import calibrate_frame, drift_px
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import board_artwork, table_artworks, table_layout
from vision.assets import asset
from vision.synth import Renderer, TableScene
from vision.synth.photo_warp import Effects, map_pose, random_effects, warp_map_photo

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT.parent / "shared" / "kipukas" / "images"
LIMIT_PX = 3.0
# name: (lenses mm, tilt range deg, fill range, effects: "random" or "clean")
CONDITIONS: dict[str, tuple[tuple[float, ...], tuple[float, float], tuple[float, float], str]] = {
    "lens 2.8 mm": ((2.8,), (0.0, 30.0), (0.34, 0.8), "random"),
    "lens 4-6 mm": ((4.0, 6.0), (0.0, 30.0), (0.34, 0.8), "random"),
    "lens 8-12 mm": ((8.0, 12.0), (0.0, 30.0), (0.34, 0.8), "random"),
    "lens 16 mm": ((16.0,), (0.0, 30.0), (0.34, 0.8), "random"),
    "straight down": ((2.8, 6.0, 16.0), (0.0, 3.0), (0.34, 0.9), "random"),
    "tilt 30-45": ((2.8, 6.0, 16.0), (30.0, 45.0), (0.34, 0.8), "random"),
    "map a third of the frame": ((2.8, 6.0, 16.0), (0.0, 45.0), (0.33, 0.36), "random"),
    "clean light": ((2.8, 6.0, 16.0), (0.0, 45.0), (0.34, 0.8), "clean"),
}


def stand_points(layout: object) -> np.ndarray:
    return np.array([layout.stand_world(s.id) for s in layout.stands])  # type: ignore[attr-defined]


def jpeg_decode_ms(frame: np.ndarray) -> float:
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    times = []
    for _ in range(15):
        t = time.perf_counter()
        cv2.imdecode(buf, cv2.IMREAD_COLOR)
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def real_pictures(board: BoardMap) -> None:
    layout = table_layout(board)
    truth = json.loads((ROOT / "tests" / "data" / "real_stand_tops.json").read_text(encoding="utf-8"))["pictures"]
    art = board_artwork(board, layout)
    print("real pictures (hand-labelled stand tops):")
    for name, labels in truth.items():
        frame = np.asarray(cv2.imread(str(IMAGES / name)), np.uint8)
        cal = calibrate_frame(frame, layout, art, stickers=False)
        ids = sorted(labels)
        px = cal.pose.project(np.array([layout.stand_world(i) for i in ids]))
        err = np.linalg.norm(px - np.array([labels[i] for i in ids]), axis=1)
        print(f"  {name:22s} max stand error {err.max():.2f} px, median {np.median(err):.2f} px "
              f"({'pass' if err.max() < LIMIT_PX else 'FAIL'}); intrinsics {cal.intrinsics_summary()}")


def sweep(board: BoardMap, per: int, seed: int) -> None:
    layout = table_layout(board)
    art = board_artwork(board, layout)
    photo = asset(str(board.texture["file"]))
    corners = np.asarray(board.texture["board_px"], np.float64)
    pts = stand_points(layout)
    print(f"seeded warps of map_top.jpeg in a 2028x1520 frame, {per} per condition, seeds from {seed}:")
    print(f"  {'condition':26s} {'pass':>7s} {'max err px':>10s} {'focal err':>9s} {'median s':>8s} {'x JPEG':>7s}")
    all_ok = all_n = 0
    for ci, (name, (lenses, tilts, fills, fx)) in enumerate(CONDITIONS.items()):
        rng = np.random.default_rng(seed + 100 * ci)
        worst, ok, f_err, times, ratios = 0.0, 0, [], [], []
        for k in range(per):
            lens = float(lenses[k % len(lenses)])
            pose = map_pose(layout, lens, float(rng.uniform(*tilts)), float(rng.uniform(0, 360)),
                            float(rng.uniform(0, 360)), float(rng.uniform(*fills)),
                            (float(rng.uniform(-10, 10)), float(rng.uniform(-10, 10))))
            effects = random_effects(rng) if fx == "random" else Effects()
            frame = warp_map_photo(photo, corners, layout, pose, MAP_SURFACE_Z_MM, seed=int(rng.integers(1 << 30)),
                                   effects=effects)
            base = jpeg_decode_ms(frame)
            t = time.perf_counter()
            try:
                cal = calibrate_frame(frame, layout, art, stickers=False)
            except CalibrationError as exc:
                print(f"    refused ({lens} mm): {exc}")
                worst = float("inf")
                continue
            took = time.perf_counter() - t
            times.append(took)
            ratios.append(1000 * took / base)
            err = float(np.linalg.norm(cal.pose.project(pts) - pose.project(pts), axis=1).max())
            worst = max(worst, err)
            ok += err < LIMIT_PX
            f_err.append(abs(cal.pose.K[0, 0] - pose.K[0, 0]) / pose.K[0, 0])
        all_ok, all_n = all_ok + ok, all_n + per
        med = statistics.median(times) if times else float("nan")
        ratio = statistics.median(ratios) if ratios else float("nan")
        fe = 100 * max(f_err) if f_err else float("nan")
        print(f"  {name:26s} {ok:>3d}/{per:<3d} {worst:>10.2f} {fe:>8.1f}% {med:>8.2f} {ratio:>7.0f}")
    print(f"  all conditions: {all_ok}/{all_n} with every stand top within {LIMIT_PX:.0f} px")


def steep(board: BoardMap, seed: int) -> None:
    layout = table_layout(board)
    art = board_artwork(board, layout)
    photo = asset(str(board.texture["file"]))
    corners = np.asarray(board.texture["board_px"], np.float64)
    rng = np.random.default_rng(seed + 7)
    refused = 0
    lines = []
    for lens, tilt in ((6.0, 55.0), (16.0, 60.0), (2.8, 65.0)):
        pose = map_pose(layout, lens, tilt, float(rng.uniform(0, 360)), float(rng.uniform(0, 360)), 0.5)
        frame = warp_map_photo(photo, corners, layout, pose, MAP_SURFACE_Z_MM, seed=int(rng.integers(1 << 30)))
        try:
            calibrate_frame(frame, layout, art, stickers=False)
            lines.append(f"    {tilt:.0f} deg: ACCEPTED")
        except CalibrationError as exc:
            refused += 1
            lines.append(f"    {tilt:.0f} deg: {exc}")
    print(f"views tilted 55-65 degrees: {refused}/3 refused")
    print("\n".join(lines))


def bump(p: CameraPose, turn: tuple[float, float, float], shift: tuple[float, float, float]) -> CameraPose:
    R, _ = cv2.Rodrigues(p.rvec)
    dR, _ = cv2.Rodrigues(np.radians(np.array(turn)))
    r, _ = cv2.Rodrigues(dR @ R)
    return CameraPose(p.K, p.dist, np.asarray(r, np.float64), p.tvec + np.array(shift).reshape(3, 1), p.image_size)


def pose_check(board: BoardMap, seed: int) -> None:
    layout = table_layout(board)
    arts = table_artworks(board, layout)
    p0 = default_pose(layout)
    palette = {"red": (40, 40, 210), "blue": (200, 90, 30)}
    ref = Renderer(layout, p0, palette).render(TableScene({}), seed=seed)
    tracker = PoseTracker(layout, p0, ref, arts)
    same = Renderer(layout, p0, palette).render(TableScene({}, {}, hands=1), seed=seed + 1)
    base = jpeg_decode_ms(same)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        tracker.check(same)
        times.append(time.perf_counter() - t)
    check_ms = 1000 * statistics.median(times)
    print(f"pose check of an unmoved table (a hand in view): {check_ms:.1f} ms median "
          f"({check_ms / base:.1f}x a JPEG decode of the frame, {base:.1f} ms)")
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # one core, as the loop runs it; CPU time below counts every thread
    quick = []
    for _ in range(100):
        t = time.process_time()
        tracker.moved(same)
        quick.append(time.process_time() - t)
    quick_ms = 1000 * statistics.median(quick)
    lores = np.asarray(cv2.resize(same, (508, 380), interpolation=cv2.INTER_AREA), np.uint8)  # the ISP's, in hardware
    quick_lo = []
    for _ in range(100):
        t = time.process_time()
        tracker.moved(same, lores=lores)
        quick_lo.append(time.process_time() - t)
    cv2.setNumThreads(threads)
    lo_ms = 1000 * statistics.median(quick_lo)
    print(f"quick look for a move, every frame (CPU time): {lo_ms:.2f} ms median ({lo_ms / base:.3f}x a JPEG "
          f"decode) on the camera's 508x380 lores stream; {quick_ms:.2f} ms ({quick_ms / base:.3f}x) resizing the "
          f"full frame (a source without lores)")
    for turn, shift in (((0.3, -0.2, 0.5), (5.0, -3.0, 0.0)), ((1.0, 0.5, 1.0), (15.0, 10.0, 5.0)),
                        ((3.0, 2.0, 5.0), (40.0, -30.0, 20.0))):
        p1 = bump(p0, turn, shift)
        frame = Renderer(layout, p1, palette).render(TableScene({}, {}, hands=1), seed=seed + 2)
        t = time.perf_counter()
        result = PoseTracker(layout, p0, ref, arts).check(frame)
        took = time.perf_counter() - t
        print(f"  bump moving the stands {drift_px(p0, p1, layout):5.1f} px: {result.status} ({result.detail}), "
              f"stand error after {drift_px(result.pose, p1, layout):.2f} px, {took:.2f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-condition", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--pose-only", action="store_true", help="only the pose check and its quick look")
    args = ap.parse_args()
    board = BoardMap.packaged()
    if args.pose_only:
        pose_check(board, args.seed)
        return 0
    if IMAGES.is_dir():
        real_pictures(board)
    else:
        print(f"real pictures: {IMAGES} not found, skipped")
    sweep(board, args.per_condition, args.seed)
    steep(board, args.seed)
    pose_check(board, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
