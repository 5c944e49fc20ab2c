"""The reader's speed-ups compute the very pixels and verdicts of the plain formulas they replace."""

from __future__ import annotations

import cv2
import numpy as np

from vision.change import RegionChanges
from vision.light import normalise
from vision.warp import apply, bbox, extract, translate


def _plain_extract(frame: np.ndarray, H: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The extraction before the maps were kept: warpPerspective of the region's bounding box."""
    w, h = size
    box = bbox(apply(H, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)), frame.shape, margin=3)
    assert box is not None
    x0, y0, x1, y1 = box
    return np.asarray(cv2.warpPerspective(frame[y0:y1, x0:x1], translate(-x0, -y0) @ H, size,
                                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REPLICATE), np.uint8)


def test_cached_sampling_maps_give_the_pixels_warp_perspective_gives() -> None:
    rng = np.random.default_rng(3)
    frame = rng.integers(0, 256, (400, 500, 3), dtype=np.uint8)
    for k in range(4):
        H = translate(100 + 40 * k, 80 + 30 * k) @ np.array(
            [[0.7 + 0.1 * rng.random(), 0.05 * rng.random(), 0.0], [-0.04 * rng.random(), 0.8, 0.0],
             [1e-4 * rng.random(), 2e-4 * rng.random(), 1.0]])
        size = (60 + 10 * k, 50 + 5 * k)
        want = _plain_extract(frame, H, size)
        assert np.array_equal(extract(frame, H, size), want)  # first sight: warpPerspective itself
        assert np.array_equal(extract(frame, H, size), want)  # second: the map is kept
        got = extract(frame, H, size).astype(np.int16)  # third: read through the map
        # OpenCV's own coordinate arithmetic may round a pixel's source differently under perspective
        # much stronger than a table's (1e-4 here): one grey level at most, on a handful of pixels
        assert int(np.abs(got - want).max()) <= 1
        assert float((got != want).mean()) < 0.005


def _plain_normalise(patch: np.ndarray, gains: np.ndarray, model: np.ndarray | None) -> np.ndarray:
    out = patch.astype(np.float32) * (1.0 / gains)
    if model is not None and bool((gains > 1.02).any()):
        fix = (patch >= 235) & (model * gains >= 245)
        out[fix] = model[fix]
    return np.asarray(np.clip(out, 0, 255), np.uint8)


def test_light_lookup_table_equals_the_per_pixel_division() -> None:
    rng = np.random.default_rng(4)
    for gains in ([1.3, 0.9, 1.1], [0.6, 0.7, 0.8], [1.5, 1.5, 1.04]):
        g = np.asarray(gains, np.float32)
        patch = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
        model = rng.uniform(0, 255, (40, 50, 3)).astype(np.float32)
        assert np.array_equal(normalise(patch, g, model), _plain_normalise(patch, g, model))
        assert np.array_equal(normalise(patch, g), _plain_normalise(patch, g, None))
    same = rng.integers(0, 256, (10, 10, 3), dtype=np.uint8)
    assert normalise(same, np.asarray([1.01, 0.99, 1.0], np.float32)) is same


def test_region_change_test_ignores_noise_and_shading_but_sees_an_object() -> None:
    rng = np.random.default_rng(5)
    small = rng.integers(60, 200, (120, 160, 3), dtype=np.uint8)
    ch = RegionChanges({"a": (10, 10, 40, 40), "b": (80, 50, 130, 100)})
    assert ch.changed(small, set()) == {"a", "b"}  # never read yet
    ch.keep(small, "a")
    ch.keep(small, "b")
    noisy = np.clip(small.astype(np.int16) + rng.integers(-2, 3, small.shape), 0, 255).astype(np.uint8)
    assert ch.changed(noisy, set()) == set()
    dimmer = (small.astype(np.float32) * 0.8).astype(np.uint8)  # a passing shadow over everything
    assert ch.changed(dimmer, set()) == set()
    covered = small.copy()
    covered[85:100, 90:120] = (20, 20, 230)
    assert ch.changed(covered, set()) == {"b"}
    assert ch.changed(small, {"a"}) == {"a"}
    ch.forget()
    assert ch.changed(small, set()) == {"a", "b"}
