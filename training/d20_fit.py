"""The torch side of `training.train_d20`: the D20 numeral network, its training and its ONNX export.

Kept apart so that rendering crops never imports torch. One thread, a fixed seed, CPU only: the same command
gives the same weights on the same machine. The crops and their augmentation are the face network's
(`training.dice_fit.augment`: a third of a turn, jitter, light, glare), so the two networks see the same
inputs; only the network and its classes (the 20 numerals) differ.
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
from training.dice_fit import augment, warm_start
from training.dice_fit import network as face_network
from vision.dice_crop import CROP_PX

Data = tuple[NDArray[np.float16], NDArray[np.int16]]
FIRST = CLASSES.index("d20:1")  # the D20's classes are consecutive in `CLASSES`; numeral n is FIRST + n - 1


def network(width: int = 16) -> nn.Module:
    """Wider and deeper at full resolution than the shared face network (which spends 8 channels there):
    two 3x3 convolutions on the 48 x 48 crop before any pooling, so a unit digit's ~5 px strokes are combined
    before they are averaged away, then three stages doubling the channels, a linear layer over the 3 x 3 map
    (where a stroke lies tells numerals apart). `width` 16: about 170 k weights (0.7 MB), about 25 M
    multiply-adds a crop."""

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    w = width
    return nn.Sequential(
        *block(1, w), *block(w, w), nn.MaxPool2d(2),
        *block(w, 2 * w), *block(2 * w, 2 * w), nn.MaxPool2d(2),
        *block(2 * w, 4 * w), *block(4 * w, 4 * w), nn.MaxPool2d(2),
        *block(4 * w, 8 * w), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.15), nn.Linear(8 * w * (CROP_PX // 16) ** 2, 20),
    )


def from_face_network(init: bytes, x: torch.Tensor) -> nn.Module:
    """The shared face network's architecture started from its exported weights (`init`), its last layer
    cut to the D20's 20 rows: a fine-tune that begins where the face network reads the D20 (68 % top-1 on
    the calibration crops) and spends all its capacity on the numerals, far cheaper to train than a wider
    network from scratch on this machine."""
    model = face_network()
    warm_start(model, init, x)
    last = model[-1]
    assert isinstance(last, nn.Linear)
    head = nn.Linear(last.in_features, 20)
    with torch.no_grad():
        head.weight.copy_(last.weight[FIRST:FIRST + 20])
        head.bias.copy_(last.bias[FIRST:FIRST + 20])
    model[-1] = head
    return model


def logits_of(model: nn.Module, x: NDArray[np.float16]) -> NDArray[np.float64]:
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(x), 512):
            out.append(model(torch.from_numpy(x[i:i + 512].astype(np.float32)[:, None])).numpy())
    return np.concatenate(out).astype(np.float64) if out else np.zeros((0, 20))


def fit_and_export(train: Data, calib: Data, epochs: int, seed: int, out: Path, width: int,
                   minutes: float = 0.0, max_lr: float = 4e-3, init: bytes | None = None) -> dict[str, object]:
    """Train on `train` (D20 crops; labels are `CLASSES` indices) for `epochs`, or as many as fit in
    `minutes` when `epochs` is 0 (timed on the first epoch); from the face network's exported weights
    `init` when given (`from_face_network`, `width` then unused), else `network(width)` from random weights;
    export to ONNX at `out` and check that OpenCV's `cv2.dnn` gives torch's answers; the figures for the
    manifest (the temperature is fitted by the caller, through the reader's own loader, with the turned views)."""
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # 2 threads ran 5x slower than 1 on the loaded shared machine (round 6)
    g = torch.Generator().manual_seed(seed)
    x = torch.from_numpy(train[0].astype(np.float32)[:, None])
    y_full = torch.from_numpy(train[1].astype(np.int64))
    y = y_full - FIRST
    model = network(width) if init is None else from_face_network(
        init, x[torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))[:2048]])
    if init is not None:
        start = float((logits_of(model, calib[0]).argmax(axis=1) == calib[1] - FIRST).mean())
        print(f"warm start: calibration top-1 (one view) {start:.4f}", file=sys.stderr)
    batch = 128
    per_epoch = (len(y) + batch - 1) // batch
    budgeted = epochs <= 0
    steps = (epochs if not budgeted else 1000) * per_epoch
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr / 25, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps, pct_start=0.2)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.02)
    t0 = time.time()
    step, epoch = 0, 0
    losses: list[float] = []
    while True:
        model.train()
        order = torch.randperm(len(y), generator=g)
        total = 0.0
        for i in range(0, len(y), batch):
            idx = order[i:i + batch]
            loss = loss_fn(model(augment(x[idx], y_full[idx], g)), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            step += 1
            if step % 20 == 0 or step == steps:
                sys.stderr.write(f"\rtrain epoch {epoch + 1}/{epochs if not budgeted else '?'} step {step}/{steps} "
                                 f"loss {total / (i + len(idx)):.3f} {time.time() - t0:5.0f} s ")
                sys.stderr.flush()
        losses.append(round(total / len(y), 4))
        sys.stderr.write("\n")
        epoch += 1
        if budgeted and epoch == 1:  # the schedule is rebuilt for the epochs the budget allows
            epochs = max(2, int(minutes * 60 / max(time.time() - t0, 1e-3)))
            steps = epochs * per_epoch
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps, pct_start=0.2)
            for _ in range(per_epoch):
                sched.step()
            print(f"{epochs} epochs fit in {minutes} minutes", file=sys.stderr)
        if epoch >= epochs:
            break
    logits = logits_of(model, calib[0])
    figures: dict[str, object] = {"epochs": epochs, "seed": seed, "width": width,
                                  "train_seconds": round(time.time() - t0, 1), "loss_per_epoch": losses,
                                  "weights": int(sum(p.numel() for p in model.parameters()))}
    figures["calibration_top1_one_view"] = round(float((logits.argmax(axis=1) == calib[1] - FIRST).mean()), 4)
    model.eval()
    dummy = torch.zeros(1, 1, CROP_PX, CROP_PX)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (dummy,), str(out), input_names=["crop"], output_names=["logits"],
                      dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}}, opset_version=13, dynamo=False)
    net = cv2.dnn.readNetFromONNX(str(out))
    net.setInput(calib[0][:64].astype(np.float32)[:, None])
    diff = float(np.abs(np.asarray(net.forward()) - logits[:64]).max())
    figures["opencv_vs_torch_max_logit_diff"] = round(diff, 6)
    if diff > 1e-3:
        raise ValueError(f"{out}: cv2.dnn disagrees with torch by {diff} on the calibration crops")
    return figures
