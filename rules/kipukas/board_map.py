"""The map model: territories, stands, movement lines, and the graph queries movement needs."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from rules.kipukas.mapfile import FORMAT, GEOGRAPHIES, STAND_KINDS, Reader, load_json, load_packaged


@dataclass(frozen=True, slots=True)
class Territory:
    id: str
    number: int | None
    transit: bool
    geography: str
    geography_source: str


@dataclass(frozen=True, slots=True)
class Stand:
    """A territory stand (square, holds capital / base camp) or a movement stand (round, soul tokens)."""

    id: str
    kind: str
    territory: str
    pos_mm: tuple[float, float, float]
    size_mm: tuple[float, float]
    angle_deg: float


@dataclass(frozen=True, slots=True)
class Path:
    a: str
    b: str
    water: bool


@dataclass(frozen=True)
class BoardMap:
    """A validated Kipukas map. Immutable; graph queries are cheap enough for every move check."""

    name: str
    title: str
    size_mm: tuple[float, float]
    territories: dict[str, Territory]
    stands: dict[str, Stand]
    paths: tuple[Path, ...]
    texture: dict[str, Any]
    extras: dict[str, Any] = field(default_factory=dict)
    _adj: dict[str, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)
    _path: dict[tuple[str, str], Path] = field(default_factory=dict, repr=False, compare=False)
    _tstand: dict[str, Stand] = field(default_factory=dict, repr=False, compare=False)
    holdable: tuple[str, ...] = field(default=(), repr=False, compare=False)
    stand_territory: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    sorted_adj: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    water_edges: frozenset[tuple[str, str]] = field(default=frozenset(), repr=False, compare=False)
    shore: frozenset[str] = field(default=frozenset(), repr=False, compare=False)  # stands with a water line
    movement_stands: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    home_stand: dict[str, str] = field(default_factory=dict, repr=False, compare=False)  # territory -> its stand
    territory_stands: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    stand_geography: dict[str, str] = field(default_factory=dict, repr=False, compare=False)  # stand -> its ground
    # rules.day.reach's answers: (start, range, water, blocked, tunnels) -> stands and their distance
    reach_cache: dict[tuple[object, ...], dict[str, int]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Lookup tables built once: the engine asks these questions on every action.
        adj: dict[str, set[str]] = {s: set() for s in self.stands}
        path: dict[tuple[str, str], Path] = {}
        for p in self.paths:
            adj[p.a].add(p.b)
            adj[p.b].add(p.a)
            path.setdefault((p.a, p.b), p)
            path.setdefault((p.b, p.a), p)
        tstand: dict[str, Stand] = {}
        for st in self.stands.values():
            if st.kind == "territory":
                tstand.setdefault(st.territory, st)
        object.__setattr__(self, "_adj", {k: frozenset(v) for k, v in adj.items()})
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_tstand", tstand)
        object.__setattr__(self, "home_stand", {t: st.id for t, st in tstand.items()})
        object.__setattr__(self, "movement_stands", frozenset(k for k, st in self.stands.items()
                                                              if st.kind == "movement"))
        object.__setattr__(self, "holdable", tuple(sorted(t for t, terr in self.territories.items()
                                                          if not terr.transit)))
        object.__setattr__(self, "stand_territory", {k: st.territory for k, st in self.stands.items()})
        object.__setattr__(self, "territory_stands", {t: tuple(k for k, st in self.stands.items() if st.territory == t)
                                                      for t in self.territories})
        ground = {k: self.territories[st.territory].geography for k, st in self.stands.items()
                  if st.territory in self.territories}
        object.__setattr__(self, "stand_geography", ground)
        object.__setattr__(self, "sorted_adj", {k: tuple(sorted(v)) for k, v in adj.items()})
        water = frozenset(k for k, p in path.items() if p.water)
        object.__setattr__(self, "water_edges", water)
        object.__setattr__(self, "shore", frozenset(a for a, _ in water))

    @classmethod
    @cache
    def packaged(cls, name: str = "starter") -> BoardMap:
        """A map shipped in `rules/data/maps`, parsed once per process (maps are immutable)."""
        source, data = load_packaged(name)
        return cls.from_data(source, data)

    @classmethod
    def from_file(cls, path: str) -> BoardMap:
        source, data = load_json(path)
        return cls.from_data(source, data)

    @classmethod
    def from_data(cls, source: str, data: Any) -> BoardMap:
        return _parse(Reader(source, data))

    def neighbours(self, stand: str) -> frozenset[str]:
        return self._adj[self.stand(stand).id]

    def stand(self, stand_id: str) -> Stand:
        try:
            return self.stands[stand_id]
        except KeyError:
            raise KeyError(f"map {self.name!r} has no stand {stand_id!r}") from None

    def territory_stand(self, territory: str) -> Stand | None:
        return self._tstand.get(territory)

    def adjacent_territories(self, a: str, b: str) -> bool:
        """A movement line joins a stand of territory `a` to a stand of territory `b`."""
        where = self.stand_territory
        return any((where[p.a] == a and where[p.b] == b) or (where[p.a] == b and where[p.b] == a) for p in self.paths)

    def path_between(self, a: str, b: str) -> Path | None:
        return self._path.get((a, b))

    def distance(self, start: str, goal: str, blocked: Iterable[str] = (), water: bool = True) -> int | None:
        """Fewest movement lines from `start` to `goal`, never passing through a `blocked` stand
        (it may be the goal itself: moving onto an enemy means attacking it, #movement).
        With ``water=False`` lines that touch water are not used. None when unreachable."""
        self.stand(start), self.stand(goal)
        stop = set(blocked) - {goal}
        seen = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if here == goal:
                return seen[here]
            for nxt in self._adj[here]:
                if nxt in seen or nxt in stop:
                    continue
                if not water and self._water_edge(here, nxt):
                    continue
                seen[nxt] = seen[here] + 1
                queue.append(nxt)
        return None

    def _water_edge(self, a: str, b: str) -> bool:
        p = self.path_between(a, b)
        return p is not None and p.water


def _parse(r: Reader) -> BoardMap:
    r.only("format", "name", "title", "size_mm", "texture", "territories", "stands", "paths",
           "docks", "boats", "tunnels", "geomarkers")
    fmt = r.text("format")
    if fmt != FORMAT:
        r.fail("format", f"unsupported format {fmt!r} (this version reads {FORMAT})")
    territories: dict[str, Territory] = {}
    for t in r.objects("territories"):
        t.only("id", "number", "transit", "geography", "geography_source")
        tid = t.text("id")
        if tid in territories:
            t.fail("id", f"duplicate territory id {tid!r}")
        number = t.data.get("number")
        if number is not None and (isinstance(number, bool) or not isinstance(number, int) or number < 1):
            t.fail("number", f"expected a positive whole number or null, got {number!r}")
        territories[tid] = Territory(tid, number, t.flag("transit", False),
                                     t.text("geography", choices=GEOGRAPHIES), t.text("geography_source", "map file"))
    stands: dict[str, Stand] = {}
    for s in r.objects("stands"):
        s.only("id", "kind", "territory", "pos_mm", "size_mm", "angle_deg")
        sid = s.text("id")
        if sid in stands:
            s.fail("id", f"duplicate stand id {sid!r}")
        terr = s.text("territory")
        if terr not in territories:
            s.fail("territory", f"unknown territory {terr!r}")
        kind = s.text("kind", choices=STAND_KINDS)
        if kind == "territory" and territories[terr].transit:
            s.fail("kind", f"transit territory {terr!r} cannot hold a territory stand (#transit_territories)")
        x, y, z = s.vector("pos_mm", 3)
        w, h = s.vector("size_mm", 2)
        stands[sid] = Stand(sid, kind, terr, (x, y, z), (w, h), s.number("angle_deg", 0.0))
    paths: list[Path] = []
    for p in r.objects("paths"):
        p.only("a", "b", "water")
        a, b = p.text("a"), p.text("b")
        for end, name in ((a, "a"), (b, "b")):
            if end not in stands:
                p.fail(name, f"unknown stand {end!r}")
        if a == b:
            p.fail("b", "a movement line must join two different stands")
        paths.append(Path(a, b, p.flag("water", False)))
    texture = r.get("texture", lambda v: v if isinstance(v, dict) else None, "an object", {})
    extras: dict[str, Any] = {k: r.data[k] for k in ("docks", "boats", "tunnels", "geomarkers") if k in r.data}
    w, h = r.vector("size_mm", 2)
    return BoardMap(r.text("name"), r.text("title", r.text("name")), (w, h), territories, stands,
                    tuple(paths), texture, extras)
