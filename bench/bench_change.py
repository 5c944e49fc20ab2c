"""How well the overhead reader's change test (``vision.change``) tells sensor noise from a real change.

Each table (every stand holding one kind of piece of one owner, flipped or not; every slot holding one card
face) is composed once and finished twice with different sensor noise, blur, light and JPEG; a fresh reader
reads each frame fully, so its kept crops are the looks the change test compares. Prints, per camera
condition, the largest score of a region between two frames of the same table (noise only: above the
threshold means a needless re-read) and the smallest score of a region whose piece was placed, removed,
flipped or whose card changed (below the threshold means a missed change: a stale reading).

``--candidates`` also prints, from the same kept crops, scores a cheaper or quieter change test could use
instead (speed6, issue 14: can noise be told from a flipped soul without more pixels?): the same score on
luma only, with each channel's mean equalised separately, and on the difference averaged over 2x2 pixels.

Run: PYTHONPATH=. .venv/bin/python bench/bench_change.py [--seed 100] [--candidates]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable

import cv2
import numpy as np

from calibration.camera import default_pose
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from tracker.runtime.demo import PALETTE
from vision.board import BoardReader
from vision.change import UNCHANGED_LEVELS, difference
from vision.synth import Renderer, SlotCard, TableScene, Token

CONDITIONS: dict[str, dict[str, float]] = {
    "clean": {}, "blur 1.5": {"blur": 1.5}, "JPEG 60, noise 2": {"jpeg_quality": 60, "noise": 2.0},
    "dim 0.6, noise 2, blur 1": {"lighting": 0.6, "noise": 2.0, "blur": 1.0}}
Kept = dict[str, tuple[np.ndarray, float]]  # type: ignore[type-arg]
Crop = tuple[np.ndarray, float]  # type: ignore[type-arg]
LUMA = np.array([0.114, 0.587, 0.299], np.float32)


def _now(kept: Crop, later: Crop) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    return kept[0], later[0].astype(np.uint8).astype(np.float32)


def luma_score(kept: Crop, later: Crop) -> float:
    """Mean |difference| of the luma at equal mean luma."""
    a, b = (x @ LUMA for x in _now(kept, later))
    return float(np.abs(b * (a.mean() / max(float(b.mean()), 1.0)) - a).mean())


def channel_score(kept: Crop, later: Crop) -> float:
    """Mean |difference| with each channel's mean equalised on its own (a white-balance jitter cancels)."""
    a, b = _now(kept, later)
    k = a.reshape(-1, 3).mean(0) / np.maximum(b.reshape(-1, 3).mean(0), 1.0)
    return float(np.abs(b * k - a).mean())


