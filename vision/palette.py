"""Learning the players' colours at set-up: each player puts a piece on a known stand, and the colour at
the centre of that stand becomes the player's colour (so nothing about token colours is hard-coded)."""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from vision.assets import check_frame
from vision.colour import MIN_SUM
from vision.errors import VisionError
from vision.regions import stand_regions
from vision.warp import extract

CENTRE_RADIUS_MM = 4.0


def learn_palette(frame: np.ndarray, layout: TableLayout, pose: CameraPose,
                  samples: dict[str, str]) -> dict[str, tuple[int, int, int]]:
    """Owner -> BGR colour from ``samples`` (stand id -> owner whose piece stands there in ``frame``)."""
    img = check_frame(frame, "palette frame")
    regions = stand_regions(layout, pose)
    per_owner: dict[str, list[np.ndarray]] = {}
    for sid, owner in samples.items():
        if sid not in regions:
            raise VisionError(f"palette samples: unknown stand {sid!r}")
        reg = regions[sid]
        patch = extract(img, reg.H, reg.size).astype(np.float32)
        n = patch.shape[0]
        yy, xx = np.mgrid[0:n, 0:n]
        r = np.hypot(yy - n / 2.0, xx - n / 2.0) / reg.px_per_mm
        px = patch[(r < CENTRE_RADIUS_MM)]
        px = px[px.sum(axis=1) > MIN_SUM]
        if len(px) < 10:
            raise VisionError(f"palette samples: stand {sid!r} is too dark to learn {owner!r}'s colour")
        per_owner.setdefault(owner, []).append(np.median(px, axis=0))
    out: dict[str, tuple[int, int, int]] = {}
    for owner, cols in per_owner.items():
        m = np.median(np.stack(cols), axis=0)
        out[owner] = (round(float(m[0])), round(float(m[1])), round(float(m[2])))
    return out
