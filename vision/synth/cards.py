"""Cards in mat slots: face down (the real card-back art with a QR of the given payload drawn in its
camouflage), face up (the real card front), or landscape (the front turned, in the slot's wide part).

The back art in the assets carries its own QR (``https://www.kpks.us/HMPU``); it is painted over by the
scene's payload so every rendered back encodes exactly what the scene says.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import cv2
import numpy as np

from calibration.layout import TableLayout
from vision.assets import CARD_BACK, CARD_FRONT, asset
from vision.synth.scene import SlotCard
from vision.warp import Image, Mat3, paste, rotate, scale, translate

CARD_PX = (380, 620)  # sprite size (w, h) for a 95 x 155 mm card: 4 px/mm
QR_CENTRE = (0.502, 0.500)  # where the art's own QR sits, as fractions of the card (measured with zxing)
QR_WIDTH = 0.40  # of the card width; the printed QR is 0.36


def qr_modules(payload: str) -> np.ndarray:
    """The QR code of ``payload`` as a 0/1 module matrix (1 = dark), with a 2-module quiet zone."""
    params = cv2.QRCodeEncoder.Params()
    params.correction_level = cv2.QRCodeEncoder_CORRECT_LEVEL_L
    q = cv2.QRCodeEncoder.create(params).encode(payload)
    if q is None or q.size == 0:
        raise ValueError(f"payload {payload!r} cannot be encoded as a QR code")
    return (np.asarray(q) < 128).astype(np.uint8)


@lru_cache(maxsize=64)
def card_back(payload: str) -> Image:
    """The back of a card whose QR encodes ``payload`` (sprite, CARD_PX)."""
    art = cv2.resize(asset(CARD_BACK), CARD_PX, interpolation=cv2.INTER_AREA).astype(np.float32)
    w, h = CARD_PX
    mods = qr_modules(payload)
    n = mods.shape[0]
    side = round(QR_WIDTH * w * n / (n - 2))  # the quiet zone lies outside QR_WIDTH
    x0, y0 = round(QR_CENTRE[0] * w - side / 2), round(QR_CENTRE[1] * h - side / 2)
    dark = cv2.resize(mods, (side, side), interpolation=cv2.INTER_NEAREST).astype(np.float32)[:, :, None]
    region = art[y0:y0 + side, x0:x0 + side]
    # camouflage: light modules take the art's own lava colours brightened, dark ones its cracks darkened
    light_tone = np.clip(region * 0.35 + np.array([60.0, 190.0, 250.0]) * 0.65, 0, 255)
    dark_tone = region * 0.18
    art[y0:y0 + side, x0:x0 + side] = dark * dark_tone + (1.0 - dark) * light_tone
    return np.clip(art, 0, 255).astype(np.uint8)


@lru_cache(maxsize=2)
def card_front(landscape: bool) -> Image:
    front = cv2.resize(asset(CARD_FRONT), CARD_PX, interpolation=cv2.INTER_AREA)
    if landscape:
        front = cv2.rotate(front, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return np.asarray(front, dtype=np.uint8)


def card_pose_mm(slot_rect: tuple[float, float, float, float], up_deg: float, landscape: bool,
                 card_mm: tuple[float, float]) -> tuple[float, float, float]:
    """Centre (x, y) in the mat frame and rotation of a card in a slot: portrait cards are centred, landscape
    cards lie in the slot's wide part, against the edge the card's top points to."""
    x0, y0, x1, y1 = slot_rect
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if not landscape:
        return cx, cy, up_deg
    depth = (y1 - y0) if up_deg in (0.0, 180.0) else (x1 - x0)
    shift = depth / 2 - card_mm[0] / 2 - 2.0
    a = np.radians(up_deg)
    return cx + shift * float(np.sin(a)), cy - shift * float(np.cos(a)), up_deg


def draw_cards(layout: TableLayout, plane: Callable[[float], Mat3], frame: Image, slots: dict[str, list[SlotCard]],
               rng: np.random.Generator) -> None:
    """Draw every slot's cards (bottom first) flat on the mat, each slightly off-centre and askew; `plane(z)` maps
    the mat frame at height z mm to the image."""
    cw, ch = layout.card_size_mm
    for sid in sorted(slots):
        spec = layout.slot(sid)
        for i, card in enumerate(slots[sid]):
            if card.face == "hidden":
                _draw_hidden(layout, plane, frame, sid, card, rng)
                continue
            if card.face == "down":
                if not card.payload:
                    raise ValueError(f"slot {sid}: a face-down card needs a payload")
                sprite = card_back(card.payload)
            elif card.face in ("up", "landscape"):
                sprite = card_front(card.face == "landscape")
            else:
                raise ValueError(f"slot {sid}: unknown card face {card.face!r}")
            landscape = card.face == "landscape"
            x, y, ang = card_pose_mm(spec.rect_mm, spec.up_deg, landscape, (cw, ch))
            x += rng.uniform(-2.0, 2.0)
            y += rng.uniform(-2.0, 2.0)
            ang += rng.uniform(-3.0, 3.0)
            sh, sw = sprite.shape[:2]
            k = (ch if landscape else cw) / sw
            H = plane(0.3 + 0.3 * i) @ translate(x, y) @ rotate(ang) @ scale(k) @ translate(-sw / 2, -sh / 2)
            alpha = np.ones((sh, sw), np.float32)
            paste(frame, sprite, alpha, H)


def _draw_hidden(layout: TableLayout, plane: Callable[[float], Mat3], frame: Image, sid: str, card: SlotCard,
                 rng: np.random.Generator) -> None:
    """A card slid under the mat at slot `sid`'s outer edge: only the end beyond the mat's edge is drawn (the
    mat covers the rest), 40-75 mm of it, a little off-centre and askew."""
    if not card.payload:
        raise ValueError(f"slot {sid}: a hidden card needs a payload")
    spec = layout.slot(sid)
    cw, ch = layout.card_size_mm
    x0, y0, x1, y1 = spec.rect_mm
    half = (y1 - y0) / 2 if spec.up_deg in (0.0, 180.0) else (x1 - x0) / 2
    out_mm = float(rng.uniform(40.0, 75.0))
    sprite = card_back(card.payload)
    sw = sprite.shape[1]
    k = cw / sw
    first = round((ch - out_mm) / k)
    end = np.ascontiguousarray(sprite[first:])
    ang = float(rng.uniform(-3.0, 3.0))
    shift = float(rng.uniform(-3.0, 3.0))
    H = (plane(0.0) @ translate((x0 + x1) / 2, (y0 + y1) / 2) @ rotate(spec.up_deg) @ translate(shift, half)
         @ rotate(ang) @ scale(k) @ translate(-sw / 2, 0.0))
    paste(frame, end, np.ones(end.shape[:2], np.float32), H)