def pooled_score(kept: Crop, later: Crop) -> float:
    """Mean |difference| at equal mean brightness, the signed difference first averaged over 2x2 pixels."""
    a, b = _now(kept, later)
    d = b * (a.mean() / max(float(b.mean()), 1.0)) - a
    h, w = d.shape[0] // 2 * 2, d.shape[1] // 2 * 2
    return float(np.abs(d[:h, :w].reshape(h // 2, 2, w // 2, 2, 3).mean((1, 3))).mean())


CANDIDATES: dict[str, Callable[[Crop, Crop], float]] = {
    "luma": luma_score, "per-channel": channel_score, "2x2 pooled": pooled_score}


def scenes(stands: list[str], slots: list[str]) -> dict[str, TableScene]:
    """The empty table, every stand with one piece kind / owner / side, every slot with one card face."""
    out = {"empty": TableScene({})}
    for kind, owner, flipped in itertools.product(("soul", "capital", "basecamp"), PALETTE, (False, True)):
        out[f"{kind}-{owner}-{'flipped' if flipped else 'up'}"] = TableScene(
            {s: Token(kind, owner, 1, flipped) for s in stands})
    for face in ("down", "up", "landscape", "hidden"):
        out[f"card-{face}"] = TableScene({}, {s: [SlotCard(face, f"kipukas:{i}" if face in ("down", "hidden")
                                                          else None)] for i, s in enumerate(slots)})
    return out


def changes(names: list[str]) -> list[tuple[str, str]]:
    """Placed and removed pieces, flipped pieces, and every change of a slot's card."""
    out: list[tuple[str, str]] = []
    for n in names:
        if n.split("-")[0] in ("soul", "capital", "basecamp"):
            out += [("empty", n), (n, "empty")]
            if n.endswith("-up"):
                out += [(n, n[:-2] + "flipped"), (n[:-2] + "flipped", n)]
    cards = ["empty"] + [n for n in names if n.startswith("card-")]
    out += list(itertools.permutations(cards, 2))
    return [c for c in out if c[0] != c[1]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--candidates", action="store_true", help="also print the candidate scores (see above)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    layout = table_layout(BoardMap.packaged())
    pose = default_pose(layout)
    renderer = Renderer(layout, pose, PALETTE)
    reference = renderer.render(TableScene({}), seed=999)
    stands, slots = [s.id for s in layout.stands], [s.id for s in layout.slots]
    tables = scenes(stands, slots)
    print(f"change test: mean |difference| above {UNCHANGED_LEVELS} levels is a change; seed {args.seed}")
    for ci, (cond, kw) in enumerate(CONDITIONS.items()):
        kept: dict[tuple[str, int], Kept] = {}
        for name, scene in tables.items():
            clean, _ = renderer.compose(scene, seed=args.seed)
            for v in range(2):
                reader = BoardReader(layout, pose, PALETTE, reference)
                reader.read(renderer.finish(clean, seed=args.seed + 1000 * ci + v, **kw))  # type: ignore[arg-type]
                kept[(name, v)] = dict(reader.changes.before)

        def current(k: Crop, later: Crop) -> float:
            return difference(k, later[0].astype(np.uint8))

        tests = {"current": current, **(CANDIDATES if args.candidates else {})}
        for label, test in tests.items():
            print(f"{cond:<26} " + ("" if label == "current" else f"[{label}] ")
                  + summary(tables, kept, stands, slots, test, misses=label == "current"))
    return 0


def summary(tables: dict[str, TableScene], kept: dict[tuple[str, int], Kept], stands: list[str],
            slots: list[str], test: Callable[[Crop, Crop], float], misses: bool = True) -> str:
    """The noise-only maximum and each kind of real change's minimum (and misses at the threshold) of
    ``test``; for the candidates the threshold means nothing, only the overlap of the two does."""
    def score(a: Kept, b: Kept, rid: str) -> float:
        return test(a[rid], b[rid])

    noise = max(score(kept[(n, 0)], kept[(n, 1)], r) for n in tables for r in kept[(n, 0)])
    stand_noise = max(score(kept[(n, 0)], kept[(n, 1)], r) for n in tables for r in stands)
    missed: dict[str, int] = {}
    least: dict[str, float] = {}
    for a, b in changes(list(tables)):
        if a.startswith("card") or b.startswith("card"):
            kind = "card"
        elif a == "empty" or b == "empty":
            kind = "place/remove"
        else:
            kind = "soul flip" if a.startswith("soul") else "capital/basecamp upturned"
        for r in (slots if kind == "card" else stands):
            under = f"under:{r}"  # a card slid under the mat shows only there
            s = max(score(kept[(a, 0)], kept[(b, 1)], q) for q in (r, under) if q in kept[(a, 0)])
            least[kind] = min(least.get(kind, 1e9), s)
            missed[kind] = missed.get(kind, 0) + (s <= UNCHANGED_LEVELS)
    return (f"noise only: largest {noise:5.2f} (stands {stand_noise:5.2f}); real changes, smallest"
            + (" (missed): " if misses else ": ")
            + ", ".join(f"{k} {least[k]:.2f}" + (f" ({missed[k]})" if misses else "") for k in sorted(least)))


if __name__ == "__main__":
    sys.exit(main())
