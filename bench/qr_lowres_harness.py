"""Where face-down QR codes fail at low resolution: a sweep of px/module x blur, independent of the bench seeds.

Every mat slot holds a face-down card; the table is rendered at an image size that gives the wanted frame
px per module (2028 x 1520 gives ~2.7) and a Gaussian blur (frame px). Per condition it prints, of the
codes in one frame:

- ``reader``: what ``vision.slot_qr.read_window`` (the path on main) reads;
- ``finders``: how often its finder search put a candidate within a module of the true code;
- ``oracle grid``: the path's grid sampling + decoding given the TRUE registration (from a sharp
  2028 x 1520 render of the same scene: the code window is in mm, so it is the same at every size);
- ``solver``: the module solver (``vision.qr_solve``) alone, registering itself;
- ``solver err``: the solver's modules wrong against the truth (its first solution where none decoded);
- ``ms/code`` (main's reader, the solver) and ``solver/jpeg``: the solver's CPU per code over a JPEG decode
  of a frame of that size, measured in the same process.

Scenes use seeds 500+ (never the stress bench's 7 / 11 nor the tests' seeds).

Run: PYTHONPATH=. .venv/bin/python bench/qr_lowres_harness.py [--scenes 2] [--ppm 1.2 1.4 ...] [--blur 0 1 ...]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import zxingcpp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from rules.kipukas.identity import is_kipukas_payload
from tracker.overhead.layout import table_layout
from vision.qr_decoders import as_grey
from vision.qr_grid import module_means
from vision.qr_solve import solve_window
from vision.regions import slot_regions
from vision.slot_qr import (
    WINDOW_PX_PER_MM,
    Deconvolver,
    decode_means,
    find_code,
    grid_view,
    qr_window,
    read_window,
    window_of,
    window_sigmas,
)
from vision.synth import Renderer, SlotCard, TableScene
from vision.synth.cards import qr_modules
from vision.warp import Mat3

PX_PER_MODULE_2028 = 2.7


def _oracle(window: npt.NDArray[np.uint8], payload: str) -> tuple[Mat3, npt.NDArray[np.bool_]] | None:
    """The true module -> window-px map of the code in a sharp window, and the true modules."""
    truth = qr_modules(payload)[2:-2, 2:-2].astype(bool)
    n = truth.shape[0]
    for sym in zxingcpp.read_barcodes(window, formats=zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)):
        if sym.text != payload:
            continue
        p = sym.position
        dst = np.array([[q.x, q.y] for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)], np.float32)
        src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
        best: tuple[float, Mat3] | None = None
        for dx in np.linspace(-0.5, 0.5, 5):
            for dy in np.linspace(-0.5, 0.5, 5):
                for ds in (-0.5, 0.0, 0.5):
                    s2 = src.copy()
                    s2 += np.array([dx, dy], np.float32)
                    s2 = (s2 - n / 2) * (n + ds) / n + n / 2
                    H = np.asarray(cv2.getPerspectiveTransform(s2, dst), np.float64)
                    means = module_means(grid_view(window.astype(np.float32), H, n), n)
                    c = float(np.corrcoef(means.ravel(), (~truth).ravel().astype(np.float32))[0, 1])
                    if best is None or c > best[0]:
                        best = (c, H)
        assert best is not None
        return best[1], truth
    return None


def _oracle_read(window: npt.NDArray[np.float32], fppm: float, mapping: Mat3, n: int, version: int) -> bool:
    deconv = Deconvolver(window)
    for s in window_sigmas(fppm):
        means = module_means(grid_view(deconv(s), mapping, n), n)
        if decode_means(means, version, is_kipukas_payload) is not None:
            return True
    return False


def _jpeg_decode_s(rend: Renderer) -> float:
    """CPU seconds to decode one frame of ``rend``'s size from JPEG (q90), the median of 15: the
    baseline the solver's time per code is given against, measured in the same process."""
    _, buf = cv2.imencode(".jpg", rend.render(TableScene({}), seed=1), [cv2.IMWRITE_JPEG_QUALITY, 90])
    times = []
    for _ in range(15):
        t = time.thread_time()
        cv2.imdecode(buf, cv2.IMREAD_COLOR)
        times.append(time.thread_time() - t)
    return float(np.median(times))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=2)
    ap.add_argument("--seed", type=int, default=500)
    ap.add_argument("--ppm", type=float, nargs="*", default=[1.2, 1.4, 1.7, 2.0, 2.7])
    ap.add_argument("--blur", type=float, nargs="*", default=[0.0, 1.0, 1.5, 2.0])
    ap.add_argument("--frames", type=int, default=1, help="frames fused (the window mean)")
    ap.add_argument("--jpeg", type=int, default=90, help="JPEG quality of the frames")
    ap.add_argument("--skip-main", action="store_true", help="skip main's reader (slow when it fails)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    layout = table_layout(BoardMap.packaged())
    sharp_pose = default_pose(layout)
    sharp = Renderer(layout, sharp_pose, {"red": (40, 40, 210)})
    sharp_regs = slot_regions(layout, sharp_pose)
    print("ppm  blur  frames  codes  reader  finders  oracle-grid  solver  solver-err  ms/code(main, solver)"
          "  solver/jpeg")
    for ppm in args.ppm:
        f = ppm / PX_PER_MODULE_2028
        size = (round(2028 * f), round(1520 * f))
        pose = default_pose(layout, image_size=size)
        rend = Renderer(layout, pose, {"red": (40, 40, 210)})
        regs = slot_regions(layout, pose)
        jpeg_s = _jpeg_decode_s(rend)
        print(f"{size[0]}x{size[1]}: a JPEG decode (q90) of the frame takes {1000 * jpeg_s:.1f} ms CPU", flush=True)
        for blur in args.blur:
            c = {"n": 0, "reader": 0, "finders": 0, "oracle": 0, "solver": 0, "err": 0.0, "errn": 0}
            t_main = t_solve = 0.0
            for k in range(args.scenes):
                seed = args.seed + k
                rng = np.random.default_rng(seed)
                slots = {s.id: [SlotCard("down", f"kpks.us/H{seed:03d}#{int(rng.integers(10000)):04d}?{s.id}")]
                         for s in layout.slots}
                scene = TableScene({}, slots)
                ref, _ = sharp.compose(scene, seed=seed)
                ref_f = sharp.finish(ref, seed=seed, noise=0.0)
                comp, _ = rend.compose(scene, seed=seed)
                frames = [rend.finish(comp, seed=seed * 10 + i, blur=blur, jpeg_quality=args.jpeg)
                          for i in range(args.frames)]
                for sid, reg in regs.items():
                    payload = slots[sid][0].payload
                    assert payload is not None
                    sw = qr_window(sharp_regs[sid].H, sharp_regs[sid].px_per_mm, sharp_regs[sid].size)
                    oracle = _oracle(window_of(ref_f, sw), payload)
                    win = qr_window(reg.H, reg.px_per_mm, reg.size)
                    view = np.mean([window_of(fr, win).astype(np.float32) for fr in frames], axis=0)
                    view = np.asarray(view, np.float32)
                    c["n"] += 1
                    if not args.skip_main:
                        t = time.thread_time()
                        c["reader"] += read_window(view, win.frame_px_per_mm, is_kipukas_payload) == payload
                        t_main += time.thread_time() - t
                    t = time.thread_time()
                    res = solve_window(view, win.frame_px_per_mm, is_kipukas_payload)
                    t_solve += time.thread_time() - t
                    c["solver"] += res.payload == payload
                    if oracle is None:
                        continue
                    H, truth = oracle
                    n = truth.shape[0]
                    version = (n - 17) // 4
                    centre = H @ np.array([n / 2, n / 2, 1.0])
                    centre = centre[:2] / centre[2]
                    module = math.dist(tuple(H[:2, 2] / H[2, 2]), tuple((H @ [n, 0, 1])[:2] / (H @ [n, 0, 1])[2])) / n
                    guide_sigma = window_sigmas(win.frame_px_per_mm, (1.0,))[0]
                    guide = as_grey(np.clip(Deconvolver(view)(guide_sigma), 0, 255))
                    c["finders"] += any(math.dist(cand.centre, tuple(centre)) < module
                                        for cand in find_code(guide, WINDOW_PX_PER_MM))
                    c["oracle"] += _oracle_read(view, win.frame_px_per_mm, H, n, version)
                    if res.modules is not None and res.modules.shape == truth.shape:
                        c["err"] += float((res.modules != truth).mean())
                        c["errn"] += 1
            n = max(c["n"], 1)
            # the solver's module errors where it registered (no code fitted: no modules, "-")
            err = f"{100 * c['err'] / c['errn']:9.1f}%" if c["errn"] else f"{'-':>10}"
            print(f"{ppm:4.1f} {blur:5.2f} {args.frames:6d} {c['n']:6d} {100 * c['reader'] / n:6.0f}% "
                  f"{100 * c['finders'] / n:7.0f}% {100 * c['oracle'] / n:10.0f}% {100 * c['solver'] / n:6.0f}% "
                  f"{err}  {1000 * t_main / n:6.0f} {1000 * t_solve / n:6.0f}  {t_solve / n / jpeg_s:10.1f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
