"""Score a dice face network on the calibration crops, and fit its temperature for the turned views.

    nice -n 10 .venv/bin/python -m training.dice_eval [--net vision/assets] [--fit-temperature]

The calibration crops are `training.train_dice`'s calibration sessions (`seed*10000 + 9000 + i`, read from
its cache; never trained on, never a bench scene). Each crop is read as the reader reads it
(`vision.dice_net.FaceNet`, `cv2.dnn`), with the turned views of its die's shape (`vision.dice_net.VIEWS`)
when the manifest says `"views": "symmetry"`; the shape is taken from the crop's true kind, as the reader
accepts a face only when the die's shape agrees with it. Printed per kind: top-1, how many crops the
manifest's acceptance reads and how many wrong ones it accepts, the most confident wrong guess, and (for the
touching dice's rule in `vision.dice`) how many crops of another kind are named with p >= `SPLIT_ACCEPT`.

`--fit-temperature` fits the softmax temperature on these crops (the negative log-likelihood, as the
training does) with the turned views on, and writes it and `"views": "symmetry"` into the manifest (its
SHA-256 covers the weights only, which do not change). This is how a network is compared with another on
the same crops before any report seed is run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from training.dice_data import CLASSES
from training.train_dice import ASSETS, cached, crop_cache
from vision.dice import SPLIT_ACCEPT
from vision.dice_net import MANIFEST, FaceNet, load_face_net

SHAPE_OF = {"diel": "cube", "d6": "cube", "d20": "icosahedron"}


def calibration_logits(net: FaceNet, x: NDArray[np.float16], y: NDArray[np.int16]) -> NDArray[np.float64]:
    """The network's logits of every crop, turned views by the shape of its true kind."""
    shapes = [SHAPE_OF[CLASSES[int(c)].split(":")[0]] for c in y]
    out = []
    for i in range(0, len(y), 256):
        crops = [c.astype(np.float32) for c in x[i:i + 256]]
        out.append(net.logits(crops, shapes[i:i + 256]))
    return np.concatenate(out)


def nll(logits: NDArray[np.float64], y: NDArray[np.int16], t: float) -> float:
    z = logits / t
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(y)), y.astype(int)].mean())


def report(logits: NDArray[np.float64], y: NDArray[np.int16], t: float, accept: dict[str, float]) -> None:
    z = logits / t
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    pred, conf = p.argmax(axis=1), p.max(axis=1)
    kinds = np.array([CLASSES[int(c)].split(":")[0] for c in y])
    guessed = np.array([CLASSES[int(c)].split(":")[0] for c in pred])
    for kind in ("diel", "d6", "d20"):
        m = kinds == kind
        right = pred[m] == y[m]
        own = guessed[m] == kind
        sure = conf[m] >= np.array([accept[g] for g in guessed[m]])
        wrong = ~right & sure & own
        worst = float(conf[m][~right & own].max(initial=0.0))
        other = int(np.sum(~own & (conf[m] >= SPLIT_ACCEPT)))
        print(f"{kind:5} crops {int(m.sum()):5d}  top-1 {100 * right.mean():5.1f} %  read at accept {accept[kind]} "
              f"{100 * (right & sure).mean():5.1f} %  wrong accepted {int(wrong.sum())}  most confident wrong "
              f"(same kind) p={worst:.4f}  other kind at p>={SPLIT_ACCEPT}: {other}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--net", type=Path, default=ASSETS, help="folder of the network and its manifest")
    ap.add_argument("--cache", type=Path, default=None, help="the crops' cache (default: crop_cache())")
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--calibration-sessions", type=int, default=40)
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--fit-temperature", action="store_true", help="fit it with the turned views and write it")
    args = ap.parse_args()
    args.cache = args.cache or crop_cache()
    base = args.seed * 10000
    x, y = cached(args.cache, [base + 9000 + i for i in range(args.calibration_sessions)], args.frames,
                  "calibration", render=False)
    net = load_face_net(args.net)
    print(f"{args.net}: views {'turned' if net.turned else 'one'}, temperature {net.temperature}, "
          f"{len(y)} calibration crops")
    report(calibration_logits(net, x, y), y, net.temperature, net.accept)
    if args.fit_temperature:
        net.turned = True
        logits = calibration_logits(net, x, y)
        t = float(min(np.arange(0.3, 5.0, 0.02), key=lambda v: nll(logits, y, float(v))))
        print(f"turned views, temperature fitted: {t:.2f}")
        report(logits, y, t, net.accept)
        path = args.net / MANIFEST
        manifest = json.loads(path.read_text())
        manifest["temperature"] = round(t, 3)
        manifest["views"] = "symmetry"
        manifest["views_note"] = ("the temperature fitted with the turned views on the calibration crops: nice -n 10 "
                                  ".venv/bin/python -m training.dice_eval --fit-temperature (after the training "
                                  "command)")
        path.write_text(json.dumps(manifest, indent=1) + "\n")
        print(f"written: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
