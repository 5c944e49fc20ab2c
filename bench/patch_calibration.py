"""The patch classifier's thresholds checked on its calibration patches, never on a stress-bench seed.

For the ordinary calibration scenes and the low ones (1014x760, JPEG q20-40) that ``training.train_patches``
renders (read from its ``--cache``), and for each weights folder given, prints: accuracy; of the patches
whose most likely reading reaches 0.9 (``VETO``) and 0.97 (``ACCEPT``), how many are wrong; the share of
patches whose true reading reaches 0.97 (what the confirmation can make available); souls and base camps
reaching it; and how many covered stands (label "unknown") get a piece class at 0.9-0.99 (what a
confirmation could read under an object), split, where the cache holds ``NAME-under.npy``
(``training.patch_under``: what stands under the cover), into those read as what stands there (a partly
hidden piece read as itself, or an empty stand as empty: the game's true state) and those read as what is
not there (a lie). An upright and a flipped soul token count as one reading, as the
reader counts them.

Run: PYTHONPATH=. .venv/bin/python bench/patch_calibration.py --cache /tmp/patches [--weights DIR ...]
     (the default weights are the shipped ones; the cache is the one the training run filled)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.patch_classifier import SLOT_CLASSES, STAND_CLASSES, PatchClassifier, PatchNet

F32 = NDArray[np.float32]


def merged(p: F32, y: NDArray[np.int64], classes: tuple[str, ...]) -> tuple[F32, NDArray[np.int64], list[str]]:
    """Probabilities and labels with "soul flipped" folded into "soul"."""
    if "soul flipped" not in classes:
        return p, y, list(classes)
    si, fi = classes.index("soul"), classes.index("soul flipped")
    q = p.copy()
    q[:, si] += q[:, fi]
    q = np.delete(q, fi, 1)
    names = [c for c in classes if c != "soul flipped"]
    yy = np.array([names.index("soul" if classes[k] == "soul flipped" else classes[k]) for k in y], np.int64)
    return q, yy, names


def probs(net: PatchNet, x: NDArray[np.uint8]) -> F32:
    return np.concatenate([net.probs(x[i:i + 512]) for i in range(0, len(x), 512)])


def report(tag: str, net: PatchNet, classes: tuple[str, ...], x: NDArray[np.uint8], y: NDArray[np.int64],
           under: NDArray[np.int64] | None = None) -> str:
    q, yy, names = merged(probs(net, x), y, classes)
    pred, top = q.argmax(1), q.max(1)
    true_p = q[np.arange(len(yy)), yy]
    out = [f"{tag}: n={len(yy)} accuracy {np.mean(pred == yy):.4f}"]
    for t in (0.9, 0.97):
        m = top >= t
        out.append(f"top >= {t}: {m.mean():.3f}, wrong {int((pred[m] != yy[m]).sum())}")
    out.append(f"true >= 0.97: {np.mean(true_p >= 0.97):.3f}")
    if "unknown" in names and "soul" in names:
        for name in ("soul", "basecamp"):
            k = yy == names.index(name)
            out.append(f"{name}s >= 0.97: {np.mean(true_p[k] >= 0.97):.3f}")
        u = names.index("unknown")
        unk = yy == u
        piece = np.delete(q, u, 1).max(1)[unk]
        out.append(f"covered ({int(unk.sum())}) given a piece >= 0.9/0.95/0.97/0.99: "
                   + "/".join(str(int((piece >= t).sum())) for t in (0.9, 0.95, 0.97, 0.99)))
        if under is not None:
            _, truth, _ = merged(np.zeros((len(under), len(classes)), np.float32), under, classes)  # as ``yy``
            read = np.delete(np.arange(len(names)), u)[np.delete(q, u, 1).argmax(1)][unk]
            true = read == truth[unk]
            for what, m in (("what is there", true), ("what is NOT there", ~true)):
                out.append(f"of which read as {what}: "
                           + "/".join(str(int((piece[m] >= t).sum())) for t in (0.9, 0.95, 0.97, 0.99)))
    return "  ".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True, help="training.train_patches' --cache folder")
    ap.add_argument("--weights", type=Path, nargs="*", default=[], help="weights folders (default: shipped)")
    ap.add_argument("--sets", nargs="*", default=["patches-2-30-3-2.npz", "patches-low-6-15-3-2.npz"],
                    help="calibration patch files in the cache (the defaults of train_patches)")
    args = ap.parse_args()
    for folder in args.weights or [None]:
        clf = PatchClassifier.load(folder)
        print(f"weights: {folder or 'shipped'}")
        for name in args.sets:
            path = args.cache / name
            if not path.exists():
                print(f"  {path}: missing (run training.train_patches with --cache {args.cache})", file=sys.stderr)
                return 2
            under_path = args.cache / name.replace(".npz", "-under.npy")
            under = np.load(under_path) if under_path.exists() else None
            with np.load(path) as z:
                print("  " + report(f"{name} stands", clf.stands, STAND_CLASSES, z["stands"], z["stand_labels"],
                                    under))
                print("  " + report(f"{name} slots", clf.slots, SLOT_CLASSES, z["slots"], z["slot_labels"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
