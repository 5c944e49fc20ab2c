"""Blend two exported dice face networks of the same architecture, weight by weight (issue 21, round 12).

    nice -n 10 .venv/bin/python -m training.dice_blend --base vision/assets --tuned /tmp/net --share 0.5 --out DIR

A network fine-tuned from the shipped one (`training.train_dice --init`) and the shipped one lie in the same
basin; a point between them (robust fine-tuning by weight interpolation, "WiSE-FT") often keeps what the
fine-tuning learned while staying as unsure as the start where the fine-tuning data did not teach it anything
new. Every initializer (the folded convolutions, their biases, the last layer) becomes `(1 - share) * base +
share * tuned`; the graph is `tuned`'s. The manifest is `tuned`'s with the new SHA-256 and the blend recorded
under `training.blend`; the temperature is fitted afterwards with `python -m training.dice_eval --net DIR
--fit-temperature`, as after a training run. Needs the optional `[train]` extra (onnx).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from vision.dice_net import MANIFEST


def blend(base: bytes, tuned: bytes, share: float) -> bytes:
    """`tuned`'s graph with every initializer `(1 - share) * base + share * tuned` (same names and shapes)."""
    import onnx
    from onnx import numpy_helper

    a = onnx.load_model_from_string(base)
    b = onnx.load_model_from_string(tuned)
    old = {t.name: numpy_helper.to_array(t) for t in a.graph.initializer}
    if set(old) != {t.name for t in b.graph.initializer}:
        raise ValueError("dice_blend: the two networks' weights are not named alike (not the same architecture)")
    for i, t in enumerate(b.graph.initializer):
        new = numpy_helper.to_array(t)
        if old[t.name].shape != new.shape:
            raise ValueError(f"dice_blend: {t.name} has shape {old[t.name].shape} and {new.shape}")
        if not np.issubdtype(new.dtype, np.floating):
            continue  # shapes and indices, not weights
        mixed = ((1.0 - share) * old[t.name].astype(np.float64) + share * new.astype(np.float64)).astype(new.dtype)
        b.graph.initializer[i].CopyFrom(numpy_helper.from_array(mixed, t.name))
    return bytes(b.SerializeToString())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="folder of the network fine-tuning started from")
    ap.add_argument("--tuned", type=Path, required=True, help="folder of the fine-tuned network")
    ap.add_argument("--share", type=float, default=0.5, help="the fine-tuned network's share of each weight")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    base_manifest = json.loads((args.base / MANIFEST).read_text())
    manifest = json.loads((args.tuned / MANIFEST).read_text())
    base = (args.base / base_manifest["model"]).read_bytes()
    tuned = (args.tuned / manifest["model"]).read_bytes()
    raw = blend(base, tuned, args.share)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / manifest["model"]).write_bytes(raw)
    manifest["sha256"] = hashlib.sha256(raw).hexdigest()
    manifest["bytes"] = len(raw)
    manifest["training"]["blend"] = {
        "share_tuned": args.share,
        "base_sha256": hashlib.sha256(base).hexdigest(),
        "tuned_sha256": hashlib.sha256(tuned).hexdigest(),
        "command": (f"nice -n 10 .venv/bin/python -m training.dice_blend --base BASE --tuned TUNED "
                    f"--share {args.share} --out OUT"),
    }
    (args.out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps(manifest["training"]["blend"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
