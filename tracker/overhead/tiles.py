"""Tile layout files (`tilemap-layout/1`): where each tile of a tile-map board lies under the overhead
camera, so the same calibrated per-region reader that reads Kipukas stands reads the unit tokens on tiles.

A layout file is to a tile map what the Kipukas map file (docs/map-format.md) is to a Kipukas map: the
physical side of the board. Tiles are named like chess squares (column letter, row number, ``a1`` the
tile nearest the viewer on the left); each tile is one square region (a ``territory`` stand of
`calibration.layout`: a square token of the controller's colour stands on it). Packaged layouts live in
``tracker/overhead/data/tiles/<map>.json``; keys (millimetres, the map frame of docs/map-format.md: origin
at the board's top-left corner, ``x`` right, ``y`` towards the viewer):

| key | meaning |
|---|---|
| ``format`` | ``tilemap-layout/1`` |
| ``map`` | the tile map's name (``[game] map``; the game's view must have as many columns and rows) |
| ``columns``, ``rows`` | the board's tiles |
| ``size_mm`` | ``[w, h]``: the board's footprint, centred on the mat's map square |
| ``first_tile_mm`` | ``[x, y]``: the centre of tile ``a1`` |
| ``pitch_mm`` | the distance between neighbouring tile centres |
| ``token_mm`` | the side of a unit token (the region read around each tile centre) |
| ``height_mm`` | the height of a token's top above the mat |
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from calibration.errors import CalibrationFileError
from calibration.layout import StandSpec, TableLayout, default_layout
from vision.observation import BoardObservation

FORMAT = "tilemap-layout/1"
UNIT_STATES = ("capital", "basecamp")  # a square token on a tile, whatever the reader calls its shape


@dataclass(frozen=True)
class TileLayout:
    """A validated tile layout file (see the module docstring)."""

    map: str
    columns: int
    rows: int
    size_mm: tuple[float, float]
    first_tile_mm: tuple[float, float]
    pitch_mm: float
    token_mm: float
    height_mm: float

    def tiles(self) -> list[str]:
        return [f"{chr(ord('a') + c)}{r + 1}" for c in range(self.columns) for r in range(self.rows)]

    def centre_mm(self, tile: str) -> tuple[float, float]:
        c, r = ord(tile[0]) - ord("a"), int(tile[1:]) - 1
        return (self.first_tile_mm[0] + c * self.pitch_mm, self.first_tile_mm[1] - r * self.pitch_mm)

    def table_layout(self) -> TableLayout:
        """The calibration layout: one square region per tile on the default mat."""
        stands = [StandSpec(t, "territory", (*self.centre_mm(t), self.height_mm), (self.token_mm, self.token_mm), 0.0)
                  for t in self.tiles()]
        return default_layout(stands, self.size_mm)


def _number(source: str, data: dict[str, Any], key: str, low: float, high: float) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise CalibrationFileError(source, key, f"expected a number in {low:g}..{high:g}, got {value!r}")
    return float(value)


def _pair(source: str, data: dict[str, Any], key: str) -> tuple[float, float]:
    value = data.get(key)
    if not isinstance(value, list) or len(value) != 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 2000 for v in value):
        raise CalibrationFileError(source, key, f"expected [x, y] in millimetres, got {value!r}")
    return (float(value[0]), float(value[1]))


def parse(source: str, data: Any) -> TileLayout:
    """A layout from JSON data; `CalibrationFileError` names the file and the key of any problem."""
    if not isinstance(data, dict):
        raise CalibrationFileError(source, "<file>", "expected a JSON object")
    known = {"format", "map", "columns", "rows", "size_mm", "first_tile_mm", "pitch_mm", "token_mm", "height_mm"}
    for key in sorted(set(data) - known):
        raise CalibrationFileError(source, key, "unknown key")
    if data.get("format") != FORMAT:
        raise CalibrationFileError(source, "format", f"expected {FORMAT!r}, got {data.get('format')!r}")
    name = data.get("map")
    if not isinstance(name, str) or not name:
        raise CalibrationFileError(source, "map", "expected the tile map's name")
    columns, rows = int(_number(source, data, "columns", 1, 26)), int(_number(source, data, "rows", 1, 99))
    layout = TileLayout(name, columns, rows, _pair(source, data, "size_mm"), _pair(source, data, "first_tile_mm"),
                        _number(source, data, "pitch_mm", 5, 200), _number(source, data, "token_mm", 3, 200),
                        _number(source, data, "height_mm", 0, 100))
    if layout.token_mm >= layout.pitch_mm:
        raise CalibrationFileError(source, "token_mm", "a token must be smaller than the tile pitch")
    w, h = layout.size_mm
    for corner in ("a1", f"{chr(ord('a') + columns - 1)}{rows}"):
        x, y = layout.centre_mm(corner)
        if not (0 < x < w and 0 < y < h):
            raise CalibrationFileError(source, "first_tile_mm", f"tile {corner} lies outside size_mm")
    return layout


def load(name_or_path: str) -> TileLayout:
    """A packaged layout by map name, or a layout file by path."""
    path = Path(name_or_path)
    if path.suffix == ".json":
        source, text = str(path), None
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise CalibrationFileError(source, "<file>", exc.strerror or str(exc)) from None
    else:
        source = f"{name_or_path}.json"
        try:
            text = (resources.files("tracker.overhead") / "data" / "tiles" / source).read_text(encoding="utf-8")
        except (FileNotFoundError, OSError):
            raise CalibrationFileError(source, "<file>", f"no packaged tile layout {name_or_path!r}") from None
    try:
        return parse(source, json.loads(text))
    except json.JSONDecodeError as exc:
        raise CalibrationFileError(source, f"line {exc.lineno}", exc.msg) from None


def units_seen(obs: BoardObservation) -> dict[str, str | None]:
    """Tile -> the seat whose token the reader saw on it, None for an empty tile. Tiles it could not read
    (a hand over them, never read, an unreadable token) are left out: unknown, never guessed."""
    seen: dict[str, str | None] = {}
    for tile, o in obs.stands.items():
        if o.obstructed or o.state == "unknown":
            continue
        if o.state == "empty":
            seen[tile] = None
        elif o.state in UNIT_STATES and o.owner:
            seen[tile] = o.owner
    return seen
