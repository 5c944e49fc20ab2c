"""Re-fitting the patch classifier's last layers to one real table, in numpy, in seconds on a Pi.

The network's features (``vision.patch_classifier``) stay as trained on renders; only the last layer
(64 x classes weights) moves, like chesscog's fine-tuning of its classifier on a new piece set, but with
no torch: multinomial logistic regression by gradient descent, started from the shipped layer (with its
temperature folded in) and pulled back towards it (``PRIOR``), so a class the labelled frames never show
("unknown": nobody labels a phone) keeps what it learned on the renders.

Labels name a stand's piece without saying whether a soul token is flipped: such a patch counts for the
soul class (upright or flipped) the network itself prefers.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.patch_classifier import Head, PatchNet

F32 = NDArray[np.float32]
PRIOR = 0.05
STEPS = 400
RATE = 0.5
CONFIDENT = 0.9  # a reading the network is sure of (the adaptation's report counts these)


def soul_side(net: PatchNet, feats: F32, labels: list[str]) -> list[str]:
    """``labels`` with each plain "soul" made "soul" or "soul flipped", whichever the network prefers."""
    if "soul flipped" not in net.classes:
        return labels
    p = net.head.probs(feats)
    up, down = net.classes.index("soul"), net.classes.index("soul flipped")
    return [("soul flipped" if p[i, down] > p[i, up] else "soul") if lab == "soul" else lab
            for i, lab in enumerate(labels)]


def refit(net: PatchNet, feats: F32, labels: list[str]) -> Head:
    """The last layer re-fitted to ``feats`` (N, F) labelled with class names, temperature folded in (1)."""
    head = net.head
    if len(labels) == 0:
        return head
    t = max(head.temperature, 1e-3)
    w0, b0 = head.w / t, head.b / t
    y = np.array([net.classes.index(lab) for lab in soul_side(net, feats, labels)])
    onehot = np.eye(len(net.classes), dtype=np.float32)[y]
    scale = float(np.mean(np.sum(feats**2, axis=1))) + 1.0  # keeps the step stable for any feature size
    w, b = w0.copy(), b0.copy()
    for _ in range(STEPS):
        z = feats @ w.T + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) / len(y)
        w -= RATE / scale * (g.T @ feats + PRIOR * (w - w0))
        b -= RATE * (g.sum(axis=0) + PRIOR * (b - b0))
    return Head(np.asarray(w, np.float32), np.asarray(b, np.float32), 1.0)


def nll(head: Head, feats: F32, labels: list[str], classes: tuple[str, ...]) -> float:
    """Mean negative log-likelihood of the labels (a soul counting for either side)."""
    if len(labels) == 0:
        return 0.0
    p = head.probs(feats)
    if "soul flipped" in classes:
        up, down = classes.index("soul"), classes.index("soul flipped")
        p = p.copy()
        p[:, up] += p[:, down]
        p[:, down] = p[:, up]
    y = np.array([classes.index(lab) for lab in labels])
    return float(-np.log(np.maximum(p[np.arange(len(y)), y], 1e-9)).mean())


def confident_right(head: Head, feats: F32, labels: list[str], classes: tuple[str, ...]) -> float:
    """Share of the labelled patches the head reads as labelled with probability >= CONFIDENT (a soul counting
    for either side): how sure of this table the network is."""
    if len(labels) == 0:
        return 0.0
    p = head.probs(feats)
    if "soul flipped" in classes:
        p = p.copy()
        up, down = classes.index("soul"), classes.index("soul flipped")
        p[:, up] += p[:, down]
        p[:, down] = 0.0
    y = np.array([classes.index(lab) for lab in labels])
    return float(((p.argmax(1) == y) & (p.max(1) >= CONFIDENT)).mean())
