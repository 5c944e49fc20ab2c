"""The pose follows the table: a cheap check that the camera and the mat are still where the calibration
says, and a re-pose when they are not.

At calibration time, textured patches of the empty table are chosen where nothing is ever put (the mat
around the slots and the map, the map's surface between stands) and kept from a reference frame. A check
phase-correlates each patch that is free now (not under a hand, a card or a piece: the caller's
``busy`` mask) with the same pixels of the current frame. All shifts within the tolerance: the pose holds.
Otherwise the shifted patch centres are new 2D positions of known world points, and the pose is solved
again with the camera's own intrinsics (RANSAC PnP); a bump too large for the patches falls back to
matching the whole design (``estimate_pose``). When neither gives a plausible pose the check says the
camera is lost, so the tracker can report "board unreadable: camera moved" and take no move from the frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraPose, to_cv
from calibration.errors import CalibrationError
from calibration.layout import TableLayout
from calibration.mat_pose import Artwork, estimate_pose
from calibration.plausibility import check_pose
from calibration.procedure import drift_px

FloatArray = NDArray[np.float64]
PATCH = 96
MIN_PATCHES = 6
MIN_RESPONSE = 0.15
QUICK_PATCHES = 4
GLANCE = 8  # the quick look's whole-image correlation works at 1/8 of the resolution
MIN_GLANCE_RESPONSE = 0.2  # a peak this clear is one shift of most of the image; below, the patches vote


@dataclass(frozen=True)
class PoseCheck:
    """Outcome of one check: ``status`` is "ok" (pose holds), "reposed" (``pose`` is the new one) or "lost"
    (no pose could be found: the board cannot be read); ``moved_px`` is how far the table moved in the
    image (the largest shift of a stand or slot corner between the old and the new pose, or the patches'
    typical shift when no new pose was found); ``patches`` how many patches were compared."""

    status: str
    moved_px: float
    pose: CameraPose
    patches: int
    detail: str = ""


def _gray(img: NDArray[np.uint8]) -> NDArray[np.float32]:
    g = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    return np.asarray(g, np.float32)


def _candidates(layout: TableLayout, surface_z_mm: float) -> FloatArray:
    """World points on a 15 mm grid where nothing is put: the mat outside the slots and the map, and the
    map's surface away from the stands."""
    w, h = layout.mat_size_mm
    ox, oy = layout.map_origin_mm
    mw, mh = layout.map_size_mm
    pts: list[tuple[float, float, float]] = []
    for x in np.arange(10.0, w - 10.0, 15.0):
        for y in np.arange(10.0, h - 10.0, 15.0):
            on_map = ox - 5 <= x <= ox + mw + 5 and oy - 5 <= y <= oy + mh + 5
            if on_map:
                near = any(np.hypot(x - sx, y - sy) < 22.0 for sx, sy, _ in
                           (layout.stand_world(s.id) for s in layout.stands))
                inside = ox + 6 <= x <= ox + mw - 6 and oy + 6 <= y <= oy + mh - 6
                if inside and not near:
                    pts.append((float(x), float(y), surface_z_mm))
                continue
            if any(r[0] - 8 <= x <= r[2] + 8 and r[1] - 8 <= y <= r[3] + 8 for r in (s.rect_mm for s in layout.slots)):
                continue
            pts.append((float(x), float(y), 0.0))
    return np.asarray(pts, np.float64)


