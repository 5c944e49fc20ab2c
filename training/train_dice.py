"""Train the dice face network (`vision/assets/dice_faces.onnx`) on domain-randomised renders.

    nice -n 10 .venv/bin/python -m training.train_dice [--sessions 400] [--epochs 8 | --epochs 0 --minutes 20]

Steps: render the training crops (sessions `seed*10000 + i`) and the calibration crops (sessions
`seed*10000 + 9000 + i`: other poses, other dice) with `training.dice_data` on 2 worker processes (cached
in `--cache`, a file a session); train a small CNN with torch on one thread (fixed seed; each crop turned by a
random step of the turns the reader's squaring-up leaves open: quarter turns for cubes, thirds for the
D20, plus glare, dim light and jitter; classes weighted alike); fit the softmax temperature on the
calibration crops (so a probability means what it says); export to ONNX, check that
OpenCV's `cv2.dnn` gives the same answers as torch, and write the weights and the manifest
(`dice_faces.json`: SHA-256, classes, input, temperature, the training command, seeds and figures). The
acceptance per die kind is not set here: it is tuned on seed 1 of `bench/bench_dice.py --fit` and
written into the manifest by `--accept`. Needs the optional `[train]` extra (torch, onnx); nothing at
runtime does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from training.dice_data import CLASSES, D20_WEIGHTS, HARD_WEIGHTS, session
from vision.dice_crop import CROP_MM, CROP_PX
from vision.dice_net import FORMAT, MANIFEST

ASSETS = Path(__file__).resolve().parents[1] / "vision" / "assets"
MODEL = "dice_faces.onnx"
ROOT = Path(__file__).resolve().parents[1]
# the code a cached crop is the output of: the renders, the reader's candidates and the crop with its glare
# removal. Rounds 8 and 10 changed the crop without the cache's name following ("kipukas-dice-deglared" holds
# round 8's crops, not round 10's), so the name is now a hash of these files: any change gives a new cache
CROP_CODE = ("training/dice_data.py", "vision/synth/dice.py", "vision/dice.py", "vision/dice_tops.py",
             "vision/dice_crop.py", "vision/dice_glare.py")


def crop_cache() -> Path:
    """The crops' cache folder for the crop code as it is now (`~/.cache/kipukas-dice-crops-<hash>`): a
    training run can never read crops another version of the code cut; older folders are left alone."""
    digest = hashlib.sha256()
    for name in CROP_CODE:
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes())
    return Path.home() / ".cache" / f"kipukas-dice-crops-{digest.hexdigest()[:12]}"


def progress(label: str, done: int, total: int, t0: float) -> None:
    """A one-line progress bar on stderr."""
    width = 30
    k = int(width * done / max(total, 1))
    rate = done / max(time.time() - t0, 1e-6)
    eta = (total - done) / max(rate, 1e-9)
    sys.stderr.write(f"\r{label} [{'#' * k}{'.' * (width - k)}] {done}/{total} eta {eta:5.0f} s ")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _one(args: tuple[int, int, str, str]) -> int:
    """Render one session into its own cache file (skipped when it is there): an interrupted render loses at
    most the sessions under way, and training can start on the sessions rendered so far. `d20` draws the
    dice kinds with `D20_WEIGHTS` (the extra sessions' seeds are their own, so the cache cannot mix them)."""
    seed, frames, folder, mix = args
    path = Path(folder) / f"{seed}x{frames}.npz"
    if path.is_file():
        return seed
    x, y = session(seed, frames, {"d20": D20_WEIGHTS, "hard": HARD_WEIGHTS}.get(mix), hard=mix == "hard")
    tmp = path.with_suffix(".part.npz")
    np.savez_compressed(tmp, x=x, y=y)
    tmp.replace(path)
    return seed


def cached(folder: Path, seeds: list[int], frames: int, label: str, render: bool = True, workers: int = 2,
           mix: str = "") -> tuple[NDArray[np.float16], NDArray[np.int16]]:
    """The crops of `seeds` (one cache file a session in `folder`), rendering the missing ones on `workers`
    processes unless `render` is False (then only the sessions already rendered are used); `mix`: "d20" the
    D20-weighted sessions, "hard" the dim and glaring cube-weighted ones, "" the plain ones."""
    folder.mkdir(parents=True, exist_ok=True)
    if render:
        t0 = time.time()
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            jobs = [(s, frames, str(folder), mix) for s in seeds]
            for i, _ in enumerate(pool.imap_unordered(_one, jobs)):
                progress(label, i + 1, len(seeds), t0)
    xs, ys = [], []
    for s in seeds:
        path = folder / f"{s}x{frames}.npz"
        if path.is_file():
            data = np.load(path)
            if len(data["y"]):
                xs.append(data["x"])
                ys.append(data["y"])
    if not xs:
        raise FileNotFoundError(f"{folder}: no rendered session of {label}")
    return np.concatenate(xs), np.concatenate(ys)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=400, help="training sessions (camera poses)")
    ap.add_argument("--d20-sessions", type=int, default=0,
                    help="extra training sessions whose dice are mostly D20s (seeds seed*10000+5000+i)")
    ap.add_argument("--hard-sessions", type=int, default=0,
                    help="extra training sessions of cubes in dim light and glare (seeds seed*10000+6000+i)")
    ap.add_argument("--train-from", type=int, default=0,
                    help="the first training session's index (fine-tuning on sessions an earlier run did not use)")
    ap.add_argument("--hard-from", type=int, default=0, help="the first hard session's index (as --train-from)")
    ap.add_argument("--workers", type=int, default=2, help="render processes")
    ap.add_argument("--calibration-sessions", type=int, default=40)
    ap.add_argument("--frames", type=int, default=8, help="frames per session")
    ap.add_argument("--epochs", type=int, default=8, help="0: as many as fit in --minutes")
    ap.add_argument("--minutes", type=float, default=20.0, help="the training's time budget when --epochs 0")
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--init", type=Path, default=None,
                    help="start from this exported network (same architecture) instead of random weights")
    ap.add_argument("--max-lr", type=float, default=4e-3, help="the one-cycle schedule's peak learning rate")
    ap.add_argument("--cache", type=Path, default=None, help="the crops' cache (default: crop_cache())")
    ap.add_argument("--out", type=Path, default=ASSETS)
    ap.add_argument("--data-only", action="store_true", help="render (and cache) the crops, do not train")
    ap.add_argument("--no-render", action="store_true", help="train on the sessions already in the cache")
    ap.add_argument("--accept", default="", help="diel=P,d6=P,d20=P: write the acceptance into the manifest")
    ap.add_argument("--accept-hidden", default="", help="diel=P,d6=P,d20=P: with --accept, the acceptance of a "
                    "die whose mark glare may have hidden (default: the same as --accept)")
    args = ap.parse_args()
    args.cache = args.cache or crop_cache()
    if args.accept:
        return write_accept(args.out / MANIFEST, args.accept, args.accept_hidden)
    base = args.seed * 10000
    hard0 = base + 6000 + args.hard_from
    calib = cached(args.cache, [base + 9000 + i for i in range(args.calibration_sessions)], args.frames,
                   "render calib", not args.no_render, args.workers)
    parts = []
    for label, first, count, mix in (("render train", args.train_from, args.sessions, ""),
                                     ("render d20", 5000, args.d20_sessions, "d20"),
                                     ("render hard", 6000 + args.hard_from, args.hard_sessions, "hard")):
        if count:
            parts.append(cached(args.cache, [base + first + i for i in range(count)], args.frames, label,
                                not args.no_render, args.workers, mix=mix))
    if not parts:
        raise SystemExit("no training sessions: give --sessions, --d20-sessions or --hard-sessions")
    train = (np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts]))
    print(f"crops: {len(train[1])} training, {len(calib[1])} calibration", file=sys.stderr)
    if args.data_only:
        return 0
    from training.dice_fit import fit_and_export  # torch only when training

    init = args.init.read_bytes() if args.init is not None else None  # before the export may overwrite it
    args.init_sha = hashlib.sha256(init).hexdigest() if init is not None else ""
    figures = fit_and_export(train, calib, args.epochs, args.seed, args.out / MODEL, args.minutes, init,
                             args.max_lr)
    raw = (args.out / MODEL).read_bytes()
    manifest = {
        "format": FORMAT,
        "model": MODEL,
        "sha256": hashlib.sha256(raw).hexdigest(),
        "bytes": len(raw),
        "classes": list(CLASSES),
        "input": {"px": CROP_PX, "mm": CROP_MM, "what": "vision.dice_crop.face_crop"},
        "temperature": figures.pop("temperature"),
        "accept": {"diel": 0.99, "d6": 0.99, "d20": 0.99},
        "accept_note": "set by bench/bench_dice.py --fit --seed 1 (tuning seed), then --accept",
        "training": {
            "command": (f"nice -n 10 .venv/bin/python -m training.train_dice --sessions {args.sessions} "
                        f"--d20-sessions {args.d20_sessions} --hard-sessions {args.hard_sessions} "
                        f"--calibration-sessions {args.calibration_sessions} --frames {args.frames} "
                        f"--epochs {figures['epochs']} --seed {args.seed} --max-lr {args.max_lr}"
                        + (f" --train-from {args.train_from}" if args.train_from else "")
                        + (f" --hard-from {args.hard_from}" if args.hard_from else "")
                        + (f" --init {args.init}" if args.init is not None else "")),
            "train_sessions": f"{base + args.train_from}..{base + args.train_from + args.sessions - 1}"
            if args.sessions else "",
            "d20_sessions": f"{base + 5000}..{base + 5000 + args.d20_sessions - 1}" if args.d20_sessions else "",
            "hard_sessions": f"{hard0}..{hard0 + args.hard_sessions - 1}" if args.hard_sessions else "",
            "init_sha256": args.init_sha,
            "calibration_sessions": f"{base + 9000}..{base + 9000 + args.calibration_sessions - 1}",
            "crops": {"train": len(train[1]), "calibration": len(calib[1])},
            **figures,
        },
    }
    (args.out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps(manifest["training"], indent=1))
    return 0


def write_accept(path: Path, spec: str, hidden: str = "") -> int:
    """Write the acceptance `spec` (kind=p,...) into the manifest at `path`, and `hidden` as its
    `accept_hidden` (round 13: dice whose mark glare may have hidden; without it, the same as `accept`)."""
    manifest = json.loads(path.read_text())
    for part in spec.split(","):
        kind, p = part.split("=")
        manifest["accept"][kind.strip()] = float(p)
    manifest["accept_hidden"] = dict(manifest["accept"])
    for part in hidden.split(",") if hidden else ():
        kind, p = part.split("=")
        manifest["accept_hidden"][kind.strip()] = max(float(p), manifest["accept"][kind.strip()])
    path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps({"accept": manifest["accept"], "accept_hidden": manifest["accept_hidden"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
