"""The starter map file and the map model's graph queries."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from rules.core.errors import MapFileError
from rules.kipukas.board_map import BoardMap
from rules.kipukas.movement import downed_range


def starter_data() -> Any:
    return json.loads((resources.files("rules.kipukas") / "data" / "maps" / "starter.json").read_text())


def test_starter_map_has_nine_territories_and_water() -> None:
    m = BoardMap.packaged()
    numbered = sorted(t.number for t in m.territories.values() if t.number is not None)
    assert numbered == list(range(1, 10))
    assert [t.id for t in m.territories.values() if t.transit] == ["W"]
    assert m.territories["7"].geography == "forest"  # the rule book's worked example (#contention_ex)
    for n in range(1, 10):
        stand = m.territory_stand(str(n))
        assert stand is not None and stand.kind == "territory"


def test_every_stand_is_reachable_from_every_other() -> None:
    m = BoardMap.packaged()
    for s in m.stands:
        assert m.distance("T1", s) is not None


def test_adjacency_follows_the_red_lines() -> None:
    m = BoardMap.packaged()
    assert m.neighbours("T7") == {"M7a", "T6", "M7b"}
    assert m.distance("T7", "T1") == 2
    assert m.path_between("T2", "MW") is not None and m.path_between("T2", "MW").water  # type: ignore[union-attr]


def test_downed_movement_table() -> None:
    assert [downed_range(n) for n in range(6)] == [None, 1, 1, 1, 2, 2]


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda d: d["stands"][0].__setitem__("pos_mm", [1, 2]), "stands[0].pos_mm"),
        (lambda d: d["stands"][2].__setitem__("territory", "42"), "stands[2].territory"),
        (lambda d: d["paths"][5].__setitem__("b", "NOPE"), "paths[5].b"),
        (lambda d: d["territories"][1].__setitem__("geography", "lava"), "territories[1].geography"),
        (lambda d: d.__setitem__("colour", "red"), "colour"),
        (lambda d: d.__setitem__("format", "kipukas-map/9"), "format"),
        (lambda d: d["stands"].append(copy.deepcopy(d["stands"][0])), "stands[18].id"),
    ],
)
def test_bad_map_files_name_file_and_key(tmp_path: Path, mutate: Any, key: str) -> None:
    data = starter_data()
    mutate(data)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    with pytest.raises(MapFileError) as info:
        BoardMap.from_file(str(path))
    assert info.value.key == key
    assert str(path) in str(info.value)


def test_unreadable_map_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(MapFileError, match="not JSON"):
        BoardMap.from_file(str(path))
    with pytest.raises(MapFileError, match="cannot read"):
        BoardMap.from_file(str(tmp_path / "missing.json"))
