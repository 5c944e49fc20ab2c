"""Learning the players' colours at set-up: each player puts a piece on a known stand, and the colour at
the centre of that stand becomes the player's colour (so nothing about token colours is hard-coded).

``palette_problems`` refuses colours the reader could not keep apart: two players' colours too close, or a
colour the map itself shows (a purple piece on magenta stands), naming them and suggesting others."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import TableLayout
from vision.assets import check_frame
from vision.colour import F32, MIN_SUM, chroma, colour_chroma
from vision.errors import VisionError
from vision.regions import stand_regions
from vision.stands import StandClassifier
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


# Colours players can choose from when theirs is refused (BGR, as a camera under neutral light sees them)
SUGGESTIONS: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 210), "blue": (200, 90, 30), "yellow": (40, 210, 230), "orange": (30, 120, 240),
    "green": (60, 170, 40), "pink": (170, 110, 245), "cyan": (220, 200, 40), "purple": (150, 40, 140),
}
MAP_SHARE_MAX = 0.04  # of the map's pixels that may look like a player's colour (pieces excluded)
MIN_APART = 0.09  # chromaticity distance between two players' colours


def map_mask(layout: TableLayout, pose: CameraPose, shape: tuple[int, int], scale: float = 1.0) -> NDArray[np.bool_]:
    """The map's outline in a frame of ``shape`` (h, w) at ``scale`` of the calibrated resolution."""
    ox, oy = layout.map_origin_mm
    w, h = layout.map_size_mm
    pts = pose.project(np.array([[ox, oy, 0.0], [ox + w, oy, 0.0], [ox + w, oy + h, 0.0], [ox, oy + h, 0.0]]))
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(pts * scale).astype(np.int32)], 1)
    return m > 0


def map_share(colour: tuple[int, int, int], c: F32, s: F32, where: NDArray[np.bool_]) -> float:
    """The fraction of the ``where`` pixels (chromaticity ``c``, brightness ``s``) that would count as
    ``colour`` if it were a player's."""
    cl = StandClassifier({"x": colour})
    return float(((cl.owner_map(c, s) >= 0) & where).sum()) / max(float(where.sum()), 1.0)


def palette_problems(palette: dict[str, tuple[int, int, int]], frame: np.ndarray, layout: TableLayout,
                     pose: CameraPose, samples: dict[str, str] | None = None) -> list[str]:
    """Why ``palette`` cannot be told apart on this table (empty when it can): players' colours too close
    to each other, or to colours the map itself shows in ``frame``. Each message names the colours and
    suggests others. The stands in ``samples`` (where the players' pieces stand) are left out of the map."""
    img = check_frame(frame, "palette frame")
    c, s = chroma(img)
    where = map_mask(layout, pose, img.shape[:2])
    regions = stand_regions(layout, pose)
    for sid in samples or {}:
        if sid in regions:
            hole = np.zeros(img.shape[:2], np.uint8)
            cv2.fillPoly(hole, [np.round(regions[sid].polygon).astype(np.int32)], 1)
            where &= hole == 0
    problems: list[str] = []
    owners = sorted(palette)
    cs = {o: colour_chroma(palette[o]) for o in owners}
    for i, a in enumerate(owners):
        for b in owners[i + 1:]:
            d = float(np.linalg.norm(cs[a] - cs[b]))
            if d < MIN_APART:
                problems.append(f"{a} and {b} are too close to each other (chromaticity distance {d:.3f}, "
                                f"at least {MIN_APART} needed)")
    for o in owners:
        share = map_share(palette[o], c, s, where)
        if share > MAP_SHARE_MAX:
            problems.append(f"{o}'s colour is too close to the map's own colours ({share:.0%} of the map looks "
                            f"like it)")
    if problems:
        taken = [cs[o] for o in owners]
        good = [name for name, bgr in SUGGESTIONS.items()
                if map_share(bgr, c, s, where) <= MAP_SHARE_MAX / 2
                and all(float(np.linalg.norm(colour_chroma(bgr) - t)) >= MIN_APART for t in taken)]
        problems.append("try pieces in " + (", ".join(good) if good else "colours that differ more from the map"))
    return problems


def hidden_owner(model: tuple[F32, F32] | None, n: int, ambiguous: set[str],
                 palette: dict[str, tuple[int, int, int]]) -> str | None:
    """An ambiguous player's colour that an empty stand's own top (``model``, its chromaticity and
    brightness on an ``n`` x ``n`` patch) shows, so that a piece of it would not be seen there; or None."""
    if model is None:
        return None
    c, s = model[0], model[1]
    yy, xx = np.mgrid[0:n, 0:n]
    core = np.hypot(yy - n / 2.0, xx - n / 2.0) < n / 3.0
    for o in sorted(ambiguous):
        if map_share(palette[o], c, s, core) > 0.1:
            return o
    return None
