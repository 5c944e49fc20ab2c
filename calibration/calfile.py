"""The calibration file: one camera's intrinsics and pose over the mat, with how well it fits.

JSON, format ``kipukas-calibration/1``; every problem on load names the file and the key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import CameraPose
from calibration.errors import CalibrationFileError

FORMAT = "kipukas-calibration/1"
METHODS = ("artwork", "stickers", "manual")


@dataclass(frozen=True)
class Calibration:
    pose: CameraPose
    method: str
    reprojection_error_px: float
    inliers: int
    intrinsics: str = "given"
    intrinsics_std: dict[str, float] = field(default_factory=dict)

    def intrinsics_summary(self) -> dict[str, Any]:
        """Which intrinsics were used and how well determined: focal length (px) with one standard deviation,
        and principal point / k1 when they were fitted."""
        K, d = self.pose.K, np.asarray(self.pose.dist, float).reshape(-1)
        out: dict[str, Any] = {"source": self.intrinsics, "focal_px": round(float(K[0, 0]), 1)}
        std = self.intrinsics_std
        if "f" in std:
            out["focal_std_px"] = round(std["f"], 1)
        if self.intrinsics == "nominal":
            out["focal_std_px"] = None
            out["focal_note"] = ("not determined by this view (a flat design seen straight down): the Pi HQ "
                                 "camera's 6 mm lens is assumed; keep the map in view or give --charuco photos")
        if std.get("f_bound", 0.0) > 0:
            out["focal_std_px"] = None
            out["focal_note"] = ("not determined, at least this long: the view is nearly orthographic (a far "
                                 "camera or a long lens); the pose puts the camera at the farthest plausible distance")
        if "cx" in std:
            out["principal_point_px"] = [round(float(K[0, 2]), 1), round(float(K[1, 2]), 1)]
            out["principal_point_std_px"] = [round(std["cx"], 1), round(std.get("cy", 0.0), 1)]
        if "k1" in std:
            out["k1"] = round(float(d[0]), 4)
            out["k1_std"] = round(std["k1"], 4)
        return out

    def to_json(self) -> dict[str, Any]:
        p = self.pose
        return {
            "format": FORMAT,
            "image_size": list(p.image_size),
            "K": np.asarray(p.K, float).round(6).tolist(),
            "dist": np.asarray(p.dist, float).reshape(-1).round(8).tolist(),
            "rvec": np.asarray(p.rvec, float).reshape(-1).round(8).tolist(),
            "tvec": np.asarray(p.tvec, float).reshape(-1).round(5).tolist(),
            "method": self.method,
            "reprojection_error_px": round(self.reprojection_error_px, 4),
            "inliers": self.inliers,
            "intrinsics": self.intrinsics_summary(),
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")


def _matrix(source: str, key: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationFileError(source, key, f"expected numbers of shape {shape}") from None
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        raise CalibrationFileError(source, key, f"expected finite numbers of shape {shape}, got {arr.shape}")
    return arr


def parse_calibration(source: str, data: Any) -> Calibration:
    if not isinstance(data, dict):
        raise CalibrationFileError(source, "<top>", "expected an object")
    if data.get("format") != FORMAT:
        raise CalibrationFileError(source, "format", f"expected {FORMAT!r}, got {data.get('format')!r}")
    size = data.get("image_size")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)):
        raise CalibrationFileError(source, "image_size", f"expected two positive whole numbers, got {size!r}")
    K = _matrix(source, "K", data.get("K"), (3, 3))
    if K[0, 0] <= 0 or K[1, 1] <= 0 or K[2, 2] != 1.0:
        raise CalibrationFileError(source, "K", "expected positive focal lengths and K[2][2] = 1")
    dist_raw = data.get("dist")
    if not isinstance(dist_raw, list) or len(dist_raw) not in (4, 5, 8, 12, 14):
        raise CalibrationFileError(source, "dist", "expected 4, 5, 8, 12 or 14 distortion coefficients")
    dist = _matrix(source, "dist", dist_raw, (len(dist_raw),))
    rvec = _matrix(source, "rvec", data.get("rvec"), (3,)).reshape(3, 1)
    tvec = _matrix(source, "tvec", data.get("tvec"), (3,)).reshape(3, 1)
    method = data.get("method")
    if method not in METHODS:
        raise CalibrationFileError(source, "method", f"expected one of {', '.join(METHODS)}, got {method!r}")
    err = data.get("reprojection_error_px")
    if not isinstance(err, int | float) or isinstance(err, bool) or err < 0:
        raise CalibrationFileError(source, "reprojection_error_px", f"expected a number >= 0, got {err!r}")
    inliers = data.get("inliers", 0)
    if not isinstance(inliers, int) or inliers < 0:
        raise CalibrationFileError(source, "inliers", f"expected a whole number >= 0, got {inliers!r}")
    pose = CameraPose(K, dist, rvec, tvec, (size[0], size[1]))
    intr = data.get("intrinsics", {"source": "given"})
    if not isinstance(intr, dict) or intr.get("source") not in ("given", "fitted", "nominal"):
        raise CalibrationFileError(source, "intrinsics.source",
                                   f"expected 'given', 'fitted' or 'nominal', got {intr!r}")
    return Calibration(pose, str(method), float(err), inliers, str(intr["source"]))


def load_calibration(path: str | Path) -> Calibration:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationFileError(source, "<file>", exc.strerror or "cannot be read") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationFileError(source, f"line {exc.lineno}", f"not JSON: {exc.msg}") from None
    return parse_calibration(source, data)