def _glance(img: NDArray[np.uint8], lores: NDArray[np.uint8] | None = None) -> NDArray[np.float32]:
    """A grey copy at 1/GLANCE resolution, averaged so that noise and fine texture cancel out: a bilinear
    quarter (each pixel the mean of 2x2 of its 4x4 block), then 2x2 means (an area resize by a whole factor;
    by 8.02 for 2028 px it would take 30x longer). ``lores``, the camera's low-resolution stream of the same
    view (already averaged by the ISP's scaler), is halved bilinearly instead (each pixel the mean of 2x2),
    so the full image is not touched; a lores of another view (``_same_view``) is not used."""
    h, w = img.shape[:2]
    size = (w // GLANCE, h // GLANCE)
    if lores is not None and _same_view(img, lores):
        small = cv2.resize(lores, size, interpolation=cv2.INTER_LINEAR)
    else:
        quarter = cv2.resize(img, (w // 4, h // 4), interpolation=cv2.INTER_LINEAR)
        n = GLANCE // 4
        small = cv2.resize(quarter[:(h // GLANCE) * n, :(w // GLANCE) * n], size, interpolation=cv2.INTER_AREA)
    fh, fw = _dft_size(small.shape[0]), _dft_size(small.shape[1])  # 253 px would make the DFT 5x slower
    y, x = (small.shape[0] - fh) // 2, (small.shape[1] - fw) // 2
    return _gray(np.asarray(small[y:y + fh, x:x + fw], np.uint8))


def _same_view(img: NDArray[np.uint8], lores: NDArray[np.uint8]) -> bool:
    """Whether ``lores`` can be the camera's low-resolution stream of ``img``: the same channels, the same
    aspect ratio (up to the ISP's even-size rounding, e.g. 508x380 beside 2028x1520) and at least 1/GLANCE
    of its size."""
    h, w = img.shape[:2]
    lh, lw = lores.shape[:2]
    return (lores.ndim == img.ndim and lores.shape[2:] == img.shape[2:] and lw >= w // GLANCE
            and lh >= h // GLANCE and abs(lw * h - lh * w) <= max(w, h) * 2)


def _dft_size(n: int) -> int:
    """The largest length up to ``n`` whose DFT is fast (a product of 2, 3 and 5)."""
    while cv2.getOptimalDFTSize(n) != n:
        n -= 1
    return n


class PoseTracker:
    """Keeps a calibration honest during play (see the module docstring). ``reference`` is a frame of the
    table in ``pose`` (empty where the patches lie); ``arts`` the designs for the fallback re-pose."""

    def __init__(self, layout: TableLayout, pose: CameraPose, reference: NDArray[np.uint8], arts: list[Artwork],
                 tolerance_px: float = 3.0, surface_z_mm: float = 4.0, max_patches: int = 40) -> None:
        self.layout, self.arts, self.tolerance = layout, arts, tolerance_px
        self.surface_z, self.max_patches = surface_z_mm, max_patches
        self._adopt(pose, reference)

    def _adopt(self, pose: CameraPose, reference: NDArray[np.uint8]) -> None:
        self.pose = pose
        self.reference = _gray(reference)
        h, w = self.reference.shape
        world = _candidates(self.layout, self.surface_z)
        px = pose.project(world)
        half = PATCH // 2
        inside = (px[:, 0] >= half) & (px[:, 0] < w - half) & (px[:, 1] >= half) & (px[:, 1] < h - half)
        world, px = world[inside], px[inside]
        score = np.array([float(self._patch(self.reference, p).std()) for p in px]) if len(px) else np.zeros(0)
        order = np.argsort(-score)
        chosen: list[int] = []
        for i in order:  # the most textured patches, at least a patch apart from each other
            if score[i] < 8.0 or len(chosen) >= self.max_patches:
                break
            if all(np.hypot(*(px[i] - px[j])) >= PATCH for j in chosen):
                chosen.append(int(i))
        self.world, self.pixels = world[chosen], px[chosen]
        self.glance = _glance(reference)
        self._glance_window = cv2.createHanningWindow(self.glance.shape[::-1], cv2.CV_32F)

    @staticmethod
    def _patch(img: NDArray[np.float32], centre: FloatArray) -> NDArray[np.float32]:
        x, y = round(float(centre[0])), round(float(centre[1]))
        half = PATCH // 2
        return img[y - half:y + half, x - half:x + half]

    def moved(self, frame: NDArray[np.uint8], n: int = QUICK_PATCHES, lores: NDArray[np.uint8] | None = None) -> bool:
        """A quick test fit for every frame (a few ms): did the image shift by more than the tolerance?

        A knock of a degree moves the view by tens of pixels, beyond what a 96 px patch can correlate, so
        the whole view is phase-correlated at 1/8 resolution first: one clear peak away from zero is a
        moved camera (hands, noise and light leave the static table's peak at zero; a change of gain or
        white balance does not move a phase peak). Only when no clear peak is found (most of the view
        covered) do the most textured patches vote; patches that do not correlate do not count. ``lores``:
        the camera's low-resolution stream of ``frame`` (``Frame.lores``); the look then costs about a
        millisecond instead of a resize of the whole frame."""
        view = _glance(frame, lores)
        if view.shape == self.glance.shape:
            (dx, dy), response = cv2.phaseCorrelate(self.glance, view, self._glance_window)
            if response >= MIN_GLANCE_RESPONSE:
                return GLANCE * float(np.hypot(dx, dy)) > max(self.tolerance, GLANCE / 2)
        win = cv2.createHanningWindow((PATCH, PATCH), cv2.CV_32F)
        shifts = []
        for p in self.pixels[:n]:
            x, y, half = round(float(p[0])), round(float(p[1])), PATCH // 2
            cur = frame[y - half:y + half, x - half:x + half]
            if cur.shape[:2] != (PATCH, PATCH):
                continue
            (dx, dy), response = cv2.phaseCorrelate(self._patch(self.reference, p), _gray(cur), win)
            if response >= MIN_RESPONSE:
                shifts.append(float(np.hypot(dx, dy)))
        return len(shifts) >= 3 and float(np.median(shifts)) > self.tolerance

    def check(self, frame: NDArray[np.uint8], busy: NDArray[np.bool_] | None = None) -> PoseCheck:
        """Compare ``frame`` with the reference on the free patches; re-pose when the table moved. A new
        pose becomes the tracker's pose and ``frame`` its reference."""
        cur = _gray(frame)
        if cur.shape != self.reference.shape:
            raise CalibrationError(f"pose check: frame is {cur.shape[1]}x{cur.shape[0]}, the reference "
                                   f"{self.reference.shape[1]}x{self.reference.shape[0]}")
        win = cv2.createHanningWindow((PATCH, PATCH), cv2.CV_32F)
        shifts, worlds, used = [], [], 0
        for wpt, p in zip(self.world, self.pixels, strict=True):
            x, y, half = round(float(p[0])), round(float(p[1])), PATCH // 2
            if busy is not None and busy[max(0, y - half):y + half, max(0, x - half):x + half].any():
                continue
            used += 1
            (dx, dy), response = cv2.phaseCorrelate(self._patch(self.reference, p), self._patch(cur, p), win)
            if response >= MIN_RESPONSE:
                shifts.append((dx, dy))
                worlds.append(wpt)
        if len(shifts) >= MIN_PATCHES:
            s = np.asarray(shifts, np.float64)
            typical = float(np.percentile(np.linalg.norm(s, axis=1), 75))
            if typical <= self.tolerance and used - len(shifts) <= used // 2:
                return PoseCheck("ok", typical, self.pose, used)
            moved = self._from_patches(np.asarray(worlds), s, cur)
            if moved is not None:
                return self._accept(moved, frame, used, "from the table's patches")
        else:
            typical = float("inf")
        try:
            est = estimate_pose(frame, self.arts, self.pose.K, self.pose.dist)
            check_pose(est.pose, self.arts[0].name, self.arts[0].outline(), self.arts[0].z_mm, est.image_points,
                       est.reprojection_error_px)
        except (CalibrationError, cv2.error) as exc:
            detail = str(exc) if isinstance(exc, CalibrationError) else f"OpenCV: {exc.err}"
            return PoseCheck("lost", typical, self.pose, used, detail)
        if drift_px(self.pose, est.pose, self.layout) <= self.tolerance:
            return PoseCheck("ok", 0.0, self.pose, used, "the patches changed but the design has not moved")
        return self._accept(est.pose, frame, used, "from the whole design")

    def _from_patches(self, world: FloatArray, shifts: FloatArray, cur: NDArray[np.float32]) -> CameraPose | None:
        seen = self.pose.project(world) + shifts
        pose = self._solve(world, seen)
        if pose is None:
            return None
        # the shifts of a large bump are rough: measure again around where the new pose puts each patch
        win = cv2.createHanningWindow((PATCH, PATCH), cv2.CV_32F)
        h, w = cur.shape
        half = PATCH // 2
        old = self.pose.project(world)
        pred = np.round(pose.project(world))
        keep = (pred[:, 0] >= half) & (pred[:, 0] < w - half) & (pred[:, 1] >= half) & (pred[:, 1] < h - half)
        again = []
        for o, q in zip(old[keep], pred[keep], strict=True):
            (dx, dy), _ = cv2.phaseCorrelate(self._patch(self.reference, o), self._patch(cur, q), win)
            again.append(q + (dx, dy) + (o - np.round(o)))
        if int(keep.sum()) < MIN_PATCHES:
            return pose
        return self._solve(world[keep], np.asarray(again, np.float64), pose) or pose

    def _solve(self, world: FloatArray, seen: FloatArray, start: CameraPose | None = None) -> CameraPose | None:
        p = self.pose
        s = start or p
        try:
            ok, rvec, tvec, inl = cv2.solvePnPRansac(to_cv(world), seen, p.K, p.dist, s.rvec.copy(), s.tvec.copy(),
                                                     useExtrinsicGuess=True, reprojectionError=2.0,
                                                     flags=cv2.SOLVEPNP_ITERATIVE)
        except cv2.error:
            return None
        if not ok or inl is None or len(inl) < MIN_PATCHES or len(inl) < 0.6 * len(world):
            return None
        idx = inl.ravel()
        rvec, tvec = cv2.solvePnPRefineLM(to_cv(world[idx]), seen[idx], p.K, p.dist, rvec, tvec)
        return CameraPose(p.K, p.dist, np.asarray(rvec, np.float64), np.asarray(tvec, np.float64), p.image_size)

    def _accept(self, pose: CameraPose, frame: NDArray[np.uint8], used: int, how: str) -> PoseCheck:
        moved = drift_px(self.pose, pose, self.layout)
        self._adopt(pose, frame)
        return PoseCheck("reposed", moved, pose, used, how)


def moved_reference(reference: NDArray[np.uint8], old: CameraPose, new: CameraPose) -> NDArray[np.uint8]:
    """A reference frame of the empty table taken with ``old``, as ``new`` would see it (warped by the mat
    plane's homography; the map's few millimetres of height shift by a fraction of the move)."""
    H = new.plane_homography(0.0) @ np.linalg.inv(old.plane_homography(0.0))
    size = (reference.shape[1], reference.shape[0])
    return np.asarray(cv2.warpPerspective(reference, H, size, flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE), np.uint8)
