"""Tuning the patch classifier's veto (``vision.patch_classifier.VETO`` and ``FLOOR``) on the stress bench.

Runs ``bench_overhead_stress.py``'s conditions (both set-ups) with the veto switched off, and keeps, for
every region the rule read (not flagged by the rule itself) in a condition frame, the network's input patch,
the rule's reading and the renderer's truth. The rule's reading does not depend on the network, so any
network (``--weights``) and any pair of thresholds can then be scored offline in seconds. While collecting
it prints the stress bench's rows for the rule alone (the reader without the veto, as on main):

- *wrong kept*: readings the rule got wrong (another class, or a region covered >= 25 %) that the veto
  lets through: must be 0;
- *right vetoed*: right readings of uncovered regions the veto turns unknown: the availability it costs.

The grid prints both for every (VETO, FLOOR); tune on one seed (7), then check the chosen pair on another
(``--seed 11``, the report seed) without changing it. A stand's owner is not the network's business (it
sees no seats): a reading of the right kind with the wrong owner counts as neither.

Run: PYTHONPATH=. .venv/bin/python bench/tune_patch_veto.py --seed 7 --tables 2 [--records FILE.npz]
     [--weights DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_overhead_stress as stress

from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from vision import patch_classifier as pc
from vision.synth import Renderer, TableScene

VETOS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98)
FLOORS = (0.0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1)


class Recorder:
    """Patches of the regions classified this frame, the rule's readings of them, then the truth."""

    def __init__(self) -> None:
        self.frame: dict[str, tuple[np.ndarray, str]] = {}
        self.patches: dict[str, np.ndarray] = {}
        self.rows: list[tuple[str, bool, np.ndarray, str, str, float]] = []  # cond, stand?, patch, rule, truth, occ
        self.condition = ""

    def install(self) -> None:
        rec = self

        def classify(opinion: pc.SecondOpinion, img: np.ndarray, gains: np.ndarray, stands: dict[str, Any],
                     slots: dict[str, Any]) -> None:
            rec.frame = {}
            rec.patches = {rid: pc.patch_input(img, reg, gains) for rid, reg in {**stands, **slots}.items()}

        def veto(opinion: pc.SecondOpinion, rid: str, rule: str) -> str | None:
            if rid in rec.patches:
                rec.frame[rid] = (rec.patches[rid], rule)
            return None

        pc.SecondOpinion.classify = classify  # type: ignore[method-assign]
        pc.SecondOpinion.veto = veto  # type: ignore[method-assign]
        original = stress.score

        def score(obs: Any, scene: TableScene, occluded: dict[str, float], t: stress.Tally, label: str) -> None:
            for rid, (patch, rule) in rec.frame.items():
                occ = occluded.get(rid, 0.0)
                if rid in obs.stands:
                    tok = scene.tokens.get(rid)
                    rec.rows.append((rec.condition, True, patch, rule, "empty" if tok is None else tok.kind, occ))
                else:
                    cards = scene.slots.get(rid)
                    rec.rows.append((rec.condition, False, patch, rule, cards[-1].face if cards else "empty", occ))
            rec.frame = {}
            original(obs, scene, occluded, t, label)

        stress.score = score


def collect(args: argparse.Namespace) -> dict[str, np.ndarray]:
    rec = Recorder()
    rec.install()
    layout = table_layout(BoardMap.packaged())
    renderers: dict[Any, Renderer] = {}
    args.before = False
    for cond in stress.CONDITIONS:
        rec.condition = cond.name
        for mode, t in stress.run_condition(cond, layout, args, renderers).items():
            print(f"{cond.name:<16}{mode:<9}{stress.pct(t.stand_ok, t.stand_n):>16}"
                  f"{stress.pct(t.covered_flagged, t.covered_n):>17}{t.wrong_accepted:>10}"
                  f"{stress.pct(t.slot_ok, t.slot_n):>16}{stress.pct(t.qr_ok, t.qr_n):>15}", flush=True)
    return {"condition": np.array([r[0] for r in rec.rows]), "stand": np.array([r[1] for r in rec.rows]),
            "patch": np.stack([r[2] for r in rec.rows]), "rule": np.array([r[3] for r in rec.rows]),
            "truth": np.array([r[4] for r in rec.rows]), "occluded": np.array([r[5] for r in rec.rows])}


def grid(data: dict[str, np.ndarray], classifier: pc.PatchClassifier) -> None:
    stand = data["stand"].astype(bool)
    probs: list[np.ndarray] = [np.zeros(0)] * len(stand)
    for net, which in ((classifier.stands, stand), (classifier.slots, ~stand)):
        idx = np.flatnonzero(which)
        for i, p in zip(idx, net.probs(data["patch"][idx]) if len(idx) else [], strict=True):
            probs[i] = p
    rule, truth, occ = data["rule"], data["truth"], data["occluded"]
    covered = occ >= stress.COVERED
    clear = occ == 0
    wrong = covered | (clear & (rule != truth))
    right = clear & (rule == truth)
    print(f"{int(right.sum())} right readings of uncovered regions, {int(wrong.sum())} wrong "
          f"({int((wrong & covered).sum())} of covered regions)")
    print(f"{'VETO':>6}{'FLOOR':>7}{'wrong kept':>12}{'right vetoed':>14}")
    for v in VETOS:
        for f in FLOORS:
            pc.VETO, pc.FLOOR = v, f
            vetoed = np.array([pc.verdict(p, classifier.stands.classes if s else classifier.slots.classes, r)
                               is not None for p, s, r in zip(probs, stand, rule, strict=True)])
            kept = wrong & ~vetoed
            print(f"{v:>6}{f:>7}{int(kept.sum()):>12}{int((right & vetoed).sum()):>14}")
    pc.VETO, pc.FLOOR = VETO, FLOOR
    for i in np.flatnonzero(wrong):
        print(f"    wrong: {data['condition'][i]}: rule {rule[i]}, truth {truth[i]}, covered {occ[i]:.0%}, "
              f"network {' '.join(f'{p:.2f}' for p in probs[i])}, veto: "
              f"{pc.verdict(probs[i], classifier.stands.classes if stand[i] else classifier.slots.classes, rule[i])}")


VETO, FLOOR = pc.VETO, pc.FLOOR


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tables", type=int, default=2)
    ap.add_argument("--frames", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--records", type=Path, help="keep (or reuse) the collected readings here")
    ap.add_argument("--weights", type=Path, help="a folder of classifier weights (default: the shipped ones)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.records is not None and args.records.exists():
        with np.load(args.records) as z:
            data = {k: z[k] for k in z.files}
    else:
        data = collect(args)
        if args.records is not None:
            np.savez_compressed(args.records, **data)
    grid(data, pc.PatchClassifier.load(args.weights))
    return 0


if __name__ == "__main__":
    sys.exit(main())
