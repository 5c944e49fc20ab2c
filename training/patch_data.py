"""Domain-randomised patches of stands and slots, rendered with ``vision.synth``, for the patch classifier.

Every scene draws its own table: players' colours from the whole hue circle (the map's own purple and teal
included), pieces on about half the stands, cards face down, up or landscape, arms and sleeves, and
foreign objects (phones, dice, cups, card boxes, paper crumbs, and blobs of random shape and colour) over
random stands and slots. Each scene is photographed several times under random light: lamp colour
2700-7500 K, uneven light and exposure, hard shadows, glare, blur, sensor noise, JPEG quality down to 15,
at full and half resolution, sometimes from a knocked camera. Each region's patch is cut as the reader
cuts it (``vision.patch_classifier.patch_input``: the frame's light removed with the gains of
``vision.light``) through a slightly jittered homography (the reader's registration is not perfect), and
labelled from the renderer's truth: a region hidden >= ``UNKNOWN_FROM`` by something that is not a piece
or a card is "unknown"; one hidden a little (but not enough) is left out.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose, default_pose
from calibration.layout import TableLayout
from training.patch_dice import draw_rounded, rounded_dice
from vision.light import channel_gains, shrink
from vision.patch_classifier import SLOT_CLASSES, STAND_CLASSES, patch_input
from vision.regions import Region, slot_regions, stand_regions
from vision.synth import Renderer, SlotCard, TableScene, Token
from vision.synth.bump import bumped_pose
from vision.synth.clutter import CLUTTER_KINDS, Clutter
from vision.synth.tokens import GEOMETRY
from vision.warp import rotate, translate

UNKNOWN_FROM = 0.2
LEAVE_OUT = 0.02
SIZES = ((2028, 1520), (1014, 760))
LOW_JPEG = (20, 40)  # a "low" scene's JPEG quality range (issue 13: 1014x760 at q25 split souls from base camps)
BLURRED = (1.5, 2.5)  # a "blurred" scene's blur sigma, px (issue 13: 1014x760 blur 2 split base camps from capitals)
SQUARE_SHARE = 0.8  # of a blurred scene's territory pieces, capitals and base camps (the ordinary mix: 2/3)
PLAYER_DICE = (2, 6)  # a dice scene's dice in the players' colours, at least / fewer than
DIE_MM = (12.0, 20.0)  # a real die's edge (D6) or width (D20)
D20_SHARE = 0.3


@dataclass
class PatchSet:
    """Patches (N, INPUT, INPUT, 3) uint8 and class indices, for stands and for slots."""

    stands: NDArray[np.uint8]
    stand_labels: NDArray[np.int64]
    slots: NDArray[np.uint8]
    slot_labels: NDArray[np.int64]


def random_palette(rng: np.random.Generator) -> dict[str, tuple[int, int, int]]:
    """Two or three players' colours, any hue, saturated enough to be a seat colour."""
    out: dict[str, tuple[int, int, int]] = {}
    for i in range(int(rng.integers(2, 4))):
        hsv = np.array([[[rng.integers(0, 180), rng.integers(120, 256), rng.integers(110, 240)]]], np.uint8)
        b, g, r = (int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
        out[f"p{i}"] = (b, g, r)
    return out


def random_scene(layout: TableLayout, rng: np.random.Generator, palette: dict[str, tuple[int, int, int]],
                 squares: bool = False) -> TableScene:
    """A random table; ``squares``: capitals and base camps make ``SQUARE_SHARE`` of the territory pieces."""
    fill = float(rng.uniform(0.3, 0.8))
    toks: dict[str, Token] = {}
    kinds = ["capital", "basecamp", "soul"]
    share = [SQUARE_SHARE / 2, SQUARE_SHARE / 2, 1 - SQUARE_SHARE]
    for s in layout.stands:
        if rng.random() < fill:
            if s.kind != "territory":
                kind = "soul"
            else:
                kind = str(rng.choice(kinds, p=share)) if squares else str(rng.choice(kinds))
            toks[s.id] = Token(kind, str(rng.choice(sorted(palette))),
                               flipped=bool(kind == "soul" and rng.random() < 0.4))
    slots: dict[str, list[SlotCard]] = {}
    for sl in layout.slots:
        u = rng.random()
        if u < 0.35:
            slots[sl.id] = [SlotCard("down", f"kpks.us/T{int(rng.integers(1000)):03d}#{int(rng.integers(10000)):04d}")]
        elif u < 0.55:
            slots[sl.id] = [SlotCard("up")]
        elif u < 0.7 and not sl.id.startswith("transit"):
            slots[sl.id] = [SlotCard("landscape")]
    clutter = []
    for _ in range(int(rng.integers(0, 5))):
        kind = str(rng.choice(CLUTTER_KINDS))
        if rng.random() < 0.55:
            s = layout.stands[int(rng.integers(len(layout.stands)))]
            x, y, z = layout.stand_world(s.id)
            if kind in ("cup", "cardbox"):
                z = 0.0 if rng.random() < 0.5 else z
            clutter.append(Clutter(kind, (x + rng.uniform(-12, 12), y + rng.uniform(-12, 12), z)))
        else:
            cx, cy = layout.slots[int(rng.integers(len(layout.slots)))].centre_mm
            clutter.append(Clutter(kind, (cx + rng.uniform(-30, 30), cy + rng.uniform(-40, 40), 0.0)))
    hands = int(rng.choice([0, 0, 1, 1, 2]))
    return TableScene(toks, slots, hands, clutter)


def near_colour(colour: tuple[int, int, int], rng: np.random.Generator) -> tuple[int, int, int]:
    """A colour a few hue steps from ``colour``, a little more or less saturated and bright: another print of
    the same filament, or another player's die of a close colour."""
    hsv = cv2.cvtColor(np.array([[colour]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0].astype(np.float64)
    hsv[0] = (hsv[0] + rng.uniform(-8, 8)) % 180
    hsv[1:] = np.clip(hsv[1:] * rng.uniform(0.85, 1.15, 2), 0, 255)
    b, g, r = (int(v) for v in cv2.cvtColor(np.array([[hsv]], np.uint8), cv2.COLOR_HSV2BGR)[0, 0])
    return (b, g, r)


def player_dice(layout: TableLayout, scene: TableScene, palette: dict[str, tuple[int, int, int]],
                rng: np.random.Generator) -> list[Clutter]:
    """Dice in the players' own colours (or near them; issue 21: each player's dice are theirs, marks
    recessed) on territory stands, ``DIE_MM`` wide, D6 or D20: on an empty stand (where its top passes for
    a capital or base camp of its colour), on a piece's top, or leaning beside one."""
    territory = [s.id for s in layout.stands if s.kind == "territory"]
    picks = rng.choice(len(territory), size=int(rng.integers(*PLAYER_DICE)), replace=False)
    out = []
    for i in picks:
        sid = territory[int(i)]
        x, y, z = layout.stand_world(sid)
        tok = scene.tokens.get(sid)
        colour = palette[str(rng.choice(sorted(palette)))]
        if rng.random() < 0.35:
            colour = near_colour(colour, rng)
        side = float(rng.uniform(*DIE_MM))
        faces = 20 if rng.random() < D20_SHARE else 6
        if tok is None:
            dx, dy = rng.uniform(-4, 4, 2)
        elif rng.random() < 0.5:
            z += GEOMETRY["soul" if tok.kind == "soul" else tok.kind].height_mm
            dx, dy = rng.uniform(-3, 3, 2)
        else:
            a = rng.uniform(0, 2 * np.pi)
            dx, dy = (side / 2 + rng.uniform(2, 8)) * np.cos(a), (side / 2 + rng.uniform(2, 8)) * np.sin(a)
        out.append(Clutter("die", (x + dx, y + dy, z), colour, side, faces))
    return out


def _blobs(frame: NDArray[np.uint8], mask: NDArray[np.uint8], targets: list[NDArray[np.float64]],
           rng: np.random.Generator) -> None:
    """Objects of no known kind: polygons and ellipses of random colour (some textured) over regions."""
    for poly in targets:
        c = poly.mean(0) + rng.normal(0, 0.25, 2) * np.ptp(poly, axis=0)
        r = float(np.ptp(poly, axis=0).mean()) * rng.uniform(0.4, 1.1)
        n = int(rng.integers(3, 9))
        a = np.sort(rng.uniform(0, 2 * np.pi, n))
        pts = np.column_stack([c[0] + r * rng.uniform(0.5, 1.0, n) * np.cos(a),
                               c[1] + r * rng.uniform(0.5, 1.0, n) * np.sin(a)])
        hull = cv2.convexHull(np.round(pts).astype(np.int32))
        layer = np.zeros(mask.shape, np.uint8)
        cv2.fillConvexPoly(layer, hull, 255, cv2.LINE_8)
        colour = np.array([rng.integers(0, 256) for _ in range(3)], np.float32)
        where = layer > 0
        if rng.random() < 0.4:
            tex = rng.normal(0, rng.uniform(10, 50), (int(where.sum()), 3)).astype(np.float32)
            frame[where] = np.clip(colour + tex, 0, 255).astype(np.uint8)
        else:
            frame[where] = colour.astype(np.uint8)
        mask |= layer


def _occlusion(r: Renderer, mask: NDArray[np.uint8], ids: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for rid in ids:
        m = np.zeros(mask.shape, np.uint8)
        cv2.fillPoly(m, [np.round(r.region_polygon(rid)).astype(np.int32)], 1)
        n = int(m.sum())
        out[rid] = float((mask[m > 0] > 0).sum()) / max(n, 1)
    return out


def _finish_args(rng: np.random.Generator) -> dict[str, object]:
    return {
        "lighting": float(rng.uniform(0.7, 1.25)),
        "noise": float(rng.uniform(0.5, 2.0)),
        "blur": float(rng.uniform(0.0, 2.3)) if rng.random() < 0.6 else 0.0,
        "jpeg_quality": [None, 90, 70, 50, 35, 25, 15][int(rng.integers(7))],
        "kelvin": float(rng.uniform(2700.0, 7500.0)) if rng.random() < 0.75 else None,
        "shadow": float(rng.uniform(0.3, 0.65)) if rng.random() < 0.3 else 0.0,
        "glare": int(rng.integers(1, 9)) if rng.random() < 0.3 else 0,
    }


def _jitter(reg: Region, rng: np.random.Generator) -> NDArray[np.float64]:
    w, h = reg.size
    move = 1.6 * reg.px_per_mm if reg.kind != "slot" else 4.0
    J = translate(w / 2, h / 2) @ rotate(float(rng.uniform(-3, 3))) @ translate(-w / 2, -h / 2)
    return np.asarray(reg.H @ J @ translate(*rng.uniform(-move, move, 2)), np.float64)


def stand_label(tok: Token | None) -> int:
    if tok is None:
        return STAND_CLASSES.index("empty")
    if tok.kind == "soul":
        return STAND_CLASSES.index("soul flipped" if tok.flipped else "soul")
    return STAND_CLASSES.index(tok.kind)


Cache = dict[object, tuple[Renderer, NDArray[np.uint8]]]


def scene_patches(layout: TableLayout, seed: int, shots: int, views: int,
                  cache: Cache, low: bool = False, blurred: bool = False, dice: bool = False,
                  rounded: bool = False, d20_share: float | None = None,
                  under: list[int] | None = None) -> Iterator[tuple[str, NDArray[np.uint8], int]]:
    """(kind, patch, label) for every region of ``shots`` photos of one random scene, ``views`` jittered
    cuts each; kind is "stand" or "slot". A ``low`` scene is photographed at half resolution (1014x760)
    and every shot JPEG-compressed at quality ``LOW_JPEG``: the mix the reader met too rarely in the
    ordinary scenes (a quarter at half resolution, a seventh of those near q25). A ``blurred`` scene is
    photographed at half resolution with every shot blurred by ``BLURRED`` px (its light, noise and JPEG
    drawn as an ordinary shot's), and its territory pieces are mostly capitals and base camps: at 1014x760
    blur 2 a square piece's corners are gone and the two were split (issue 13, lies11). Its other draws
    are the ordinary scene's, so an ordinary seed renders what it always did. A ``dice`` scene adds
    ``player_dice`` (drawn from their own generator) to the ordinary scene: a die in its owner's colour on an
    empty stand was read as that player's capital (issue 13, lies16); the renderer's truth labels the stands
    they cover unknown, as any foreign object's. ``rounded`` (with ``dice``) also puts
    ``training.patch_dice.rounded_dice`` (the real dice's look, their own generator) on territory and movement
    stands nothing else hides; each stand one rests on is unknown (``d20_share``: that share of them D20s,
    see ``rounded_dice``). ``under``, if given, gets for every stand patch yielded the label of what stands
    there whatever covers it (the piece or empty), so a covered stand's reading can be judged: the piece under
    the cover read as itself is true, an empty or other stand read as a piece is a lie."""
    rng = np.random.default_rng([seed, 0xC1A5])
    size = SIZES[0] if rng.random() < 0.75 else SIZES[1]
    if low or blurred:
        size = SIZES[1]
    base = default_pose(layout, image_size=size)
    pose: CameraPose = base
    bump = None
    if rng.random() < 0.2:
        bump = (round(float(rng.uniform(0.3, 3.0)), 1), round(float(rng.uniform(2.0, 20.0))))
        pose = bumped_pose(base, bump[0], bump[1], rng)
    if bump is not None or size not in cache:  # a knocked camera is drawn once: not worth keeping
        fresh = Renderer(layout, pose, {"x": (0, 0, 255)})
        made = (fresh, fresh.render(TableScene({}), seed=seed))
        if bump is not None:
            r, reference = made
        else:
            cache[size] = made
    if bump is None:
        r, reference = cache[size]
    r.palette = random_palette(rng)
    scene = random_scene(layout, rng, r.palette, squares=blurred)
    if dice:
        scene.clutter.extend(player_dice(layout, scene, r.palette, np.random.default_rng([seed, 0xD1CE])))
    composed, truth = r.compose(scene, seed=seed)
    mask = truth.hand_mask.copy()
    stands = stand_regions(layout, pose)
    slots = slot_regions(layout, pose)
    ids = list(stands) + list(slots)
    on_stand: set[str] = set()
    dmask = np.zeros_like(mask)  # what the rounded dice hide: kept apart so the scene's own draws stay the same
    drng = np.random.default_rng([seed, 0xD1CE, 2])
    if rounded:
        free = {sid for sid, occ in _occlusion(r, mask, list(stands)).items() if occ == 0.0}
        placed = rounded_dice(layout, scene, r.palette, drng, free, d20_share)
        draw_rounded(composed, dmask, r, placed, drng)
        on_stand = {d.stand for d in placed}
    picks = [ids[int(i)] for i in rng.choice(len(ids), size=int(rng.integers(0, 4)), replace=False)]
    _blobs(composed, mask, [r.region_polygon(p) for p in picks], rng)
    occluded = _occlusion(r, mask, ids)
    covered = _occlusion(r, mask | dmask, ids) if rounded else occluded
    small_ref = shrink(reference)
    for k in range(shots):
        finish = _finish_args(rng)
        if low:
            finish["jpeg_quality"] = int(rng.integers(LOW_JPEG[0], LOW_JPEG[1] + 1))
        if blurred:
            finish["blur"] = float(rng.uniform(*BLURRED))
        frame = r.finish(composed, seed=seed * 10 + k, **finish)  # type: ignore[arg-type]
        gains = channel_gains(shrink(frame), small_ref) * rng.uniform(0.95, 1.05, 3).astype(np.float32)
        for rid, reg in {**stands, **slots}.items():
            kept = not LEAVE_OUT < occluded[rid] < UNKNOWN_FROM  # as if there were no rounded dice
            occ = covered[rid]
            if LEAVE_OUT < occ < UNKNOWN_FROM and rid not in on_stand:
                for _ in range(views if kept else 0):
                    _jitter(reg, rng)  # the scene's own draws stay the same
                continue
            jrng = rng if kept else drng
            if reg.kind == "slot":
                cards = scene.slots.get(rid)
                label = SLOT_CLASSES.index(cards[-1].face if cards else "empty")
                if occ >= UNKNOWN_FROM:
                    label = SLOT_CLASSES.index("unknown")
            else:
                label = stand_label(scene.tokens.get(rid))
                if occ >= UNKNOWN_FROM or rid in on_stand:
                    label = STAND_CLASSES.index("unknown")
                if under is not None:
                    under.extend([stand_label(scene.tokens.get(rid))] * views)
            for _ in range(views):
                yield ("slot" if reg.kind == "slot" else "stand",
                       patch_input(frame, reg, gains.astype(np.float32), _jitter(reg, jrng)), label)


def build(layout: TableLayout, seeds: list[int], shots: int = 3, views: int = 2, progress: bool = True,
          low: bool = False, blurred: bool = False, dice: bool = False, rounded: bool = False,
          d20_share: float | None = None) -> PatchSet:
    """The patch set of the scenes ``seeds`` (each seed one scene; ``low``: half resolution, heavy JPEG;
    ``blurred``: half resolution, blur 1.5-2.5 px, mostly square pieces; ``dice``: dice in the players'
    colours on territory stands; ``rounded``: real-looking dice on stands too, ``d20_share`` of them D20s;
    see ``scene_patches``), with a
    progress bar on stderr."""
    st: list[NDArray[np.uint8]] = []
    sl: list[NDArray[np.uint8]] = []
    yst: list[int] = []
    ysl: list[int] = []
    cache: dict[object, tuple[Renderer, NDArray[np.uint8]]] = {}
    t0 = time.perf_counter()
    for i, seed in enumerate(seeds):
        for kind, patch, label in scene_patches(layout, seed, shots, views, cache, low, blurred, dice, rounded,
                                                  d20_share):
            (st if kind == "stand" else sl).append(patch)
            (yst if kind == "stand" else ysl).append(label)
        if progress:
            done = (i + 1) / len(seeds)
            eta = (time.perf_counter() - t0) / done * (1 - done)
            bar = "#" * int(30 * done)
            print(f"\rrendering [{bar:<30}] {i + 1}/{len(seeds)} scenes, {len(yst) + len(ysl)} patches, "
                  f"{eta:4.0f} s left", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return PatchSet(np.asarray(st, np.uint8), np.asarray(yst, np.int64), np.asarray(sl, np.uint8),
                    np.asarray(ysl, np.int64))
