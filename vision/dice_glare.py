"""A specular spot taken off a coloured die's top before the face network sees it (issue 21, round 8).

A lamp's highlight on plastic is the lamp's own colour, added on top of the die's body colour (the
dichromatic reflection model: body reflection keeps the die's hue, surface reflection the light's). In the
light-corrected crop a pixel of the die's top is therefore `P = a * C + W * s`: `C` the die's colour, `a` its
shading there (the body, the recessed mark's shadowed floor, its lit rim: all the same hue), `s` how much of
the lamp's white `W` the spot adds (`W` the sensor's white under the light the gains correct to). The three
channels give, at every pixel, the least-squares split into `a * C` and `W * s`, whatever the shading; pixels
that do not lie in that plane (the table beside the die) are not its top. The spot is smooth, so its
estimate is smoothed over the top's pixels; where it is clearly there, the crop's grey is
`(P - W * s) / (1 - s)`: the mark's contrast under the spot restored instead of washed out. Where the
sensor clipped only the die's own (strongest) channel, its two others still hold the pixel and split it
alone (round 10): the spot's share is known there too, and the mark is taken from the stronger unclipped
channel, scaled to the die's own (round 8 left the clipped white there, which cut a numeral under a spot in
two). A clipped pixel they cannot split (clipped in them too, or a die whose two weaker channels are alike)
holds nothing of the mark and is set to the die's own level (no mark seen, not a bright blob). A die of
little colour (white, grey, black: its weakest channel near its strongest) cannot tell the spot from its
own surface and is left as it is; so is every die without a spot (the estimate stays under `S_FROM`),
which keeps their crops exactly as the network was trained on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]

WHITE = 255.0  # the lamp's white in the light-corrected crop (the sensor's white under the model's light)
MIN_CHROMA = 0.25  # 1 - r below this: the die's colour is too grey to tell a spot from its own surface
S_FROM, S_FULL = 0.04, 0.12  # the spot's share of white from which it is taken off, and from which fully
S_MAX = 0.85  # beyond this little of the mark is left to restore; more would only amplify the noise
SIGMA_MM = 0.5  # the spot's estimate is smoothed this much (it is smooth; the per-pixel estimate is noisy)
CLIPPED = 250.0  # a raw channel at this level or above: the sensor clipped it
TOP_MM = 7.5  # the crop's centre this far out holds the top's numeral (a cube's top is 18 mm across)
EDGE_MM = 0.7  # the die's outline is trusted for a spot only this far inside it
PLANE_ABS, PLANE_REL = 12.0, 0.06  # a pixel off the die's colour-and-white plane by more: not the die's top
MIN_SPLIT = 0.2  # the two weaker channels must differ by this share of the strongest to split a pixel alone
S_LOST = 0.5  # a spot's share from which the mark under it counts as hidden: half its contrast gone, noise doubled


def die_colour(lit: F32, own: NDArray[np.uint8]) -> NDArray[np.float64] | None:
    """The die's body colour: the median of its own pixels (a spot on a minority of them only pales it,
    which makes the spot's estimate smaller, never larger); None for too few pixels."""
    px = lit[own > 0]
    if len(px) < 20:
        return None
    return np.asarray(np.median(px, axis=0), np.float64)


def glare_share(lit: F32, own: NDArray[np.uint8], px_per_mm: float, raw: F32 | None = None) -> F32 | None:
    """The spot's share `s` of the lamp's white over the crop (0 where there is none or it cannot be told),
    or None for a die whose colour is too grey to tell a spot from its own surface. Every pixel is split
    into the die's colour and white (least squares over the three channels); only pixels that lie in that
    plane (the die's top, its marks, the spot: not the table or a shadow beside it) count."""
    found = _share(lit, own, px_per_mm, raw)
    return None if found is None else found[0]


@dataclass(frozen=True)
class Channels:
    """A coloured die's channels by strength (`own` its strongest, `other` the stronger of the two others,
    `weak` the weakest), and its colour (light-corrected)."""

    own: int
    other: int
    weak: int
    colour: NDArray[np.float64]


def channels(colour: NDArray[np.float64]) -> Channels | None:
    """The die's channels, or None when its two weaker channels are too alike to split a pixel with them
    alone (a red die's green and blue: shading and white then move both the same way)."""
    own = int(np.argmax(colour))
    other, weak = sorted((k for k in range(3) if k != own), key=lambda k: -float(colour[k]))
    if float(colour[other] - colour[weak]) < MIN_SPLIT * float(colour[own]):
        return None
    return Channels(own, other, weak, colour)


def own_clipped(raw: F32, ch: Channels | None) -> NDArray[np.bool_]:
    """The pixels where the sensor clipped the die's own channel but neither of the two others."""
    if ch is None:
        return np.zeros(raw.shape[:2], bool)
    return np.asarray((raw[:, :, ch.own] >= CLIPPED) & (raw[:, :, ch.other] < CLIPPED)
                      & (raw[:, :, ch.weak] < CLIPPED), bool)


def hidden_mm2(raw: F32, lit: F32, own: NDArray[np.uint8], px_per_mm: float) -> float:
    """How much of the die's top (mm²) a spot may have hidden the mark under (round 13): where its share is
    `S_LOST` or more, or the sensor clipped a pixel inside a spot that nothing splits. 0 for a die without
    such a spot; infinite for one whose spot cannot be told (too grey a colour, or the die's own pixels
    clipped): the reader cannot say the mark was all there. The reader holds such a die to a stricter
    acceptance (`vision.dice_net.FaceNet.accept_hidden`)."""
    found = _share(lit, own, px_per_mm, raw)
    if found is None:
        return float("inf")
    return float(found[2].sum()) / (px_per_mm * px_per_mm)


