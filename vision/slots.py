"""Reading one mat slot: empty, a card face down (with its QR payload when readable), face up, or landscape.

The slot is rectified so that the top of a card in it points up. What changed against the empty slot (a
reference frame, or the mat artwork itself when there is none) is measured in three zones: the lower
centre (only a portrait card covers it), the upper sides (only a landscape card in the wide part covers
them) and the upper centre (both). A portrait card is face down when its QR decodes, or when its colours
match the card-back art; otherwise face up.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import cv2
import numpy as np
import zxingcpp
from numpy.typing import NDArray
from pyzbar import pyzbar

from vision.assets import CARD_BACK, asset
from vision.colour import F32, MIN_SUM, chroma, chroma_dist, share, skin_fraction
from vision.memo import IdentityMemo
from vision.slot_qr import qr_window, read_window, window_of
from vision.warp import Image, Mat3, extract, extract_grey, scale, translate

QR_PX_PER_MM = 3.0
QR_ZONE_MM = 64.0
BACK_LIKE_MIN = 0.15  # measured: card backs >= 0.38, fronts <= 0.01
# a card this unlike a back, which the patch classifier is also sure is face up (ACCEPT), has no code to
# decode: the decoders' search on a front (~3 ms, ~9 ms with the quick pass) finds nothing (issue 14)
FRONT_LIKE_MAX = 0.02
BACK_CELL_MIN = 0.2  # measured: the back's outer cells >= 0.5
OCCUPIED = 0.5
SPECK_FRAME_PX = 4.0  # tuned on bench seed 7: strokes up to ~4 frame px wide cling to cards at 1014x760
SPECK_MAX_MM = 6.0  # never open away more than this: a cup's rim, a finger, a card box's edge are wider
OVER_MM = 6.0  # how much longer / wider than a card its outline may measure in a full-resolution frame
FULL_PPM = 1.9  # the frame px per mm OVER_MM was measured at (2028x1520)
EDGE_FRAME_PX = 2.0  # a card's edge, blurred and resampled, reads as changed this far out, per side
FREE = 0.25
# sizes of the decision in mm, each the pixel size it had at SLOT_PX_PER_MM = 1 (issue 14: a slot read at
# another resolution decides alike; tests/test_slots_resolution.py)
OPEN_RADIUS_MM = 1.0  # the changed mask's opening: a 3x3 square at 1 px/mm
MIN_CALM_MM2 = 60.0  # calm pixels needed to measure the light's gain on the slot (else gain 1)
MIN_ZONE_MM = 3.0  # a zone narrower than this (cut by the slot's edge) gives no fraction
FACE_SURE = 0.5  # the rule's face confidence below which the patch classifier's sure face (ACCEPT) decides

# the patch classifier's sure reading among the rule's candidates: (reading, calibrated probability, flipped)
Confirm = Callable[[tuple[str, ...]], tuple[str, float, bool] | None]


def changed_mask(patch: Image, ref: tuple[F32, F32], cs: tuple[F32, F32] | None = None,
                 k: float = 1.0) -> NDArray[np.bool_]:
    """Pixels that differ from the empty slot (chromaticity and brightness ``ref``) in colour, or much more
    than the overall light change; ``k``: the patch's px per mm."""
    c, s = chroma(patch) if cs is None else cs
    rc, rs = ref
    dc = chroma_dist(c, rc)
    floor, lit, seen = _ref_of(rs)
    ratio = s / floor
    calm = (dc < 0.03) & lit
    calm_ratio = ratio[calm]
    gain = float(calm_ratio[::3].mean()) if calm_ratio.size > MIN_CALM_MM2 * k * k else 1.0
    rel = ratio / max(gain, 0.05)
    out = ((dc > 0.05) & (s > MIN_SUM) & seen) | (rel < 0.5) | (rel > 2.0)
    side = 2 * max(1, round(OPEN_RADIUS_MM * k)) + 1
    m = np.asarray(cv2.morphologyEx(out.astype(np.uint8), cv2.MORPH_OPEN, np.ones((side, side), np.uint8)), np.uint8)
    return fill_holes(m)


_REFS: IdentityMemo[tuple[F32, NDArray[np.bool_], NDArray[np.bool_]]] = IdentityMemo()


def _ref_of(rs: F32) -> tuple[F32, NDArray[np.bool_], NDArray[np.bool_]]:
    """What ``changed_mask`` derives from an empty slot's brightness alone, once per model (models are
    replaced, never changed in place): its floor of 1, where it is bright enough to measure the light, where
    it is bright enough for a colour."""
    return _REFS.get((rs,), lambda: (np.maximum(rs, 1.0), rs > 300, rs > MIN_SUM))


