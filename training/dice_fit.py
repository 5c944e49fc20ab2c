"""The torch side of `training.train_dice`: the network, its training, the temperature and the ONNX export.

Kept apart so that rendering crops (`--data-only`) never imports torch. Two threads, a fixed seed, CPU only:
the same command gives the same weights on the same machine.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from training.dice_data import CLASSES
from vision.dice_crop import CROP_PX

Data = tuple[NDArray[np.float16], NDArray[np.int16]]


def network() -> nn.Module:
    """About 82 k weights (0.33 MB in float32): four stages of 3x3 convolutions, then a linear layer over the
    5 x 5 map (where a stroke lies tells numerals apart; global pooling underfitted). Small on purpose: it
    runs on a Pi core in about a millisecond per die, and trains on one CPU thread."""

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    return nn.Sequential(
        *block(1, 8), nn.MaxPool2d(2),
        *block(8, 16), *block(16, 16), nn.MaxPool2d(2),
        *block(16, 32), *block(32, 32), nn.MaxPool2d(2),
        *block(32, 64), nn.Flatten(), nn.Dropout(0.2), nn.Linear(64 * (CROP_PX // 8) ** 2, len(CLASSES)),
    )


def turned(x: NDArray[np.float16], y: NDArray[np.int16]) -> Data:
    """Every crop at the turns the reader's squaring-up leaves open: quarter turns of a cube's, thirds of a
    turn of a D20's (`vision.dice_crop.face_crop` turns a crop only up to the die's symmetry)."""
    d20 = np.array([CLASSES[int(c)].startswith("d20:") for c in y])
    xs, ys = [x], [y]
    for k in (1, 2, 3):
        xs.append(np.rot90(x[~d20], k, axes=(1, 2)))
        ys.append(y[~d20])
    c = (CROP_PX - 1) / 2.0
    for angle in (120.0, 240.0):
        M = cv2.getRotationMatrix2D((c, c), angle, 1.0)
        xs.append(np.stack([cv2.warpAffine(v.astype(np.float32), M, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR,
                                           borderMode=cv2.BORDER_REPLICATE) for v in x[d20]]).astype(np.float16))
        ys.append(y[d20])
    return np.concatenate(xs), np.concatenate(ys)


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Shifts of up to 2 px, contrast and level, a little noise (the turns are in the data: `turned`)."""
    n = x.shape[0]
    dx, dy = (int(v) for v in torch.randint(-2, 3, (2,), generator=g))
    x = torch.roll(x, (dy, dx), (2, 3))
    gain = 0.8 + 0.4 * torch.rand((n, 1, 1, 1), generator=g)
    level = 0.2 * (torch.rand((n, 1, 1, 1), generator=g) - 0.5)
    return x * gain + level + 0.05 * torch.randn(x.shape, generator=g)


def logits_of(model: nn.Module, x: NDArray[np.float16]) -> NDArray[np.float64]:
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(x), 512):
            out.append(model(torch.from_numpy(x[i:i + 512].astype(np.float32)[:, None])).numpy())
    return np.concatenate(out).astype(np.float64)


def nll(logits: NDArray[np.float64], y: NDArray[np.int16], t: float) -> float:
    z = logits / t
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(y)), y.astype(int)].mean())


def fit_and_export(train: Data, calib: Data, epochs: int, seed: int, out: Path) -> dict[str, object]:
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # 2 threads ran 5x slower than 1 on the loaded shared machine
    g = torch.Generator().manual_seed(seed)
    model = network()
    tx, ty = turned(*train)
    x = torch.from_numpy(tx.astype(np.float32)[:, None])
    y = torch.from_numpy(ty.astype(np.int64))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = 128
    steps = epochs * ((len(y) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss()
    t0 = time.time()
    step = 0
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(y), generator=g)
        total = 0.0
        for i in range(0, len(y), batch):
            idx = order[i:i + batch]
            loss = loss_fn(model(augment(x[idx], g)), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            step += 1
            if step % 20 == 0 or step == steps:
                sys.stderr.write(f"\rtrain epoch {epoch + 1}/{epochs} step {step}/{steps} "
                                 f"loss {total / (i + len(idx)):.3f} {time.time() - t0:5.0f} s ")
                sys.stderr.flush()
        sys.stderr.write("\n")
    logits = logits_of(model, calib[0])
    temperature = min(np.arange(0.5, 5.0, 0.02), key=lambda t: nll(logits, calib[1], float(t)))
    figures: dict[str, object] = {"temperature": round(float(temperature), 3), "epochs": epochs, "seed": seed,
               "train_seconds": round(time.time() - t0, 1)}
    pred = logits.argmax(axis=1)
    z = logits / temperature
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    conf = p.max(axis=1)
    kinds = np.array([CLASSES[int(c)].split(":")[0] for c in calib[1]])
    for kind in ("diel", "d6", "d20"):
        m = kinds == kind
        right = pred[m] == calib[1][m]
        figures[f"calibration_top1_{kind}"] = round(float(right.mean()), 4)
        sure = conf[m] >= 0.99
        figures[f"calibration_p99_read_{kind}"] = round(float((right & sure).mean()), 4)
        figures[f"calibration_p99_wrong_{kind}"] = int((~right & sure).sum())
    model.eval()
    dummy = torch.zeros(1, 1, CROP_PX, CROP_PX)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (dummy,), str(out), input_names=["crop"], output_names=["logits"],
                      dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}}, opset_version=13, dynamo=False)
    net = cv2.dnn.readNetFromONNX(str(out))
    sample = calib[0][:64].astype(np.float32)[:, None]
    net.setInput(sample)
    diff = float(np.abs(np.asarray(net.forward()) - logits[:64]).max())
    figures["opencv_vs_torch_max_logit_diff"] = round(diff, 6)
    if diff > 1e-3:
        raise ValueError(f"{out}: cv2.dnn disagrees with torch by {diff} on the calibration crops")
    return figures