def _share(lit: F32, own: NDArray[np.uint8], px_per_mm: float, raw: F32 | None
           ) -> tuple[F32, Channels | None, NDArray[np.bool_]] | None:
    """`glare_share`, the die's channels (None when they cannot split a pixel whose own channel clipped) and
    the top's pixels whose mark the spot may have hidden (`hidden_mm2`)."""
    colour = die_colour(lit, own)
    if colour is None or float(colour.max()) < 1.0 or 1.0 - float(colour.min() / colour.max()) < MIN_CHROMA:
        return None
    basis = np.stack([colour / np.linalg.norm(colour), np.full(3, 1.0 / np.sqrt(3.0))], axis=1)
    px = lit.reshape(-1, 3).astype(np.float64)
    coef = px @ np.linalg.pinv(basis).T
    resid = np.linalg.norm(px - coef @ basis.T, axis=1)
    plane = (resid < PLANE_ABS + PLANE_REL * np.linalg.norm(px, axis=1)) & (coef[:, 0] > 0)
    white = np.maximum(coef[:, 1], 0.0) / np.sqrt(3.0)
    ch = channels(colour)
    clipped = np.zeros_like(plane)
    if raw is not None:
        peak = raw.max(axis=2).reshape(-1)
        if float(np.median(peak[own.reshape(-1) > 0])) >= CLIPPED - 10.0:
            return None
        clipped = peak >= CLIPPED
        plane &= ~clipped
        if ch is not None:  # the die's own channel clipped: the two others split the pixel alone
            core = own_clipped(raw, ch).reshape(-1)
            p_o, p_w = px[:, ch.other], px[:, ch.weak]
            c_o, c_w = float(colour[ch.other]), float(colour[ch.weak])
            white = np.where(core, np.maximum((p_w * c_o - p_o * c_w) / (c_o - c_w), 0.0), white)
            plane |= core
    else:
        ch = None
    # the outline's last pixels mix the die with the table: off the plane, yet some pass for a spot. A
    # clipped pixel is no such edge: it must not eat its neighbours, and it takes the spot's share around it
    edge = np.ones((2 * round(EDGE_MM * px_per_mm) + 1,) * 2, np.uint8)
    inner = cv2.erode(((own.reshape(-1) > 0) & (plane | clipped)).astype(np.uint8).reshape(own.shape), edge)
    h, w = own.shape  # and only near the crop's centre, the top: the crop's border may hold the table's plane
    yy, xx = np.mgrid[0:h, 0:w]
    near = np.hypot(xx - (w - 1) / 2.0, yy - (h - 1) / 2.0) <= TOP_MM * px_per_mm
    top = (inner > 0) & near
    m = np.asarray(top & plane.reshape(own.shape), np.float32)
    v = np.asarray(white, np.float32).reshape(own.shape) * m
    sigma = SIGMA_MM * px_per_mm
    num = cv2.GaussianBlur(v, (0, 0), sigma)
    den = cv2.GaussianBlur(m, (0, 0), sigma)
    s = np.where(top & (den > 1e-3), num / np.maximum(den, 1e-3), 0.0) / WHITE
    # a clipped pixel nothing splits, inside a spot (the share around it, seen wider, is one): all spot. A
    # die clipped by a bright lamp alone (no spot around) keeps its pixels
    lost = top & (clipped & ~plane).reshape(own.shape)
    hidden = top & (s >= S_LOST)
    if lost.any():
        wide = cv2.GaussianBlur(v, (0, 0), 4 * sigma) / np.maximum(cv2.GaussianBlur(m, (0, 0), 4 * sigma), 1e-3)
        spotted = lost & (np.maximum(s, wide / WHITE) >= S_FROM)
        s = np.where(spotted, np.maximum(s, S_FULL), s)
        hidden |= spotted
    return np.asarray(np.clip(s, 0.0, S_MAX), np.float32), ch, np.asarray(hidden, np.bool_)


def deglare(raw: F32, lit: F32, grey: F32, own: NDArray[np.uint8], px_per_mm: float) -> F32:
    """`grey` (the crop's brightest light-corrected channel) with the die's specular spot taken off; `raw`
    the crop before the light's gains (for the sensor's clipping), `lit` after them, `own` the die's pixels."""
    return deglare_hidden(raw, lit, grey, own, px_per_mm)[0]


def deglare_hidden(raw: F32, lit: F32, grey: F32, own: NDArray[np.uint8], px_per_mm: float) -> tuple[F32, float]:
    """`deglare` and `hidden_mm2` from one split of the die's pixels (the split is most of their cost)."""
    found = _share(lit, own, px_per_mm, raw)
    if found is None:
        return grey, float("inf")
    s, ch, hidden = found
    lost = float(hidden.sum()) / (px_per_mm * px_per_mm)
    w = np.clip((s - S_FROM) / (S_FULL - S_FROM), 0.0, 1.0)
    if not (w > 0).any():
        return grey, lost
    restored = (grey - WHITE * s) / (1.0 - s)
    die = own > 0
    level = float(np.median(grey[die & (w == 0)])) if (die & (w == 0)).sum() >= 10 else float(np.median(grey[die]))
    restored = np.where(raw.max(axis=2) >= CLIPPED, level, restored)
    if ch is not None:  # own channel clipped alone: the mark from the stronger other channel, at the die's scale
        other = (lit[:, :, ch.other] - WHITE * s) / (1.0 - s) * float(ch.colour[ch.own] / ch.colour[ch.other])
        restored = np.where(own_clipped(raw, ch) & (s > 0), other, restored)
    return np.asarray(grey * (1.0 - w) + restored * w, np.float32), lost