def fill_holes(mask: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """Changed pixels plus everything they enclose: a card's pale art inside its dark edge counts as card.

    The unchanged pixels are ringed by one more row and column of unchanged pixels and flooded (4-connected)
    from the ring: what the flood does not reach is enclosed. The same pixels as labelling every unchanged
    component and keeping those that touch the border, in a third of the time."""
    h, w = mask.shape[:2]
    free = np.ones((h + 2, w + 2), np.uint8)
    free[1:-1, 1:-1] = mask == 0
    cv2.floodFill(free, np.zeros((h + 4, w + 4), np.uint8), (0, 0), 2, flags=4)
    return np.asarray((mask > 0) | (free[1:-1, 1:-1] == 1), dtype=np.bool_)


def zones(size: tuple[int, int], k: float, card_mm: tuple[float, float]) -> dict[str, tuple[int, int, int, int]]:
    """Zone boxes (x0, y0, x1, y1) in patch pixels."""
    w, h = size[0] / k, size[1] / k
    cw, ch = card_mm
    mid = w / 2
    boxes_mm = {
        "lower": (mid - cw / 2 + 8, h / 2 + 25, mid + cw / 2 - 8, h / 2 + ch / 2 - 8),
        "upper": (mid - cw / 2 + 8, h / 2 - ch / 2 + 8, mid + cw / 2 - 8, h / 2 - 25),
        "left": (mid - ch / 2 + 8, 10, mid - cw / 2 - 6, cw - 10),
        "right": (mid + cw / 2 + 6, 10, mid + ch / 2 - 8, cw - 10),
    }
    out: dict[str, tuple[int, int, int, int]] = {}
    for name, (x0, y0, x1, y1) in boxes_mm.items():
        box = (max(0, round(x0 * k)), max(0, round(y0 * k)), min(size[0], round(x1 * k)), min(size[1], round(y1 * k)))
        out[name] = box
    return out


def frame_px_per_mm(H: Mat3, k: float, size: tuple[int, int]) -> float:
    """The camera frame's pixels per mm at the slot's centre (``H``: patch px at ``k`` px/mm -> frame px):
    what the patch's smallest trustworthy detail is, since the patch is resampled from the frame. The pose
    fixes it: computed once per slot and pose, not every frame."""
    return _frame_px_per_mm(np.asarray(H, np.float64).tobytes(), k, size)


@lru_cache(maxsize=256)
def _frame_px_per_mm(H: bytes, k: float, size: tuple[int, int]) -> float:
    return qr_window(np.frombuffer(H, np.float64).reshape(3, 3), k, size).frame_px_per_mm


def card_shaped(mask: NDArray[np.bool_], k: float, card_mm: tuple[float, float], tol_mm: float = 14.0,
                frame_ppm: float | None = None) -> bool:
    """Whether the largest changed blob is one card: a solid rectangle of the card's size (a card may hang
    a little over the slot's edge, so it may be up to ``tol_mm`` shorter).

    Specks and the mat's printed slot numbers that the resampled frame renders softer than the mat
    artwork (the reference without an empty-table photo) cling to a card's edge as thin strokes and
    widen its outline. They are opened away first, with a kernel of ``SPECK_FRAME_PX`` frame pixels
    (``frame_ppm``: the frame's px per mm here), at most ``SPECK_MAX_MM``: thin strokes go, anything as
    wide as a finger or a cup's rim stays and still breaks the card's outline. For the same reason a
    card's blurred edge makes it measure wider in a coarser frame: the size tolerance grows by
    ``EDGE_FRAME_PX`` frame px per side beyond what a full-resolution frame blurs."""
    m = mask.astype(np.uint8)
    if frame_ppm is not None and frame_ppm > 0:
        d = min(SPECK_FRAME_PX / frame_ppm, SPECK_MAX_MM) * k
        side = max(3, 2 * int(d / 2) + 1)
        m = np.asarray(cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((side, side), np.uint8)), np.uint8)
    # the labels and each blob's area, without OpenCV's other statistics (2.4x the time on a slot's patch)
    n, labels = cv2.connectedComponents(m, connectivity=8)
    if n <= 1:
        return False
    areas = np.bincount(labels.ravel(), minlength=n)
    i = 1 + int(areas[1:].argmax())
    # the hull of the blob's outer contour is the hull of all its pixels, for a fraction of the points
    contours, _ = cv2.findContours((labels == i).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(np.vstack(contours))
    (_, _), (w, h), _ = cv2.minAreaRect(hull)
    short, long_ = sorted((w / k, h / k))
    area = float(areas[i])
    solidity = area / max(float(cv2.contourArea(hull)), 1.0)
    cw, ch = sorted(card_mm)
    over = OVER_MM
    if frame_ppm is not None and frame_ppm > 0:
        over += 2.0 * EDGE_FRAME_PX * max(0.0, 1.0 / frame_ppm - 1.0 / FULL_PPM)
    return (cw - tol_mm < short < cw + over and ch - tol_mm < long_ < ch + over and solidity > 0.9)


def _frac(mask: NDArray[np.bool_], box: tuple[int, int, int, int], k: float = 1.0) -> float | None:
    x0, y0, x1, y1 = box
    if x1 - x0 < MIN_ZONE_MM * k or y1 - y0 < MIN_ZONE_MM * k:
        return None
    return share(mask[y0:y1, x0:x1])


@lru_cache(maxsize=1)
def _back_hist() -> NDArray[np.float32]:
    hsv = cv2.cvtColor(asset(CARD_BACK), cv2.COLOR_BGR2HSV)
    hist = cv2.calcHist([hsv], [0, 1], None, [30, 16], [0, 180, 0, 256])
    return np.asarray(hist / max(float(hist.max()), 1.0), dtype=np.float32)


def back_like(card: Image) -> NDArray[np.bool_]:
    """The card's pixels whose hue and saturation are common on card backs (per pixel, so a cell of the
    card's map is the map of that cell)."""
    hsv = cv2.cvtColor(card, cv2.COLOR_BGR2HSV)
    bp = cv2.calcBackProject([hsv], [0, 1], _back_hist(), [0, 180, 0, 256], 1.0)
    return np.asarray(bp > 0.05, np.bool_)


def back_likeness(card: Image) -> float:
    """Fraction of the card's pixels whose hue and saturation are common on card backs."""
    return share(back_like(card))


def min_cell_likeness(card: Image, cols: int = 2, rows: int = 3, like: NDArray[np.bool_] | None = None) -> float:
    """The lowest ``back_likeness`` over the outer rows of a grid of the card: a card back shows its art
    richly there (>= 0.5 per cell; the QR in the middle row shows little), so a cell without it means
    something covers that part. ``like``: the card's ``back_like`` when the caller has it (the same cells)."""
    h, w = card.shape[:2]
    out = 1.0
    for r in (0, rows - 1):
        for c in range(cols):
            rs, cs = slice(r * h // rows, (r + 1) * h // rows), slice(c * w // cols, (c + 1) * w // cols)
            cell = card[rs, cs]
            if cell.size:
                out = min(out, back_likeness(cell) if like is None else share(like[rs, cs]))
    return out


def decode_qr(gray: Image) -> str | None:
    """The first QR payload found in ``gray``. The camouflaged modules are only ~3 px wide in a 2028-px
    frame, so an unsharp-masked copy is tried first, with zxing-cpp (fast) then zbar, then the plain crop."""
    sharp = np.asarray(cv2.addWeighted(gray, 1.8, cv2.GaussianBlur(gray, (0, 0), 1.5), -0.8, 0), np.uint8)
    for img in (sharp, gray):
        for res in zxingcpp.read_barcodes(img, formats=zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)):
            if res.valid and res.text:
                return str(res.text)
        for sym in pyzbar.decode(img, symbols=[pyzbar.ZBarSymbol.QRCODE]):
            try:
                return str(sym.data.decode("utf-8"))
            except UnicodeDecodeError:
                continue
    return None


def qr_homography(H_slot: Mat3, k_slot: float, size: tuple[int, int], card_mm: tuple[float, float]) -> tuple[Mat3, int]:
    """Patch px -> frame px for a square QR_ZONE_MM window on the card's centre at QR_PX_PER_MM."""
    n = round(QR_ZONE_MM * QR_PX_PER_MM)
    cx, cy = size[0] / 2.0, size[1] / 2.0
    H = H_slot @ translate(cx, cy) @ scale(k_slot / QR_PX_PER_MM) @ translate(-n / 2.0, -n / 2.0)
    return H, n


def slot_code(frame: NDArray[np.uint8], H_slot: Mat3, k_slot: float, size: tuple[int, int],
              card_mm: tuple[float, float]) -> str | None:
    """The plain decoders on a slot's code window: what a face-down card's reading and its retry on an
    unchanged frame both decode."""
    Hq, n = qr_homography(H_slot, k_slot, size, card_mm)
    return decode_qr(extract_grey(frame, Hq, (n, n)))


def card_code(frame: NDArray[np.uint8], H_slot: Mat3, k_slot: float, size: tuple[int, int],
              card_mm: tuple[float, float], accept: Callable[[str], bool] | None) -> str | None:
    """A face-down card's code as ``read_slot`` decodes it: the plain decoders (``slot_code``); with
    ``accept``, only a payload it accepts, and one missed is looked for through blur and low resolution
    too (``vision.slot_qr``'s quick pass)."""
    payload = slot_code(frame, H_slot, k_slot, size, card_mm)
    if payload is not None and accept is not None and not accept(payload):
        payload = None
    if payload is None and accept is not None:
        win = qr_window(H_slot, k_slot, size)
        payload = read_window(window_of(frame, win), win.frame_px_per_mm, accept, thorough=False)
    return payload


def mat_reference(layout_mat: Image, mat_size_mm: tuple[float, float], slot_mm_H: Mat3, size: tuple[int, int]) -> Image:
    """The empty slot as printed: the mat artwork resampled into the slot patch (patch px -> mat mm)."""
    sx = layout_mat.shape[1] / mat_size_mm[0]
    sy = layout_mat.shape[0] / mat_size_mm[1]
    return extract(layout_mat, scale(sx, sy) @ slot_mm_H, size)


def read_slot(frame: Image, H: Mat3, size: tuple[int, int], k: float, ref: tuple[F32, F32],
              card_mm: tuple[float, float], skin_check: bool = False,
              patch: Image | None = None, *, cs: tuple[F32, F32] | None = None,
              accept: Callable[[str], bool] | None = None,
              confirm: Confirm | None = None) -> tuple[str, str | None, float, bool]:
    """(state, payload, confidence, obstructed) of one slot; ``ref`` is the empty slot patch. With
    ``skin_check`` (no reference frame, so no arm detection) skin-coloured pixels mark the slot obstructed.
    ``patch`` is the slot already rectified (and light-normalised) from ``frame`` through ``H``, ``cs`` its
    ``chroma`` when the caller has it. With ``accept`` (is this payload a card id?), a face-down card's
    code the plain decoders miss is looked for through blur and low resolution too (``vision.slot_qr``'s
    quick pass; the caller runs the thorough one within its budget), and only accepted payloads are
    reported. With ``confirm`` (the patch classifier's sure candidate, ``SecondOpinion.confirms`` for this
    slot) a change the rule cannot shape into a card is read anyway where the zones allow one placement and
    the classifier is sure of it (``confirmed``)."""
    if patch is None:
        patch = extract(frame, H, size)
    c, s = chroma(patch) if cs is None else cs
    if skin_check and skin_fraction(c, s) > 0.05:
        return "empty", None, 0.0, True
    mask = changed_mask(patch, ref, (c, s), k)
    z = zones(size, k, card_mm)
    f = {name: _frac(mask, box, k) for name, box in z.items()}
    lower, upper = f["lower"] or 0.0, f["upper"] or 0.0
    sides = [v for v in (f["left"], f["right"]) if v is not None]
    side = min(sides) if sides else 0.0
    side_max = max(sides) if sides else 0.0
    if max(lower, upper, side_max) < FREE:
        conf = 1.0 - max(lower, upper, side_max) / FREE
        return "empty", None, 0.5 + 0.5 * conf, False
    if not card_shaped(mask, k, card_mm, frame_ppm=frame_px_per_mm(H, k, size)):
        # what changed is not a card (a hand, an arm, a stray object), or a card under a light the mat's
        # colours shift with, or blurred into its neighbours
        return confirmed(frame, H, size, k, card_mm, patch, z, (lower, upper, side_max), confirm, accept)
    if lower >= OCCUPIED and upper >= OCCUPIED:
        seen = portrait_face(frame, H, size, k, card_mm, patch, z, accept, confirm)
        if seen is None:
            return "empty", None, 0.0, True  # a back with part of it hidden: something lies on the card
        like, payload = seen
        if payload is not None:
            return "down", payload, 1.0, False
        conf = face_sureness(like) * min(lower, upper)
        face = "down" if like >= BACK_LIKE_MIN else "up"
        if conf < FACE_SURE and confirm is not None:
            sure = confirm(("down", "up"))  # JPEG shifts the back's hues: the rule's face is unsure
            if sure is not None:
                return sure[0], None, sure[1], False
        return face, None, conf, False
    if side >= OCCUPIED and upper >= OCCUPIED:
        return "landscape", None, float(min(side, upper)), False
    # partly covered zones that fit no card placement: something else is in the way, or a blurred card
    return confirmed(frame, H, size, k, card_mm, patch, z, (lower, upper, side_max), confirm, accept)


def portrait_face(frame: Image, H: Mat3, size: tuple[int, int], k: float, card_mm: tuple[float, float],
                  patch: Image, z: dict[str, tuple[int, int, int, int]],
                  accept: Callable[[str], bool] | None,
                  confirm: Confirm | None = None) -> tuple[float, str | None] | None:
    """A portrait card's face evidence, as the rule and ``confirmed`` both weigh it: (its back-likeness,
    its code when read), or None where a back shows with part of it hidden (something lies on the card).
    The code is not looked for on a front (``is_front``): where it is, the search finds nothing."""
    x0, y0, x1, y1 = z["upper"][0], z["upper"][1], z["lower"][2], z["lower"][3]
    card = patch[y0:y1, x0:x1]
    back = back_like(card)
    like = share(back)
    if like >= BACK_LIKE_MIN and min_cell_likeness(card, like=back) < BACK_CELL_MIN:
        return None
    if is_front(like, confirm):
        return like, None
    return like, card_code(frame, H, k, size, card_mm, accept)


def is_front(like: float, confirm: Confirm | None) -> bool:
    """Whether a portrait card is a front by two independent measures: its colours are nothing like the
    back's (back-likeness under ``FRONT_LIKE_MAX``; backs measure >= 0.38, and a back whose hues a lamp or
    JPEG shifted stays near ``BACK_LIKE_MIN``) and the patch classifier is sure it lies face up (``ACCEPT``).
    Only then is its code not searched for; either measure alone leaves the search as it was."""
    if like >= FRONT_LIKE_MAX or confirm is None:
        return False
    sure = confirm(("up",))
    return sure is not None and sure[0] == "up"


def face_sureness(like: float) -> float:
    """How sure the back-likeness is of the face, 0-1: its distance from ``BACK_LIKE_MIN``."""
    return float(np.clip(abs(like - BACK_LIKE_MIN) / 0.15, 0.0, 1.0))


def placements(lower: float, upper: float, side_max: float) -> tuple[str, ...]:
    """The readings the zones' changed fractions allow: a portrait card changes both centre zones, a
    landscape card the upper centre and a side but not the lower centre; an empty slot changes no zone
    mostly. A mix no placement explains allows none."""
    if lower >= OCCUPIED and upper >= OCCUPIED:
        return ("down", "up")
    if upper >= OCCUPIED and side_max >= OCCUPIED and lower < OCCUPIED:
        return ("landscape",)
    if max(lower, upper, side_max) < OCCUPIED:
        return ("empty",)
    return ()


def confirmed(frame: Image, H: Mat3, size: tuple[int, int], k: float, card_mm: tuple[float, float],
              patch: Image, z: dict[str, tuple[int, int, int, int]], fracs: tuple[float, float, float],
              confirm: Confirm | None, accept: Callable[[str], bool] | None) -> tuple[str, str | None, float, bool]:
    """A slot the rule could not shape into a card or an empty slot (a lamp shifts the mat's colours
    beside the card, blur smears the card into the mat): read only where the zones allow a placement
    (``placements``), the patch classifier is sure of it at its calibrated ``ACCEPT`` (so its "unknown",
    which foreign objects train, is at most 1 - ACCEPT), and for a portrait card the rule's own face test
    does not disagree (its QR decodes, or its colours are the back's or not, without a hidden part; where
    the back-likeness is within FACE_SURE of its threshold, the classifier's face stands). Else obstructed,
    as before: unknown, never a guess."""
    cands = placements(*fracs)
    sure = confirm(cands) if confirm is not None and cands else None
    if sure is None:
        return "empty", None, 0.0, True
    state, p, _ = sure
    if state in ("empty", "landscape"):
        return state, None, p, False
    seen = portrait_face(frame, H, size, k, card_mm, patch, z, accept, confirm)
    if seen is None:
        return "empty", None, 0.0, True
    like, payload = seen
    face = "down" if payload is not None or like >= BACK_LIKE_MIN else "up"
    if face != state and (payload is not None or face_sureness(like) >= FACE_SURE):
        return "empty", None, 0.0, True  # the rule is sure of the other face
    return state, payload, (1.0 if payload is not None else p), False
