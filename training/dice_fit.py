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
    """About 100 k weights (0.4 MB in float32), about 6 M multiply-adds a crop: five stages of 3x3
    convolutions on the 48 x 48 crop (the first at full resolution, so a D20 numeral's 1-2 px strokes reach
    the network), then a linear layer over the 3 x 3 map (where a stroke lies tells numerals apart; global
    pooling underfitted). It runs on a Pi core in a few milliseconds per die and trains on one CPU thread."""

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    return nn.Sequential(
        *block(1, 8), nn.MaxPool2d(2),
        *block(8, 24), nn.MaxPool2d(2),
        *block(24, 48), *block(48, 48), nn.MaxPool2d(2),
        *block(48, 96), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.1), nn.Linear(96 * (CROP_PX // 16) ** 2, len(CLASSES)),
    )


def symmetry_steps(y: torch.Tensor) -> torch.Tensor:
    """Per crop, the turn (degrees) between the views the reader's squaring-up cannot tell apart: a quarter
    turn for a cube, a third of a turn for the D20 (`vision.dice_crop.face_crop` turns a crop only up to the
    die's symmetry)."""
    return torch.where(D20[y], torch.tensor(120.0), torch.tensor(90.0))


D20 = torch.tensor([c.startswith("d20:") for c in CLASSES])


def augment(x: torch.Tensor, y: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Each crop turned by a random step of its die's symmetry and jittered (up to 5 degrees, 2 px, 5 %
    scale: the reader's centring and squaring errors), then the light: contrast and level, dim light's
    flat, noisy crops, a glare spot (a bright blob saturating part of the face), a little blur."""
    n = x.shape[0]
    k = torch.randint(0, 12, (n,), generator=g).float()  # 12 steps: uniform over both symmetries
    angle = torch.deg2rad(k * symmetry_steps(y) + 5.0 * (2 * torch.rand(n, generator=g) - 1))
    s = 1.0 + 0.05 * (2 * torch.rand(n, generator=g) - 1)
    shift = (4.0 / CROP_PX) * (torch.rand((n, 2), generator=g) - 0.5)
    cos, sin = torch.cos(angle) / s, torch.sin(angle) / s
    theta = torch.stack([torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1)
    grid = nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    x = nn.functional.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    dim = (torch.rand((n, 1, 1, 1), generator=g) < 0.25).float()
    gain = (0.8 + 0.4 * torch.rand((n, 1, 1, 1), generator=g)) * (1.0 - 0.4 * dim)
    level = 0.2 * (torch.rand((n, 1, 1, 1), generator=g) - 0.5)
    noise = (0.03 + 0.2 * dim) * torch.randn(x.shape, generator=g)
    x = x * gain + level + noise
    glare = (torch.rand((n, 1, 1, 1), generator=g) < 0.2).float()
    yy, xx = torch.meshgrid(torch.arange(CROP_PX).float(), torch.arange(CROP_PX).float(), indexing="ij")
    centre = CROP_PX * (0.2 + 0.6 * torch.rand((n, 2, 1, 1), generator=g))
    radius = 2.0 + 5.0 * torch.rand((n, 1, 1, 1), generator=g)
    spot = torch.exp(-((xx - centre[:, :1]) ** 2 + (yy - centre[:, 1:]) ** 2) / (2 * radius ** 2))
    x = x + glare * (1.5 + 2.0 * torch.rand((n, 1, 1, 1), generator=g)) * spot
    return torch.clamp(x, -3.0, 3.0)


def warm_start(model: nn.Module, onnx_model: bytes, x: torch.Tensor) -> None:
    """Start `model` from the weights of an exported network (`onnx_model`, the file's bytes; same
    architecture, its batch norms folded into the convolutions by the export): each convolution gets the
    folded kernel without its bias, and its batch norm the scale and shift that give back the folded layer's
    output on the crops `x` (their mean and spread per channel, taken layer by layer), so training continues
    from the shipped network's function instead of from random weights."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load_model_from_string(onnx_model).graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [(init[n.input[1]], init[n.input[2]]) for n in graph.node if n.op_type == "Conv"]
    gemm = next(n for n in graph.node if n.op_type == "Gemm")
    layers = list(model)
    conv_at = [i for i, m in enumerate(layers) if isinstance(m, nn.Conv2d)]
    if len(conv_at) != len(convs):
        raise ValueError(f"warm start: {len(convs)} convolutions, the network has {len(conv_at)}")
    model.eval()
    h = x
    with torch.no_grad():
        for i, layer in enumerate(layers):
            if i in conv_at:
                w, b = convs[conv_at.index(i)]
                if tuple(layer.weight.shape) != w.shape:
                    raise ValueError(f"warm start: convolution {i} has shape {w.shape}, "
                                     f"not {tuple(layer.weight.shape)}")
                layer.weight.copy_(torch.from_numpy(np.array(w)))
                z = layer(h)
                mu, sd = z.mean(dim=(0, 2, 3)), z.std(dim=(0, 2, 3)).clamp(min=1e-3)
                bn = layers[i + 1]
                bn.running_mean.copy_(mu)
                bn.running_var.copy_(sd ** 2 - bn.eps)
                bn.weight.copy_(sd)
                bn.bias.copy_(mu + torch.from_numpy(np.array(b)))
            if isinstance(layer, nn.Linear):
                layer.weight.copy_(torch.from_numpy(init[gemm.input[1]]))
                layer.bias.copy_(torch.from_numpy(init[gemm.input[2]]))
            h = layer(h)


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


def epochs_within(x: torch.Tensor, y: torch.Tensor, minutes: float, batch: int) -> int:
    """How many epochs fit in `minutes` on this machine now: a few steps of a throw-away copy timed (the
    manifest records the number, so `--epochs N` repeats the run whatever the machine's load)."""
    probe = network()
    g = torch.Generator().manual_seed(0)
    t0 = 0.0
    for i in range(6):
        if i == 2:
            t0 = time.time()
        idx = torch.randint(0, len(y), (batch,), generator=g)
        nn.functional.cross_entropy(probe(augment(x[idx], y[idx], g)), y[idx]).backward()
    per_epoch = (time.time() - t0) / 4 * ((len(y) + batch - 1) // batch)
    return max(2, int(minutes * 60 / per_epoch))


def fit_and_export(train: Data, calib: Data, epochs: int, seed: int, out: Path,
                   minutes: float = 0.0, init: bytes | None = None, max_lr: float = 4e-3) -> dict[str, object]:
    """Train (`epochs`, or as many as fit in `minutes` when `epochs` is 0; from the exported network `init`
    when given, else from random weights; a one-cycle schedule peaking at `max_lr`), fit the temperature on
    `calib`, export to ONNX at `out` and check it under `cv2.dnn`; the figures for the manifest."""
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # 2 threads ran 5x slower than 1 on the loaded shared machine
    g = torch.Generator().manual_seed(seed)
    x = torch.from_numpy(train[0].astype(np.float32)[:, None])
    y = torch.from_numpy(train[1].astype(np.int64))
    if epochs <= 0:
        epochs = epochs_within(x, y, minutes, 128)
        print(f"{epochs} epochs fit in {minutes} minutes", file=sys.stderr)
    torch.manual_seed(seed)
    model = network()
    if init is not None:
        warm_start(model, init, x[torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))[:2048]])
        print(f"warm start: calibration loss {nll(logits_of(model, calib[0]), calib[1], 1.0):.3f}",
              file=sys.stderr)
    counts = torch.bincount(y, minlength=len(CLASSES)).float()
    weights = (counts.sum() / len(CLASSES) / counts.clamp(min=1.0)).clamp(0.25, 4.0)  # every face counts alike
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    batch = 128
    steps = epochs * ((len(y) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps, pct_start=0.2)
    loss_fn = nn.CrossEntropyLoss(weight=weights, label_smoothing=0.02)
    t0 = time.time()
    step = 0
    losses: list[float] = []
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(y), generator=g)
        total = 0.0
        for i in range(0, len(y), batch):
            idx = order[i:i + batch]
            loss = loss_fn(model(augment(x[idx], y[idx], g)), y[idx])
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
        losses.append(round(total / len(y), 4))
        sys.stderr.write("\n")
    logits = logits_of(model, calib[0])
    temperature = min(np.arange(0.5, 5.0, 0.02), key=lambda t: nll(logits, calib[1], float(t)))
    figures: dict[str, object] = {"temperature": round(float(temperature), 3), "epochs": epochs, "seed": seed,
               "train_seconds": round(time.time() - t0, 1), "loss_per_epoch": losses}
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
