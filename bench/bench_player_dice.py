"""What the overhead reader makes of a player's die on a stand, drawn as the real dice are (issue 13, lies18).

The stress bench's "player's die" is ``vision.synth.clutter``'s die: a sharp cube with a flat top and pips
in its own colour. The project's real dice (``d6.jpeg``, ``d20.jpeg``, ``diel_die.jpeg``) are rounded: the
D6 and the diel die a sphere-cut cube with a recessed circle on each face, the D20 nearly a sphere;
``vision.synth.dice`` draws them so (the rounded cube's recessed circle, the D20's hexagon from above). This
bench puts one such die, in the owner's colour, on an empty stand (territory or movement) of a seeded table,
at a size drawn from ``--sizes`` (the category is 12-20 mm), and counts per die kind and stand kind how
many frames read it as a piece with confidence (``MIN_CONFIDENCE``, not obstructed): a reading the
stabiliser could accept. With and without the empty-table photo; sharp frames at 2028x1520, JPEG q90.
``--weights`` reads the same frames with each patch classifier folder given (default: the shipped one), so
weights are compared in one run on the same dice.

    PYTHONPATH=. .venv/bin/python bench/bench_player_dice.py --seeds 9300 9324 [--weights shipped DIR ...]
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import cast

import numpy as np

from calibration.camera import default_pose
from tests.overhead_support import PALETTE, layout, random_tokens
from tracker.table.loop import MIN_CONFIDENCE
from vision.board import BoardReader
from vision.dice_faces import SIZE_MM
from vision.synth import Renderer, TableScene
from vision.synth.dice import draw_die, random_die
from vision.warp import Mat3

KINDS = ("d6", "d20", "diel")


class Raised:
    """A renderer's planes raised by ``z0_mm``: ``draw_die`` draws from the table top (z 0), a stand is higher."""

    def __init__(self, renderer: Renderer, z0_mm: float) -> None:
        self.renderer = renderer
        self.z0_mm = z0_mm
        self.px_per_mm = renderer.px_per_mm

    def plane(self, z_mm: float) -> Mat3:
        return self.renderer.plane(z_mm + self.z0_mm)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs=2, default=(9300, 9324), help="first and last+1 seed")
    ap.add_argument("--sizes", type=float, nargs=2, default=(12.0, 20.0), help="die sizes drawn from (mm)")
    ap.add_argument("--frames", type=int, default=3, help="frames read with the die on the stand")
    ap.add_argument("--weights", nargs="*", default=["shipped"],
                    help="patch classifier folders to compare (\"shipped\": vision/assets)")
    args = ap.parse_args()
    for weights in args.weights:
        report(args, weights)
    return 0


def report(args: argparse.Namespace, weights: str) -> None:
    """The table and the lies of one patch classifier folder (``shipped``: the packaged one)."""
    patches = None if weights == "shipped" else Path(weights)
    lay = layout()
    size = (2028, 1520)
    counts: Counter[tuple[str, str, str, str]] = Counter()
    lies: dict[tuple[int, str], list[str]] = {}  # (seed, photo) -> each frame's confident piece
    for seed in range(*args.seeds):
        rng = np.random.default_rng(seed)
        tokens = random_tokens(rng, fill=0.5)
        owner = sorted(PALETTE)[seed % 2]
        kind = KINDS[seed % 3]
        stand_kind = ("territory", "movement")[(seed // 3) % 2]
        prefix = "T" if stand_kind == "territory" else "M"
        empties = [s.id for s in lay.stands if s.id not in tokens and s.id.startswith(prefix)]
        if not empties:
            continue
        sid = empties[int(rng.integers(len(empties)))]
        x, y, z = lay.stand_world(sid)
        r = Renderer(lay, default_pose(lay, image_size=size), PALETTE)
        clean, _ = r.compose(TableScene(tokens), seed=seed)
        side = float(rng.uniform(*args.sizes))
        saved = SIZE_MM[kind]
        SIZE_MM[kind] = side
        try:
            with_die = clean.copy()
            die = random_die(kind, PALETTE[owner], (x + rng.uniform(-2, 2), y + rng.uniform(-2, 2)), rng)
            draw_die(with_die, cast(Renderer, Raised(r, z)), die, rng)
        finally:
            SIZE_MM[kind] = saved
        for photo in (True, False):
            reader = BoardReader(lay, default_pose(lay, image_size=size), PALETTE,
                                 r.render(TableScene({}), seed=seed + 500) if photo else None, patches=patches)
            for i in range(3):
                reader.read(r.finish(clean, seed=seed * 10 + i))
            for i in range(args.frames):
                o = reader.read(r.finish(with_die, seed=seed * 10 + 5 + i, jpeg_quality=90)).stands[sid]
                mode = "photo" if photo else "none"
                if o.obstructed or o.confidence < MIN_CONFIDENCE:
                    counts[(kind, stand_kind, mode, "flagged")] += 1
                elif o.state == "empty":
                    counts[(kind, stand_kind, mode, "empty")] += 1
                else:
                    counts[(kind, stand_kind, mode, "piece")] += 1
                    lies.setdefault((seed, mode), []).append(f"{o.owner} {o.state} {o.confidence:.2f}")
            if (seed, mode) in lies:
                lies[(seed, mode)].insert(0, f"{kind} {side:.1f} mm on {sid}:")
    print(f"weights: {weights}")
    print(f"player's dice (vision.synth.dice), sizes {args.sizes[0]:g}-{args.sizes[1]:g} mm, seeds "
          f"{args.seeds[0]}-{args.seeds[1] - 1}, {args.frames} frames each: frames read as a confident piece")
    print(f"{'die':6} {'stand':10} {'photo':6} {'frames':>6} {'flagged':>8} {'empty':>6} {'piece':>6}")
    for kind in KINDS:
        for stand_kind in ("territory", "movement"):
            for mode in ("photo", "none"):
                got = [counts[(kind, stand_kind, mode, what)] for what in ("flagged", "empty", "piece")]
                if sum(got):
                    print(f"{kind:6} {stand_kind:10} {mode:6} {sum(got):6d} {got[0]:8d} {got[1]:6d} {got[2]:6d}")
    total = sum(counts[key] for key in counts if key[3] == "piece")
    print(f"frames read as a confident piece: {total} of {sum(counts.values())}")
    for (seed, mode), said in sorted(lies.items()):
        print(f"  seed {seed} {mode}: {said[0]} read {', '.join(said[1:])}")


if __name__ == "__main__":
    raise SystemExit(main())
