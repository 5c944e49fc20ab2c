"""What lies under the covered stands of a cached patch set: re-rendered from its seeds (issue 13, lies20).

A cached set (``training.train_patches --cache``) labels a stand hidden by a foreign object "unknown" and
keeps nothing of what the object hides. Whether a covered stand read as a piece is a lie depends on it: the
piece that stands there, partly hidden, read as itself is the game's true state; an empty stand, or another
piece, read as a piece is not. This renders the set's scenes again (the same seeds, the same draws), checks
that every stand patch is the cached one, and writes ``NAME-under.npy``: for every stand patch, the label
of what stands there whatever covers it. ``bench/patch_calibration.py`` reads it.

    nice -n 10 env PYTHONPATH=. .venv/bin/python -m training.patch_under --cache /tmp/patches patches-2-30-3-2.npz
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from calibration.layout import TableLayout
from rules.kipukas.board_map import BoardMap
from tracker.overhead.layout import table_layout
from training.patch_data import Cache, scene_patches

NAME = re.compile(r"patches-(?P<tag>(?:low|blur|dice|rdice)-(?:d20s(?P<share>\d+)-)?)?(?P<seed>\d+)-(?P<n>\d+)"
                  r"-(?P<shots>\d+)-(?P<views>\d+)\.npz")


class MismatchError(ValueError):
    """The re-rendered scenes do not give the cached labels: the render code changed since the cache."""


def under_labels(layout: TableLayout, name: str, cached: NDArray[np.uint8]) -> NDArray[np.int64]:
    """For every stand patch of the cached set ``name`` (its stand patches ``cached``), the label of what
    stands there under any cover."""
    m = NAME.fullmatch(name)
    if m is None:
        raise ValueError(f"not a training.train_patches cache name: {name}")
    tag = (m["tag"] or "").split("-")[0]
    share = int(m["share"]) / 100 if m["share"] else None
    seed, n, shots, views = (int(m[k]) for k in ("seed", "n", "shots", "views"))
    under: list[int] = []
    patches: list[NDArray[np.uint8]] = []
    for s in range(seed * 100000, seed * 100000 + n):
        cache: Cache = {}  # one per scene, as train_patches renders them (the empty table is the scene's)
        for kind, patch, _ in scene_patches(layout, s, shots, views, cache, low=tag == "low",
                                            blurred=tag == "blur", dice=tag in ("dice", "rdice"),
                                            rounded=tag == "rdice", d20_share=share, under=under):
            if kind == "stand":
                patches.append(patch)
        print(f"\r{name}: {s - seed * 100000 + 1}/{n} scenes", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if len(patches) != len(cached) or not np.array_equal(np.asarray(patches, np.uint8), cached):
        raise MismatchError(f"{name}: the re-rendered stand patches differ from the cached ones")
    return np.asarray(under, np.int64)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True, help="training.train_patches' --cache folder")
    ap.add_argument("sets", nargs="+", help="patch files in the cache")
    args = ap.parse_args()
    layout = table_layout(BoardMap.packaged())
    for name in args.sets:
        with np.load(args.cache / name) as z:
            cached = z["stands"]
        np.save(args.cache / name.replace(".npz", "-under.npy"), under_labels(layout, name, cached))
    return 0


if __name__ == "__main__":
    sys.exit(main())
