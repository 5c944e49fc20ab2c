"""Per-frame light adaptation: white balance and exposure measured against the table's empty model.

A lamp of another colour, a cloud or a camera that re-exposes changes every pixel of the frame by about
the same factor per channel. The median ratio of a small copy of the frame to the table's model (the
photo of the empty table, or the first frame seen) over pixels that are neither dark nor saturated gives
those three factors; patches are divided by them before any colour decision. Objects that cover less than
half the table cannot move a median. What is left (a shadow, a gradient) is local and handled per region.
"""

from __future__ import annotations

from functools import lru_cache, partial

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import median
from vision.errors import VisionError
from vision.memo import IdentityMemo

F32 = NDArray[np.float32]
Image = NDArray[np.uint8]
DENSE = 16  # one value in this many near-clipped: the whole-patch passes cost less than gathering
SMALL = 4  # the global model and the change finder work at a quarter of the resolution


def shrink(frame: Image) -> Image:
    """A quarter-resolution copy (bilinear: each pixel averages 2x2 of its 4x4 block; about 1 ms at
    2028x1520 on one core where INTER_AREA takes 5)."""
    h, w = frame.shape[:2]
    return np.asarray(cv2.resize(frame, (w // SMALL, h // SMALL), interpolation=cv2.INTER_LINEAR), np.uint8)


def small_of(frame: Image, lores: Image | None) -> Image:
    """The quarter-resolution frame the global steps work on: the camera's own low-resolution stream when
    it gives one (resized only when its size differs, e.g. 508x380 for 507x380), else ``shrink(frame)``."""
    if lores is None:
        return shrink(frame)
    h, w = frame.shape[:2]
    size = (w // SMALL, h // SMALL)
    if lores.ndim != 3 or lores.shape[2] != 3:
        raise VisionError(f"lores: a BGR image is needed, got shape {lores.shape}")
    if (lores.shape[1], lores.shape[0]) == size:
        return lores
    if abs(lores.shape[1] * h - lores.shape[0] * w) > max(w, h) * 2:
        raise VisionError(f"lores: {lores.shape[1]}x{lores.shape[0]} is not the view of the "
                         f"{w}x{h} frame (another aspect ratio)")
    return np.asarray(cv2.resize(lores, size, interpolation=cv2.INTER_LINEAR), np.uint8)


def channel_gains(small: Image, model: Image) -> F32:
    """Per-channel (B, G, R) factor by which ``small`` is brighter than ``model`` (same size and view)."""
    f = small[::4, ::4].reshape(-1, 3).astype(np.float32)
    m = model[::4, ::4].reshape(-1, 3).astype(np.float32)
    ok = (m.min(1) > 25) & (f.min(1) > 8) & (f.max(1) < 250) & (m.max(1) < 250)
    if int(ok.sum()) < 50:
        return np.ones(3, np.float32)
    g = np.median(f[ok] / m[ok], axis=0).astype(np.float32)
    return np.asarray(np.clip(g, 0.05, 20.0), np.float32)


class LightModel:
    """``channel_gains`` and the brightness ratio against one fixed model, with the model's side (its
    sample, which of its pixels are usable, its brightness) taken once instead of every frame.

    ``measure`` gives both from one sample of the frame with per-channel arithmetic (no reductions across
    the channel axis, no ``np.median``): the same numbers as ``gains`` and ``level``, in a fraction of the time.
    """

    def __init__(self, model: Image) -> None:
        self.m = model[::4, ::4].reshape(-1, 3).astype(np.float32)
        self.m_ok = (self.m.min(1) > 25) & (self.m.max(1) < 250)
        self.m_channels = [np.ascontiguousarray(self.m[:, k]) for k in range(3)]
        self.brightness = brightness(model)

    def gains(self, small: Image) -> F32:
        """``channel_gains(small, model)``."""
        return self.measure(small)[0]

    def level(self, small: Image) -> float:
        """How bright ``small`` is against the model (1: as bright)."""
        return self.measure(small)[1]

    def measure(self, small: Image) -> tuple[F32, float]:
        """(``gains(small)``, ``level(small)``) computed together."""
        sample = np.ascontiguousarray(small[::4, ::4]).reshape(-1, 3)
        b, g, r = sample[:, 0], sample[:, 1], sample[:, 2]
        lo = np.minimum(np.minimum(b, g), r)
        hi = np.maximum(np.maximum(b, g), r)
        level = median(b.astype(np.int32) + g + r) / max(self.brightness, 1.0)
        ok = self.m_ok & (lo > 8) & (hi < 250)
        if int(np.count_nonzero(ok)) < 50:
            return np.ones(3, np.float32), level
        gains = np.array([median(ch[ok].astype(np.float32) / m[ok]) for ch, m in
                          zip((b, g, r), self.m_channels, strict=True)], np.float32)
        return np.asarray(np.clip(gains, 0.05, 20.0), np.float32), level


class KeptModel:
    """What ``normalise`` needs of one model, kept by a caller that normalises many large images against it
    (the whole small frame, every frame): the model's values clipped to 8 bits, so that where the new light
    clips the model's value can be copied in one masked pass (on a bright table a third of the small frame
    is near-clipped, and gathering those pixels one by one was a third of a frame where nothing changed)."""

    def __init__(self, model: F32) -> None:
        self.model = model
        self.clipped = np.clip(model, 0, 255).astype(np.uint8)


def normalise(patch: Image, gains: F32, model: F32 | None = None, kept: KeptModel | None = None,
              lit: Image | None = None) -> Image:
    """``patch`` as it would look under the model's light. A channel the brighter lamp clipped carries no
    colour: where ``model`` (BGR float, same size) says the new light would clip it too, the model's value
    stands in for it (white glare clips channels the model does not expect to clip, and stays visible).
    ``kept``: ``KeptModel(model)``, kept by a caller that normalises many frames against one model (the
    same result, found faster). ``lit``: ``normalise(patch, gains)`` when the caller has it already (the
    patch classifier's input of the same slot); it is not written to.

    Each channel's 256 possible values are divided once per light (a lookup table), not once per pixel.
    Where many values are near-clipped (a pale slot under a brighter light: most of them), the model's are
    put in by whole-patch passes against a ``KeptModel`` kept here by the model's identity when the caller
    keeps none (the reader's models are replaced, never changed in place): gathering them one by one cost
    ~0.3 ms a slot, ten times that (issue 14). The same values either way."""
    if _unit(gains):
        return patch
    out = lit if lit is not None else np.asarray(cv2.LUT(patch, _lut(np.asarray(gains, np.float32).tobytes())),
                                                 np.uint8)
    if model is None or not bool((gains > 1.02).any()):
        return out
    hot = patch >= 235
    many = int(np.count_nonzero(hot))
    if many == 0:
        return out
    if lit is not None:
        out = out.copy()
    whole = patch.ndim == 3 and patch.shape[2] == 3 and model.shape == patch.shape and model.dtype == np.float32
    if kept is None and whole and many * DENSE >= patch.size:
        kept = _KEPT.get((model,), partial(KeptModel, model))
    if kept is not None and kept.model is model and whole:
        # the same values as the gather below, in whole-patch OpenCV passes (the diagonal transform
        # multiplies each channel by its gain in float32, as numpy does)
        h = patch.shape[0]
        bright = np.asarray(cv2.transform(model, np.diag(np.asarray(gains, np.float32))), np.float32)
        clip = np.logical_and(hot, bright >= 245).view(np.uint8).reshape(h, -1)
        cv2.copyTo(kept.clipped.reshape(h, -1), clip, out.reshape(h, -1))
        return out
    at = np.flatnonzero(hot)
    m = model.reshape(-1)[at]
    g = np.asarray(gains, np.float32)[at % patch.shape[-1]] if patch.ndim == 3 else gains
    fix = m * g >= 245
    out.reshape(-1)[at[fix]] = np.clip(m[fix], 0, 255).astype(np.uint8)
    return out


_KEPT: IdentityMemo[KeptModel] = IdentityMemo()  # the models normalise met without a caller's KeptModel


def _unit(gains: F32) -> bool:
    """``np.allclose(gains, 1.0, atol=0.02)`` without its cost (it ran for every patch)."""
    return all(abs(float(g) - 1.0) <= 0.02 + 1e-5 for g in gains)


@lru_cache(maxsize=8)
def _lut(gains: bytes) -> Image:
    """value -> value / gain per channel, as ``patch.astype(float32) / gains`` clipped and truncated."""
    inv = np.float32(1.0) / np.frombuffer(gains, np.float32)
    levels = np.arange(256, dtype=np.float32)[:, None] * inv[None, :]
    return np.clip(levels, 0, 255).astype(np.uint8).reshape(1, 256, 3)


def bgr_of(c: F32, s: F32) -> F32:
    """BGR (float) back from chromaticity and brightness sum."""
    return np.asarray(c * s[:, :, None], np.float32)


def brightness(small: Image) -> float:
    """Median brightness sum (0..765) of a small frame."""
    return float(np.median(small[::4, ::4].reshape(-1, 3).sum(1)))


def saturated_fraction(small: Image) -> float:
    """Fraction of pixels blown out to near white (glare)."""
    return float((small[::2, ::2].min(2) > 235).mean())
