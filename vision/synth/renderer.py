"""A synthetic overhead camera: realistic frames of any table state, for tests, the bench and the demo.

The empty table (the real mat image, the real map texture lifted to the map's surface height, every stand
cut out of the texture and raised to its own height) is built once per renderer; each ``render`` then adds
the pieces, cards and hands of a scene and the camera's imperfections (uneven light, sensor noise, blur,
JPEG). Everything random comes from ``seed``.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose
from calibration.layout import MAP_SURFACE_Z_MM, StandSpec, TableLayout
from calibration.stickers import STICKER_MM, sticker_centres, sticker_image
from vision.assets import asset
from vision.synth.cards import draw_cards
from vision.synth.clutter import draw_clutter
from vision.synth.hands import draw_hand
from vision.synth.light import glare_spots, hard_shadow, light_colour_gain
from vision.synth.scene import RenderTruth, TableScene
from vision.synth.tokens import draw_piece, draw_shadow
from vision.warp import Image, Mat3, apply, paste, rotate, scale, translate

STARTER_TEXTURE: tuple[str, tuple[tuple[float, float], ...]] = (
    "map_top.jpeg", ((127.0, 29.0), (660.0, 29.0), (660.0, 563.0), (127.0, 563.0)))
TABLE_BGR = (58, 84, 118)


class Renderer:
    """Renders ``TableScene``s as seen by ``pose``; ``palette`` maps owners to BGR colours."""

    def __init__(self, layout: TableLayout, pose: CameraPose, palette: dict[str, tuple[int, int, int]],
                 map_texture: tuple[str, Sequence[Sequence[float]]] | None = None, stickers: bool = False) -> None:
        self.layout = layout
        self.stickers = stickers
        self.pose = pose
        self.palette = dict(palette)
        name, corners = map_texture if map_texture is not None else STARTER_TEXTURE
        self.texture = asset(name)
        src = np.asarray(corners, dtype=np.float32).reshape(4, 2)
        mw, mh = layout.map_size_mm
        dst = np.array([[0, 0], [mw, 0], [mw, mh], [0, mh]], dtype=np.float32)
        self.tex_to_map: Mat3 = np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)
        self.px_per_mm = float(pose.K[0, 0]) / max(1.0, float(pose.centre_world()[2]))
        self._base: Image | None = None

    # -- geometry helpers -------------------------------------------------------------------------
    def plane(self, z_mm: float) -> Mat3:
        return self.pose.plane_homography(z_mm)

    def project(self, pts: NDArray[np.float64]) -> NDArray[np.float64]:
        return self.pose.project(pts)

    def _map_plane(self, z_mm: float) -> Mat3:
        ox, oy = self.layout.map_origin_mm
        return self.plane(z_mm) @ translate(ox, oy)

    # -- the empty table ---------------------------------------------------------------------------
    def base(self) -> Image:
        """The empty table without camera effects (cached)."""
        if self._base is None:
            self._base = self._build_base()
        return self._base.copy()

    def _build_base(self) -> Image:
        w, h = self.pose.image_size
        frame = np.empty((h, w, 3), dtype=np.uint8)
        frame[:] = TABLE_BGR
        mat = asset(self.layout.mat_image)
        mw, mh = self.layout.mat_size_mm
        to_mm = scale(mw / mat.shape[1], mh / mat.shape[0])
        paste(frame, mat, np.ones(mat.shape[:2], np.float32), self.plane(0.0) @ to_mm)
        if self.stickers:
            self._draw_stickers(frame)
        # the map: its base plate's side walls, then the textured top at the surface height
        mw_, mh_ = self.layout.map_size_mm
        rim = np.array([[-3, -3], [mw_ + 3, -3], [mw_ + 3, mh_ + 3], [-3, mh_ + 3]], dtype=np.float64)
        rim += self.layout.map_origin_mm
        pts = np.vstack([np.column_stack([rim, np.zeros(4)]), np.column_stack([rim, np.full(4, MAP_SURFACE_Z_MM)])])
        hull = cv2.convexHull(np.round(self.project(pts) * 16).astype(np.int32))
        cv2.fillConvexPoly(frame, hull, (45, 45, 48), cv2.LINE_AA, shift=4)
        tex = self.texture
        inv = np.asarray(np.linalg.inv(self.tex_to_map), np.float64)
        frame_px = apply(inv, rim - np.array(self.layout.map_origin_mm))
        x0, y0 = np.floor(frame_px.min(0)).astype(int)
        x1, y1 = np.ceil(frame_px.max(0)).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, tex.shape[1]), min(y1, tex.shape[0])
        crop = np.ascontiguousarray(tex[y0:y1, x0:x1])
        H = self._map_plane(MAP_SURFACE_Z_MM) @ self.tex_to_map @ translate(x0, y0)
        paste(frame, crop, np.ones(crop.shape[:2], np.float32), H)
        for s in self.layout.stands:
            self._draw_stand(frame, s)
        return frame

    def _draw_stickers(self, frame: Image) -> None:
        """The four ArUco corner stickers of ``calibration.stickers``, printed on white."""
        for mid, (x, y) in sticker_centres(self.layout.mat_size_mm).items():
            img = np.asarray(cv2.cvtColor(sticker_image(mid), cv2.COLOR_GRAY2BGR), np.uint8)
            k = STICKER_MM / img.shape[1]
            H = self.plane(0.1) @ translate(x - STICKER_MM / 2, y - STICKER_MM / 2) @ scale(k)
            paste(frame, img, np.ones(img.shape[:2], np.float32), H)

    def stand_outline(self, s: StandSpec, grow_mm: float = 0.0, n: int = 28) -> NDArray[np.float64]:
        """The stand's top outline in the map frame (mm)."""
        x, y, _ = s.pos_mm
        if s.kind == "territory":
            hw, hh = s.size_mm[0] / 2 + grow_mm, s.size_mm[1] / 2 + grow_mm
            pts = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]], dtype=np.float64)
        else:
            r = s.size_mm[0] / 2 + grow_mm
            a = np.linspace(0, 2 * np.pi, n, endpoint=False)
            pts = np.column_stack([r * np.cos(a), r * np.sin(a)])
        return np.asarray(pts @ rotate(s.angle_deg)[:2, :2].T + (x, y), dtype=np.float64)

    def _draw_stand(self, frame: Image, s: StandSpec) -> None:
        """Cut the stand's top out of the texture and raise it to its height, with its column below."""
        outline = self.stand_outline(s)
        z = s.pos_mm[2]
        ox, oy = self.layout.map_origin_mm
        world = outline + np.array([ox, oy])
        pts = np.vstack([np.column_stack([world, np.full(len(world), MAP_SURFACE_Z_MM)]),
                         np.column_stack([world, np.full(len(world), z)])])
        tex_pts = apply(np.asarray(np.linalg.inv(self.tex_to_map), np.float64), outline)
        x0, y0 = np.floor(tex_pts.min(0)).astype(int) - 2
        x1, y1 = np.ceil(tex_pts.max(0)).astype(int) + 2
        x0, y0 = max(x0, 0), max(y0, 0)
        crop = np.ascontiguousarray(self.texture[y0:y1, x0:x1])
        if crop.size == 0:
            return
        side = tuple(int(c * 0.6) for c in crop.reshape(-1, 3).mean(0))
        hull = cv2.convexHull(np.round(self.project(pts) * 16).astype(np.int32))
        cv2.fillConvexPoly(frame, hull, side, cv2.LINE_AA, shift=4)
        alpha = np.zeros(crop.shape[:2], dtype=np.float32)
        cv2.fillPoly(alpha, [np.round((tex_pts - (x0, y0)) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
        paste(frame, crop, alpha, self._map_plane(z) @ self.tex_to_map @ translate(x0, y0))

    # -- scenes ------------------------------------------------------------------------------------
    def render(self, scene: TableScene, seed: int = 0, lighting: float = 1.0, noise: float = 1.0,
               blur: float = 0.0, jpeg_quality: int | None = 90) -> Image:
        """One camera frame of ``scene`` (BGR uint8, ``pose.image_size``)."""
        return self.render_with_truth(scene, seed, lighting, noise, blur, jpeg_quality)[0]

    def render_with_truth(self, scene: TableScene, seed: int = 0, lighting: float = 1.0, noise: float = 1.0,
                          blur: float = 0.0, jpeg_quality: int | None = 90) -> tuple[Image, RenderTruth]:
        """``render`` plus the ground truth of which regions the hands cover."""
        clean, truth = self.compose(scene, seed)
        return self.finish(clean, seed, lighting, noise, blur, jpeg_quality), truth

    def compose(self, scene: TableScene, seed: int = 0) -> tuple[Image, RenderTruth]:
        """The scene before the camera's imperfections (``finish`` adds them): lets a benchmark vary light
        and noise over one composed table without drawing it again."""
        rng = np.random.default_rng(seed)
        frame = self.base()
        self._draw_tokens(frame, scene, rng)
        if scene.slots:
            draw_cards(self.layout, self.plane, frame, scene.slots, rng)
        hand_mask = np.zeros(frame.shape[:2], dtype=np.uint8)
        for item in scene.clutter:
            draw_clutter(frame, hand_mask, self.project, item, rng)
        for _ in range(scene.hands):
            draw_hand(frame, hand_mask, rng, self._hand_target(rng), self.px_per_mm)
        return frame, RenderTruth(self._occlusion(hand_mask), hand_mask)

    def finish(self, clean: Image, seed: int = 0, lighting: float = 1.0, noise: float = 1.0, blur: float = 0.0,
               jpeg_quality: int | None = 90, kelvin: float | None = None, shadow: float = 0.0,
               glare: int = 0, light_angle: float | None = None) -> Image:
        """Uneven light, blur, sensor noise and JPEG over a composed frame; optionally a lamp of colour
        ``kelvin``, a hard shadow darkening by ``shadow`` (0..1) and ``glare`` specular spots.
        ``light_angle`` (radians) fixes the direction of the light's gradient, which otherwise ``seed``
        draws: frames of one room under one lamp (the demo) keep it while their noise differs."""
        rng = np.random.default_rng([seed, 1])
        room = np.random.default_rng([seed, 2])
        f = clean.astype(np.float32)
        if kelvin is not None:
            f *= light_colour_gain(kelvin)
        if shadow > 0:
            hard_shadow(f, room, shadow)
        if glare > 0:
            glare_spots(f, room, glare, self.px_per_mm)
        # the sensor clips once, after the lens's vignetting: the light stays unclipped until then
        return self._camera_effects(f, rng, lighting, noise, blur, jpeg_quality, light_angle)

    def _draw_tokens(self, frame: Image, scene: TableScene, rng: np.random.Generator) -> None:
        for sid in sorted(scene.tokens):
            tok = scene.tokens[sid]
            if tok.owner not in self.palette:
                raise KeyError(f"token on {sid}: owner {tok.owner!r} has no colour in the palette")
            colour = self.palette[tok.owner]
            spec = self.layout.stand(sid)
            x, y, z = self.layout.stand_world(sid)
            x += rng.uniform(-1.2, 1.2)
            y += rng.uniform(-1.2, 1.2)
            angle = spec.angle_deg + rng.uniform(-8.0, 8.0) if tok.kind != "soul" else rng.uniform(0, 360)
            draw_shadow(frame, self.project, tok.kind, (x, y, z), (1.5, 1.5), 0.35)
            top = z
            for _ in range(max(1, tok.count) if tok.kind == "soul" else 1):
                top = draw_piece(frame, self.project, self.plane, tok.kind, colour, (x, y, top), angle, tok.flipped)
                x += rng.uniform(-0.6, 0.6)
                y += rng.uniform(-0.6, 0.6)

    def _hand_target(self, rng: np.random.Generator) -> tuple[float, float]:
        ids = [s.id for s in self.layout.stands]
        slots = [s for s in self.layout.slots]
        if ids and (not slots or rng.random() < 0.6):
            p = self.layout.stand_world(ids[int(rng.integers(len(ids)))])
        else:
            cx, cy = slots[int(rng.integers(len(slots)))].centre_mm
            p = (cx, cy, 0.0)
        q = self.project(np.array([p], dtype=np.float64))[0]
        return (float(q[0]), float(q[1]))

    def region_polygon(self, region_id: str) -> NDArray[np.float64]:
        """Pixel polygon of a stand's top or a slot's rectangle."""
        for s in self.layout.stands:
            if s.id == region_id:
                out = self.stand_outline(s) + self.layout.map_origin_mm
                return self.project(np.column_stack([out, np.full(len(out), s.pos_mm[2])]))
        x0, y0, x1, y1 = self.layout.slot(region_id).rect_mm
        return self.project(np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], dtype=np.float64))

    def _occlusion(self, hand_mask: NDArray[np.uint8]) -> dict[str, float]:
        out: dict[str, float] = {}
        ids = [s.id for s in self.layout.stands] + [s.id for s in self.layout.slots]
        any_hand = bool(hand_mask.any())
        for rid in ids:
            if not any_hand:
                out[rid] = 0.0
                continue
            poly = np.round(self.region_polygon(rid)).astype(np.int32)
            x0, y0 = np.maximum(poly.min(0), 0)
            x1, y1 = np.minimum(poly.max(0) + 1, (hand_mask.shape[1], hand_mask.shape[0]))
            if x1 <= x0 or y1 <= y0:
                out[rid] = 0.0
                continue
            m = np.zeros((y1 - y0, x1 - x0), dtype=np.uint8)
            cv2.fillPoly(m, [poly - (x0, y0)], 255)
            inside = m > 0
            out[rid] = float((hand_mask[y0:y1, x0:x1][inside] > 0).mean()) if inside.any() else 0.0
        return out

    def _camera_effects(self, frame: NDArray[np.float32] | Image, rng: np.random.Generator, lighting: float,
                        noise: float, blur: float, jpeg_quality: int | None,
                        light_angle: float | None = None) -> Image:
        h, w = frame.shape[:2]
        ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
        a = rng.uniform(0, 2 * np.pi)  # drawn either way: the noise that follows is the same
        if light_angle is not None:
            a = light_angle
        grad = 1.0 + 0.18 * lighting * ((xs / w - 0.5) * np.cos(a) + (ys / h - 0.5) * np.sin(a))
        r2 = ((xs / w - 0.5) ** 2 + (ys / h - 0.5) ** 2) / 0.5
        gain = (lighting * grad * (1.0 - 0.25 * r2)).astype(np.float32)
        gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
        f = frame.astype(np.float32) * gain[:, :, None]
        if blur > 0:
            f = cv2.GaussianBlur(f, (0, 0), blur)
        if noise > 0:
            sigma = noise * (1.5 + 0.012 * f)
            f += rng.standard_normal(f.shape, dtype=np.float32) * sigma
        out = np.clip(f, 0, 255).astype(np.uint8)
        if jpeg_quality is not None:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
            if ok:
                out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return np.asarray(out, dtype=np.uint8)
