"""Train a D20 numeral network (`build/dice_d20/dice_d20.onnx`) on the D20 crops of the dice renders.

    nice -n 10 .venv/bin/python -m training.train_d20 [--sessions 240] [--epochs 0 --minutes 30]
    nice -n 10 .venv/bin/python -m training.train_d20 --fit-only      # temperature again, on the calibration crops
    .venv/bin/python -m training.train_d20 --accept 0.99               # the acceptance, once tuned

The crops are `training.train_dice`'s, from its cache (rendered there when missing): the D20-weighted
sessions `seed*10000 + 5000 + i` and, for calibration, the face network's own calibration sessions
`seed*10000 + 9000 + i` (so both networks are scored on the same crops; never trained on, never a bench
scene). Only the D20 crops are kept. The shared face network still says which kind a die is; this one only
reads the numeral of a die already typed D20 (`vision.dice_d20`). After training (`training.d20_fit`, torch
on one thread) the temperature is fitted on the calibration crops through the reader's own loader with the
turned views, and the manifest (`dice_d20.json`: SHA-256, input, temperature, the command, seeds, losses,
figures) is written. The acceptance is not set here: it is tuned on the calibration crops and the bench's
tuning seeds (`bench/bench_dice.py --fit`) and written with `--accept`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from training.dice_data import CLASSES
from training.train_dice import cached, crop_cache
from vision.dice_crop import CROP_MM, CROP_PX
from vision.dice_d20 import D20_FORMAT, D20_MANIFEST, D20Net, load_d20_net

MODEL = "dice_d20.onnx"
FIRST = CLASSES.index("d20:1")


def d20_only(data: tuple[NDArray[np.float16], NDArray[np.int16]]) -> tuple[NDArray[np.float16], NDArray[np.int16]]:
    """The D20 crops of `data` (labels stay `CLASSES` indices)."""
    x, y = data
    keep = (y >= FIRST) & (y < FIRST + 20)
    return x[keep], y[keep]


def calibration_logits(net: D20Net, x: NDArray[np.float16]) -> NDArray[np.float64]:
    out = [net.logits([c.astype(np.float32) for c in x[i:i + 256]]) for i in range(0, len(x), 256)]
    return np.concatenate(out) if out else np.zeros((0, 20))


def softmax(logits: NDArray[np.float64], t: float) -> NDArray[np.float64]:
    z = logits / t
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return np.asarray(p / p.sum(axis=1, keepdims=True), np.float64)


def nll(logits: NDArray[np.float64], y: NDArray[np.int64], t: float) -> float:
    p = softmax(logits, t)
    return float(-np.log(np.maximum(p[np.arange(len(y)), y], 1e-12)).mean())


def score(logits: NDArray[np.float64], y: NDArray[np.int64], t: float, accept: float) -> dict[str, float]:
    """Top-1, the share read at `accept`, wrong ones accepted, the most confident wrong guess."""
    p = softmax(logits, t)
    pred, conf = p.argmax(axis=1), p.max(axis=1)
    right = pred == y
    return {"top1": round(float(right.mean()), 4), "read_at_accept": round(float((right & (conf >= accept)).mean()), 4),
            "wrong_accepted": int((~right & (conf >= accept)).sum()),
            "most_confident_wrong": round(float(conf[~right].max(initial=0.0)), 5)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=240, help="D20-weighted training sessions")
    ap.add_argument("--calibration-sessions", type=int, default=40)
    ap.add_argument("--frames", type=int, default=8, help="frames per session")
    ap.add_argument("--workers", type=int, default=2, help="render processes")
    ap.add_argument("--epochs", type=int, default=0, help="0: as many as fit in --minutes")
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--width", type=int, default=16, help="channels of the first stage")
    ap.add_argument("--seed", type=int, default=22, help="the sessions' seed (train_dice's) and torch's")
    ap.add_argument("--max-lr", type=float, default=4e-3)
    ap.add_argument("--init", type=Path, default=None,
                    help="fine-tune the face network's architecture from this exported network (its D20 rows)")
    ap.add_argument("--cache", type=Path, default=None, help="the crops' cache (default: crop_cache())")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "build" / "dice_d20",
                    help="the candidate's folder (none is shipped in vision/assets: round 10, docs/dice.md)")
    ap.add_argument("--no-render", action="store_true", help="train on the sessions already in the cache")
    ap.add_argument("--fit-only", action="store_true", help="fit the temperature of the network in --out again")
    ap.add_argument("--accept", type=float, default=None, help="write this acceptance into the manifest")
    args = ap.parse_args()
    args.cache = args.cache or crop_cache()
    path = args.out / D20_MANIFEST
    if args.accept is not None:
        manifest = json.loads(path.read_text())
        manifest["accept"] = args.accept
        path.write_text(json.dumps(manifest, indent=1) + "\n")
        print(f"written: {path} accept {args.accept}")
        return 0
    base = args.seed * 10000
    calib = d20_only(cached(args.cache, [base + 9000 + i for i in range(args.calibration_sessions)], args.frames,
                            "render calib", not args.no_render and not args.fit_only, args.workers))
    yc = calib[1].astype(np.int64) - FIRST
    if not args.fit_only:
        train = d20_only(cached(args.cache, [base + 5000 + i for i in range(args.sessions)], args.frames,
                                "render d20", not args.no_render, args.workers, mix="d20"))
        print(f"D20 crops: {len(train[1])} training, {len(calib[1])} calibration", file=sys.stderr)
        from training.d20_fit import fit_and_export  # torch only when training

        init = args.init.read_bytes() if args.init is not None else None
        figures = fit_and_export(train, calib, args.epochs, args.seed, args.out / MODEL, args.width, args.minutes,
                                 args.max_lr, init)
        if init is not None:
            figures["init_sha256"] = hashlib.sha256(init).hexdigest()
        raw = (args.out / MODEL).read_bytes()
        manifest = {
            "format": D20_FORMAT, "model": MODEL, "sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw),
            "classes": [str(n) for n in range(1, 21)],
            "input": {"px": CROP_PX, "mm": CROP_MM, "what": "vision.dice_crop.face_crop"},
            "temperature": 1.0, "accept": 1.01,
            "accept_note": "set on the calibration crops and bench/bench_dice.py --fit tuning seeds, then --accept",
            "training": {
                "command": (f"nice -n 10 .venv/bin/python -m training.train_d20 --sessions {args.sessions} "
                            f"--calibration-sessions {args.calibration_sessions} --frames {args.frames} "
                            f"--epochs {figures['epochs']} --width {args.width} --seed {args.seed} "
                            f"--max-lr {args.max_lr}" + (f" --init {args.init}" if args.init else "")),
                "train_sessions": f"{base + 5000}..{base + 5000 + args.sessions - 1} (training.dice_data.D20_WEIGHTS)",
                "calibration_sessions": f"{base + 9000}..{base + 9000 + args.calibration_sessions - 1}",
                "crops": {"train": len(train[1]), "calibration": len(calib[1])},
                **figures,
            },
        }
        path.write_text(json.dumps(manifest, indent=1) + "\n")
    manifest = json.loads(path.read_text())
    net = load_d20_net(args.out)
    logits = calibration_logits(net, calib[0])
    t = float(min(np.arange(0.3, 5.0, 0.02), key=lambda v: nll(logits, yc, float(v))))
    manifest["temperature"] = round(t, 3)
    manifest["training"]["calibration"] = score(logits, yc, t, float(manifest["accept"]))
    path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps(manifest["training"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
