"""The table's geometry in millimetres: the mat, its card slots, and the 3D map's stands on it.

The world frame is the mat frame: origin at the mat's top-left corner as seen from above (the edge beyond
slots 6/5/4), x to the right, y down, z up from the mat surface. The map frame is the same orientation with
its origin at the board's top-left corner; the map lies centred on the mat's outlined square.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from calibration.errors import CalibrationFileError

STAND_KINDS = ("territory", "movement")
MAP_SURFACE_Z_MM = 4.0  # the map's painted surface above the mat: its base plate is 4 mm thick


@dataclass(frozen=True)
class StandSpec:
    """One stand of the map: a square territory stand or a round movement stand, in the map frame."""

    id: str
    kind: str
    pos_mm: tuple[float, float, float]
    size_mm: tuple[float, float]
    angle_deg: float


@dataclass(frozen=True)
class SlotSpec:
    """One card slot of the mat: bounding rectangle (x0, y0, x1, y1) in the mat frame, in mm.

    ``up_deg`` is where the top of a card placed in the slot points, clockwise from the mat's top edge
    (0: towards y = 0, 90: towards +x), so the renderer and the reader can orient cards.
    """

    id: str
    rect_mm: tuple[float, float, float, float]
    up_deg: float = 0.0

    @property
    def centre_mm(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.rect_mm
        return ((x0 + x1) / 2.0, (y0 + y1) / 2.0)


@dataclass(frozen=True)
class TableLayout:
    """Everything the overhead camera needs to know about where things are on the table."""

    mat_size_mm: tuple[float, float]
    map_origin_mm: tuple[float, float]
    map_size_mm: tuple[float, float]
    stands: tuple[StandSpec, ...]
    slots: tuple[SlotSpec, ...]
    mat_image: str = "12_slot_rec_mat.jpg"
    card_size_mm: tuple[float, float] = (95.0, 155.0)
    # where dice are rolled (x0, y0, x1, y1 in the mat frame, mm; may lie beside the mat), or None
    roll_area_mm: tuple[float, float, float, float] | None = None

    def stand(self, stand_id: str) -> StandSpec:
        for s in self.stands:
            if s.id == stand_id:
                return s
        raise KeyError(f"layout has no stand {stand_id!r}")

    def slot(self, slot_id: str) -> SlotSpec:
        for s in self.slots:
            if s.id == slot_id:
                return s
        raise KeyError(f"layout has no slot {slot_id!r}")

    def stand_world(self, stand_id: str) -> tuple[float, float, float]:
        """Centre of the stand's top surface in the mat (world) frame, mm."""
        x, y, z = self.stand(stand_id).pos_mm
        return (x + self.map_origin_mm[0], y + self.map_origin_mm[1], z)

    def map_to_world(self, x: float, y: float) -> tuple[float, float]:
        return (x + self.map_origin_mm[0], y + self.map_origin_mm[1])


@dataclass(frozen=True)
class MatSpec:
    """A mat description file (``calibration/data/*.json``, format ``kipukas-mat/1``)."""

    name: str
    image: str
    size_mm: tuple[float, float]
    map_square_mm: tuple[float, float, float, float]
    slots: tuple[SlotSpec, ...]
    roll_area_mm: tuple[float, float, float, float] | None = None


def _fail(source: str, key: str, problem: str) -> CalibrationFileError:
    return CalibrationFileError(source, key, problem)


def _numbers(source: str, key: str, value: Any, n: int) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != n or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        raise _fail(source, key, f"expected {n} numbers, got {value!r}")
    return tuple(float(v) for v in value)


def parse_mat(source: str, data: Any) -> MatSpec:
    """Validate a mat description; pixel rectangles of the mat image become millimetres."""
    if not isinstance(data, dict):
        raise _fail(source, "<top>", "expected an object")
    if data.get("format") != "kipukas-mat/1":
        raise _fail(source, "format", f"expected 'kipukas-mat/1', got {data.get('format')!r}")
    for key in ("name", "image"):
        if not isinstance(data.get(key), str):
            raise _fail(source, key, "expected a string")
    iw, ih = _numbers(source, "image_px", data.get("image_px"), 2)
    mw, mh = _numbers(source, "size_mm", data.get("size_mm"), 2)
    if min(iw, ih, mw, mh) <= 0:
        raise _fail(source, "size_mm", "sizes must be positive")
    sx, sy = mw / iw, mh / ih

    def to_mm(r: tuple[float, ...]) -> tuple[float, float, float, float]:
        return (r[0] * sx, r[1] * sy, r[2] * sx, r[3] * sy)

    square = to_mm(_numbers(source, "map_square_px", data.get("map_square_px"), 4))
    raw_slots = data.get("slots")
    if not isinstance(raw_slots, list) or not raw_slots:
        raise _fail(source, "slots", "expected a non-empty list")
    slots: list[SlotSpec] = []
    for i, s in enumerate(raw_slots):
        key = f"slots[{i}]"
        if not isinstance(s, dict) or not isinstance(s.get("id"), str):
            raise _fail(source, f"{key}.id", "expected an object with a string id")
        rect = _numbers(source, f"{key}.rect_px", s.get("rect_px"), 4)
        if rect[2] <= rect[0] or rect[3] <= rect[1]:
            raise _fail(source, f"{key}.rect_px", "empty rectangle")
        up = s.get("up_deg", 0)
        if up not in (0, 90, 180, 270):
            raise _fail(source, f"{key}.up_deg", f"expected 0, 90, 180 or 270, got {up!r}")
        slots.append(SlotSpec(s["id"], to_mm(rect), float(up)))
    roll: tuple[float, float, float, float] | None = None
    if "roll_area_mm" in data:  # in mm, not image px: the roll area may lie beside the printed mat
        r = _numbers(source, "roll_area_mm", data["roll_area_mm"], 4)
        if r[2] - r[0] < 60 or r[3] - r[1] < 60:
            raise _fail(source, "roll_area_mm", "the roll area must be at least 60 x 60 mm (x0, y0, x1, y1)")
        roll = (r[0], r[1], r[2], r[3])
    return MatSpec(data["name"], data["image"], (mw, mh), square, tuple(slots), roll)


def load_mat(name: str = "12_slot") -> MatSpec:
    """The packaged mat description ``calibration/data/mat_<name>.json``."""
    res = resources.files("calibration") / "data" / f"mat_{name.replace('-', '_')}.json"
    source = f"mat_{name}.json"
    try:
        data = json.loads(res.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _fail(source, "<file>", "no such packaged mat") from None
    except json.JSONDecodeError as exc:
        raise _fail(source, f"line {exc.lineno}", exc.msg) from None
    return parse_mat(source, data)


def default_layout(stands: Sequence[StandSpec], map_size_mm: tuple[float, float] = (160.0, 160.0)) -> TableLayout:
    """The 12-slot mat with the map centred on its outlined square."""
    mat = load_mat()
    x0, y0, x1, y1 = mat.map_square_mm
    origin = ((x0 + x1 - map_size_mm[0]) / 2.0, (y0 + y1 - map_size_mm[1]) / 2.0)
    for s in stands:
        if s.kind not in STAND_KINDS:
            raise ValueError(f"stand {s.id!r}: kind {s.kind!r} is not one of {', '.join(STAND_KINDS)}")
    return TableLayout(mat.size_mm, origin, map_size_mm, tuple(stands), mat.slots, mat.image,
                       roll_area_mm=mat.roll_area_mm)
