"""The tile map (seed 004, "Map", "Tiles", "Range", "Step", "Movement", "High Ground"): a layout file
(`data/maps/*.json`, like the Kipukas map file) of tiles with types, each seat's spawn tiles and boss,
the start deck, the base resource gain and the win conditions; and the geometry of range and steps.

Tiles are named like chess squares: column letter, row number (``c4``). Tile types: ``plain``,
``water`` (deep water: only swimming permanents), ``high`` (high ground)."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from rules.core.errors import MapFileError

TILE_TYPES = ("plain", "water", "high")
Tile = tuple[int, int]


def name(t: Tile) -> str:
    return f"{chr(ord('a') + t[0])}{t[1] + 1}"


def distance(a: Tile, b: Tile) -> int:
    """The smallest range `r` that holds `b` around `a`: ``max + floor(min / 2)`` of the absolute offsets.
    The book writes the condition with ``x > y`` on signed offsets, which would put (-3, 0) in range 1;
    it is read on absolute offsets (docs/games.md)."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return max(dx, dy) + min(dx, dy) // 2


def adjacent(a: Tile, b: Tile) -> bool:
    return a != b and distance(a, b) <= 1


@dataclass(frozen=True)
class TileMap:
    name: str
    width: int
    height: int
    types: dict[Tile, str]
    spawn: dict[str, tuple[Tile, ...]]
    bosses: dict[str, tuple[str, Tile]]
    start_deck: tuple[str, ...]
    base_gain: int
    hand: int
    win_vip: bool
    win_resource: int | None

    def tile(self, text: str) -> Tile:
        """The tile a name like ``c4`` names; `ValueError` naming the map when it is off the map."""
        if len(text) >= 2 and text[0].isalpha() and text[1:].isdigit():
            t = (ord(text[0].lower()) - ord("a"), int(text[1:]) - 1)
            if self.on_map(t):
                return t
        last = name((self.width - 1, self.height - 1))
        raise ValueError(f"{text!r} is not a tile of map {self.name!r} (a1 to {last})")

    def on_map(self, t: Tile) -> bool:
        return 0 <= t[0] < self.width and 0 <= t[1] < self.height

    def kind(self, t: Tile) -> str:
        return self.types.get(t, "plain")

    def allows(self, t: Tile, swimming: bool) -> bool:
        """#available_tiles: swimming permanents only on deep water, the others anywhere else."""
        return (self.kind(t) == "water") == swimming

    def tiles(self) -> list[Tile]:
        return [(x, y) for y in range(self.height) for x in range(self.width)]


def load(raw: dict[str, Any], source: str) -> TileMap:
    """A map from its JSON; errors name the file and the key."""
    if raw.get("format") != "tilemap-map/1":
        raise MapFileError(source, "format", "expected 'tilemap-map/1'")
    try:
        width, height = int(raw["width"]), int(raw["height"])
        probe = TileMap(raw["name"], width, height, {}, {}, {}, (), 0, 0, False, None)
        types = {}
        for key, kind in raw.get("tiles", {}).items():
            if kind not in TILE_TYPES:
                raise MapFileError(source, f"tiles.{key}", f"tile type {kind!r} unknown ({', '.join(TILE_TYPES)})")
            types[probe.tile(key)] = kind
        spawn = {seat: tuple(probe.tile(t) for t in s["spawn"]) for seat, s in raw["seats"].items()}
        bosses = {seat: (s["boss"][0], probe.tile(s["boss"][1])) for seat, s in raw["seats"].items() if s.get("boss")}
        win = raw["win"]
        return TileMap(raw["name"], width, height, types, spawn, bosses, tuple(raw["start_deck"]),
                       int(raw["base_gain"]), int(raw["hand"]), bool(win.get("vip")), win.get("resource"))
    except (KeyError, TypeError, ValueError) as exc:
        raise MapFileError(source, "?", f"malformed map: {exc}") from exc


@cache
def packaged(map_name: str) -> TileMap:
    folder = resources.files("rules.tilemap").joinpath("data/maps")
    path = folder.joinpath(f"{map_name}.json")
    if not path.is_file():
        known = sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))
        raise MapFileError(f"{map_name}.json", "name", f"no packaged tile map {map_name!r} (known: {', '.join(known)})")
    return load(json.loads(path.read_text(encoding="utf-8")), f"{map_name}.json")


def path_cost(path: list[Tile]) -> int:
    """#movement: steps between adjacent tiles, every second diagonal step counting twice."""
    cost = diagonals = 0
    for a, b in itertools.pairwise(path):
        if a[0] != b[0] and a[1] != b[1]:
            diagonals += 1
            cost += 2 if diagonals % 2 == 0 else 1
        else:
            cost += 1
    return cost
