"""Train the stand and slot patch classifiers (``vision.patch_classifier``) on domain-randomised renders.

    nice -n 10 .venv/bin/python -m training.train_patches [--scenes 160] [--workers 2] [--out vision/assets]

Reproducible on a CPU: the training scenes are seeds ``seed*100000 + i``, the calibration scenes (for the
temperature that makes the probabilities honest, and the reported accuracy) ``val_seed*100000 + i``, torch
is seeded and single-threaded per worker. Writes ``patch_stands.onnx`` / ``patch_slots.onnx`` (the network
up to its 64 features, for ``cv2.dnn``), ``patch_stands_head.npz`` / ``patch_slots_head.npz`` (last layer
and temperature) and ``patch_classifier.json`` (classes, SHA-256 of every file, this run's configuration
and figures). Needs the ``[train]`` extra (torch, onnx); the reader never imports this package.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import partial
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from training.patch_data import PatchSet, build
from vision.patch_classifier import (
    FORMAT,
    INPUT,
    MANIFEST,
    SLOT_CLASSES,
    STAND_CLASSES,
    Head,
    PatchNet,
    Weights,
    head_bytes,
    sha256,
    to_blob,
)

FEATURES = 64


WIDTHS = {"stands": (12, 24, 48), "slots": (8, 16, 32)}  # the stand network needed more room (docs/overhead.md)


class Body(nn.Module):
    """Three 3x3 conv blocks (``widths`` channels, batch-normalised, each halving the size) and a 64-unit
    hidden layer: small enough to train on two shared cores and to run a frame's regions in a few ms."""

    def __init__(self, widths: tuple[int, int, int]) -> None:
        super().__init__()
        a, b, c = widths
        self.net = nn.Sequential(
            nn.Conv2d(3, a, 3, padding=1), nn.BatchNorm2d(a), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(b, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Dropout(0.2), nn.Linear(c * (INPUT // 8) ** 2, FEATURES), nn.ReLU(),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.net(x)
        return out


def _scene(seed: int, low: bool = False, blurred: bool = False, dice: bool = False,
           rounded: bool = False, d20_share: float | None = None) -> PatchSet:
    torch.set_num_threads(1)
    layout = table_layout(BoardMap.packaged())
    return build(layout, [seed], SHOTS, VIEWS, progress=False, low=low, blurred=blurred, dice=dice,
                 rounded=rounded, d20_share=d20_share)


SHOTS, VIEWS = 3, 2


def render(seeds: list[int], workers: int, what: str, low: bool = False, blurred: bool = False,
           dice: bool = False, rounded: bool = False, d20_share: float | None = None) -> PatchSet:
    """Patches of the scenes ``seeds`` (``low``: half resolution, heavy JPEG; ``blurred``: half resolution,
    blur 1.5-2.5 px, mostly square pieces; ``dice``: dice in the players' colours on territory stands;
    ``rounded``: real-looking dice on stands too, ``d20_share`` of them D20s)
    rendered by ``workers`` processes, with a progress bar."""
    parts: list[PatchSet] = []
    t0 = time.perf_counter()
    with Pool(workers) as pool:
        scene = partial(_scene, low=low, blurred=blurred, dice=dice, rounded=rounded, d20_share=d20_share)
        for i, ps in enumerate(pool.imap(scene, seeds)):
            parts.append(ps)
            done = (i + 1) / len(seeds)
            eta = (time.perf_counter() - t0) / done * (1 - done)
            print(f"\r{what}: [{'#' * int(30 * done):<30}] {i + 1}/{len(seeds)} scenes, {eta:4.0f} s left",
                  end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return PatchSet(np.concatenate([p.stands for p in parts]), np.concatenate([p.stand_labels for p in parts]),
                    np.concatenate([p.slots for p in parts]), np.concatenate([p.slot_labels for p in parts]))


def _augment(x: torch.Tensor, g: torch.Generator, rotate: bool) -> torch.Tensor:
    if torch.rand(1, generator=g).item() < 0.5:
        x = x.flip(3)
    if torch.rand(1, generator=g).item() < 0.5:
        x = x.flip(2)
    if rotate and torch.rand(1, generator=g).item() < 0.5:
        x = x.transpose(2, 3)  # stands look the same turned a quarter (slots do not: landscape cards)
    gain = 1.0 + 0.12 * (torch.rand((x.shape[0], 3, 1, 1), generator=g) - 0.5)
    return (x + 0.5) * gain - 0.5


def train(x: NDArray[np.uint8], y: NDArray[np.int64], classes: int, epochs: int, seed: int,
          rotate: bool, what: str, unknown: tuple[int, float] = (-1, 1.0)) -> tuple[Body, nn.Linear, list[float]]:
    """The body and last layer after ``epochs`` (cosine learning rate), and the loss of every epoch;
    ``unknown``: (class index, factor) by which that class's loss weight is multiplied."""
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    body, head = Body(WIDTHS[what]), nn.Linear(FEATURES, classes)
    xt, yt = torch.from_numpy(to_blob(x)), torch.from_numpy(y)
    counts = np.bincount(y, minlength=classes).astype(np.float64)
    weight = torch.tensor(counts.sum() / np.maximum(counts, 1.0) / classes, dtype=torch.float32).clamp(max=5.0)
    if unknown[0] >= 0:
        weight[unknown[0]] *= unknown[1]
    params = list(body.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    loss_fn = nn.CrossEntropyLoss(weight=weight)
    t0 = time.perf_counter()
    losses: list[float] = []
    for epoch in range(epochs):
        body.train()
        order = torch.randperm(len(yt), generator=g)
        total = 0.0
        for i in range(0, len(order), 256):
            idx = order[i:i + 256]
            loss = loss_fn(head(body(_augment(xt[idx], g, rotate))), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        sched.step()
        losses.append(round(total / len(yt), 4))
        done = (epoch + 1) / epochs
        eta = (time.perf_counter() - t0) / done * (1 - done)
        print(f"\rtraining {what}: [{'#' * int(30 * done):<30}] epoch {epoch + 1}/{epochs}, "
              f"loss {total / len(yt):.4f}, {eta:4.0f} s left", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    body.eval()
    return body, head, losses


def fit_temperature(logits: NDArray[np.float32], y: NDArray[np.int64]) -> float:
    """The temperature that minimises the negative log-likelihood of the calibration set."""
    best, best_t = np.inf, 1.0
    for t in np.exp(np.linspace(np.log(0.3), np.log(8.0), 120)):
        z = logits / t
        z = z - z.max(1, keepdims=True)
        nll = float(-(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(1))).mean())
        if nll < best:
            best, best_t = nll, float(t)
    return best_t


def export(body: Body, head: nn.Linear, temperature: float, name: str, out: Path) -> dict[str, Any]:
    path = out / f"{name}.onnx"
    torch.onnx.export(body, (torch.zeros(1, 3, INPUT, INPUT),), path, input_names=["patch"], output_names=["features"],
                      dynamic_axes={"patch": {0: "n"}, "features": {0: "n"}}, opset_version=13, dynamo=False)
    body_bytes = path.read_bytes()
    h = Head(head.weight.detach().numpy().astype(np.float32), head.bias.detach().numpy().astype(np.float32),
             temperature)
    hb = head_bytes(h)
    (out / f"{name}_head.npz").write_bytes(hb)
    return {"body": {"file": f"{name}.onnx", "sha256": sha256(body_bytes)},
            "head": {"file": f"{name}_head.npz", "sha256": sha256(hb)}}


def evaluate(net: PatchNet, x: NDArray[np.uint8], y: NDArray[np.int64]) -> dict[str, float]:
    """Accuracy, and of the patches the network is confident on (>= 0.9), the share it gets wrong."""
    p = np.concatenate([net.probs(x[i:i + 256]) for i in range(0, len(x), 256)])
    pred = p.argmax(1)
    conf = p.max(1) >= 0.9
    return {"accuracy": round(float((pred == y).mean()), 4), "confident": round(float(conf.mean()), 4),
            "wrong_when_confident": round(float((pred[conf] != y[conf]).mean()) if conf.any() else 0.0, 4)}


def joined(parts: list[PatchSet]) -> PatchSet:
    """One patch set of several, in order."""
    return PatchSet(*(np.concatenate([getattr(p, f) for p in parts])
                      for f in ("stands", "stand_labels", "slots", "slot_labels")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="torch seed and the first training scenes")
    ap.add_argument("--more-seeds", type=int, nargs="*", default=[3],
                    help="further training scene seeds (each --scenes scenes)")
    ap.add_argument("--val-seed", type=int, default=2, help="calibration scenes (never trained on)")
    ap.add_argument("--scenes", type=int, default=130)
    ap.add_argument("--val-scenes", type=int, default=30)
    ap.add_argument("--low-seeds", type=int, nargs="*", default=[5],
                    help="training scene seeds photographed at 1014x760, JPEG q20-40 (each --low-scenes scenes)")
    ap.add_argument("--low-scenes", type=int, default=100)
    ap.add_argument("--val-low-seed", type=int, default=6,
                    help="calibration scenes at 1014x760, JPEG q20-40 (--val-low-scenes; 0 scenes: none)")
    ap.add_argument("--val-low-scenes", type=int, default=15)
    ap.add_argument("--blur-seeds", type=int, nargs="*", default=[],
                    help="training scene seeds photographed at 1014x760, blur 1.5-2.5 px, mostly square pieces "
                         "(each --blur-scenes scenes; none in the shipped weights: lies13 tried 7, docs/overhead.md)")
    ap.add_argument("--blur-scenes", type=int, default=100)
    ap.add_argument("--val-blur-seed", type=int, default=8,
                    help="calibration scenes at 1014x760, blur 1.5-2.5 px (--val-blur-scenes; 0 scenes: none)")
    ap.add_argument("--val-blur-scenes", type=int, default=0)
    ap.add_argument("--die-seeds", type=int, nargs="*", default=[],
                    help="training scene seeds with dice in the players' colours on territory stands "
                         "(each --die-scenes scenes)")
    ap.add_argument("--die-scenes", type=int, default=100)
    ap.add_argument("--val-die-seed", type=int, default=10,
                    help="calibration scenes with players' dice (--val-die-scenes; 0 scenes: none)")
    ap.add_argument("--val-die-scenes", type=int, default=0)
    ap.add_argument("--unknown-weight", type=float, default=1.0,
                    help="factor on the stand network's loss weight of \"unknown\" (covered stands)")
    ap.add_argument("--rounded-die-seeds", type=int, nargs="*", default=[],
                    help="training scene seeds of the dice category with real-looking (vision.synth.dice) dice "
                         "on territory and movement stands too (each --rounded-die-scenes scenes)")
    ap.add_argument("--rounded-die-scenes", type=int, default=60)
    ap.add_argument("--rounded-d20-share", type=float, default=None,
                    help="share of the rounded training dice that are D20s (default: the three kinds alike)")
    ap.add_argument("--val-rounded-die-seed", type=int, default=12,
                    help="calibration scenes with real-looking dice (--val-rounded-die-scenes; 0 scenes: none)")
    ap.add_argument("--val-rounded-die-scenes", type=int, default=0)
    ap.add_argument("--stand-epochs", type=int, default=10)
    ap.add_argument("--slot-epochs", type=int, default=4, help="slots learn faster (loss ~0.07)")
    ap.add_argument("--threads", type=int, default=2, help="torch threads (1 is faster on a loaded machine)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cache", type=Path, help="keep rendered patch sets here (same seeds: reused)")
    ap.add_argument("--out", type=Path, default=Path("vision/assets"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)  # before the run, not at the export after it
    torch.set_num_threads(max(1, args.threads))
    t0 = time.perf_counter()

    def patches(seed: int, n: int, what: str, low: bool = False, blurred: bool = False,
                dice: bool = False, rounded: bool = False, d20_share: float | None = None) -> PatchSet:
        tag = "low-" if low else "blur-" if blurred else "rdice-" if rounded else "dice-" if dice else ""
        if d20_share is not None:
            tag += f"d20s{round(100 * d20_share)}-"
        name = f"patches-{tag}{seed}-{n}-{SHOTS}-{VIEWS}.npz"
        path = args.cache / name if args.cache else None
        if path is not None and path.exists():
            with np.load(path) as z:
                return PatchSet(z["stands"], z["stand_labels"], z["slots"], z["slot_labels"])
        ps = render([seed * 100000 + i for i in range(n)], args.workers, what, low, blurred, dice, rounded,
                    d20_share)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(path, stands=ps.stands, stand_labels=ps.stand_labels, slots=ps.slots, slot_labels=ps.slot_labels)
        return ps

    parts = [patches(s, args.scenes, f"rendering training scenes {s}") for s in [args.seed, *args.more_seeds]]
    parts += [patches(s, args.low_scenes, f"rendering low training scenes {s}", low=True) for s in args.low_seeds]
    parts += [patches(s, args.blur_scenes, f"rendering blurred training scenes {s}", blurred=True)
              for s in args.blur_seeds]
    parts += [patches(s, args.die_scenes, f"rendering dice training scenes {s}", dice=True) for s in args.die_seeds]
    parts += [patches(s, args.rounded_die_scenes, f"rendering rounded dice training scenes {s}", dice=True,
                      rounded=True, d20_share=args.rounded_d20_share) for s in args.rounded_die_seeds]
    tr = joined(parts)
    va = patches(args.val_seed, args.val_scenes, "rendering calibration scenes")
    if args.val_low_scenes > 0:
        va = joined([va, patches(args.val_low_seed, args.val_low_scenes, "rendering low calibration scenes", low=True)])
    if args.val_blur_scenes > 0:
        va = joined([va, patches(args.val_blur_seed, args.val_blur_scenes, "rendering blurred calibration scenes",
                                 blurred=True)])
    if args.val_die_scenes > 0:
        va = joined([va, patches(args.val_die_seed, args.val_die_scenes, "rendering dice calibration scenes",
                                 dice=True)])
    if args.val_rounded_die_scenes > 0:
        va = joined([va, patches(args.val_rounded_die_seed, args.val_rounded_die_scenes,
                                 "rendering rounded dice calibration scenes", dice=True, rounded=True)])
    manifest: dict[str, Any] = {"format": FORMAT, "input": INPUT}
    figures: dict[str, Any] = {}
    for kind, classes, x, y, vx, vy, rot, epochs in (
            ("stands", STAND_CLASSES, tr.stands, tr.stand_labels, va.stands, va.stand_labels, True, args.stand_epochs),
            ("slots", SLOT_CLASSES, tr.slots, tr.slot_labels, va.slots, va.slot_labels, False, args.slot_epochs)):
        unknown = (STAND_CLASSES.index("unknown"), args.unknown_weight) if kind == "stands" else (-1, 1.0)
        body, head, losses = train(x, y, len(classes), epochs, args.seed, rot, kind, unknown)
        with torch.no_grad():
            logits = head(body(torch.from_numpy(to_blob(vx)))).numpy()
        t = fit_temperature(logits, vy)
        entry = export(body, head, t, f"patch_{kind}", args.out)
        entry["classes"] = list(classes)
        manifest[kind] = entry
        w = Weights((args.out / entry["body"]["file"]).read_bytes(),
                    Head(head.weight.detach().numpy(), head.bias.detach().numpy(), t), classes)
        figures[kind] = {"temperature": round(t, 3), "train_patches": len(y), "calibration_patches": len(vy),
                         "train_counts": np.bincount(y, minlength=len(classes)).tolist(), "losses": losses,
                         "widths": list(WIDTHS[kind]),
                         "calibration": evaluate(PatchNet(w), vx, vy)}
    manifest["training"] = {"command": "python -m training.train_patches " + " ".join(sys.argv[1:]),
                            "seed": args.seed, "more_seeds": args.more_seeds, "val_seed": args.val_seed,
                            "scenes": args.scenes, "val_scenes": args.val_scenes, "shots": SHOTS, "views": VIEWS,
                            "low_seeds": args.low_seeds, "low_scenes": args.low_scenes,
                            "val_low_seed": args.val_low_seed, "val_low_scenes": args.val_low_scenes,
                            "blur_seeds": args.blur_seeds, "blur_scenes": args.blur_scenes,
                            "val_blur_seed": args.val_blur_seed, "val_blur_scenes": args.val_blur_scenes,
                            "die_seeds": args.die_seeds, "die_scenes": args.die_scenes,
                            "val_die_seed": args.val_die_seed, "val_die_scenes": args.val_die_scenes,
                            "unknown_weight": args.unknown_weight,
                            "rounded_die_seeds": args.rounded_die_seeds,
                            "rounded_die_scenes": args.rounded_die_scenes,
                            "rounded_d20_share": args.rounded_d20_share,
                            "val_rounded_die_seed": args.val_rounded_die_seed,
                            "val_rounded_die_scenes": args.val_rounded_die_scenes,
                            "epochs": {"stands": args.stand_epochs, "slots": args.slot_epochs},
                            "torch": torch.__version__, "figures": figures,
                            "seconds": round(time.perf_counter() - t0), "cpus": os.cpu_count()}
    (args.out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
