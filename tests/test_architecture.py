"""Import directions and circles (docs/architecture.md): checked on the real tree, and the checker itself is
checked on a small planted tree so a broken checker cannot pass silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.architecture_rules import collect, cycles, violations, where_in_cycle

ROOT = Path(__file__).resolve().parent.parent


def test_every_import_runs_the_way_the_architecture_says() -> None:
    found = violations(collect(ROOT))
    assert not found, "imports against docs/architecture.md:\n" + "\n".join(found)


def test_there_are_no_import_circles() -> None:
    imports = collect(ROOT)
    found = cycles(imports)
    assert not found, "import circles:\n" + "\n\n".join("\n".join(where_in_cycle(imports, c)) for c in found)


def test_every_tracker_room_says_what_it_holds_and_may_import() -> None:
    rooms = [p for p in (ROOT / "tracker").iterdir() if (p / "__init__.py").is_file()]
    assert {p.name for p in rooms} >= {"sources", "front", "overhead", "table", "record", "service", "runtime",
                                      "commands"}
    for room in rooms:
        doc = (room / "__init__.py").read_text(encoding="utf-8")
        if room.name != "commands":
            assert "May import" in doc, f"tracker/{room.name}/__init__.py: the docstring must say what it may import"


def _plant(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    _plant(tmp_path, {
        "rules/__init__.py": "",
        "rules/game.py": "from rules import legal\n",
        "rules/legal.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from rules.game import Game\n",
        "rules/pure.py": "import cv2\n",
        "vision/__init__.py": "",
        "vision/reader.py": "def f():\n    from vision.synth import scene\n",
        "vision/synth/__init__.py": "from vision.synth.scene import X\n",
        "vision/synth/scene.py": "X = 1\n",
        "calibration/__init__.py": "",
        "tracker/__init__.py": "",
        "tracker/errors.py": "",
        "tracker/api.py": "from tracker.errors import E\n",
        "tracker/table/__init__.py": "",
        "tracker/table/table.py": "from ..record import store\nimport web.app\n",
        "tracker/table/board.py": "B = 1\n",
        "tracker/record/__init__.py": "",
        "tracker/record/store.py": "from tracker.table.board import B\n",
        "tracker/runtime/__init__.py": "",
        "tracker/runtime/server.py": "import web.app\n",
        "web/__init__.py": "",
        "web/app.py": "from tracker.api import X\nfrom tracker.table import table\n",
    })
    return tmp_path


def test_the_checker_names_each_planted_offence(planted: Path) -> None:
    found = "\n".join(violations(collect(planted)))
    assert "rules/pure.py:1: rules.pure imports cv2" in found
    assert "vision/reader.py:2: vision.reader imports the renderer vision.synth.scene" in found
    assert "tracker/table/table.py:2: tracker.table.table imports web.app" in found
    assert "tracker/record/store.py:1: tracker.record.store imports tracker.table.board" in found
    assert "web/app.py:2: web.app imports tracker.table.table" in found
    assert "tracker/runtime/server.py" not in found  # the composition root may wire web
    assert "web/app.py:1" not in found  # tracker.api is web's to import
    assert "vision/synth/__init__.py" not in found


def test_the_checker_finds_circles_even_under_type_checking(planted: Path) -> None:
    imports = collect(planted)
    found = cycles(imports)
    assert ["rules.game", "rules.legal"] in found
    lines = "\n".join(where_in_cycle(imports, ["rules.game", "rules.legal"]))
    assert "rules/legal.py:3: rules.legal -> rules.game" in lines
    assert not any("vision.synth" in c for cyc in found for c in cyc)  # a package re-exporting its children
