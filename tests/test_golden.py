"""Replays every golden game file; a mismatch fails with a readable unified diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.golden_runner import check, render

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.game"))


def test_there_are_golden_games() -> None:
    assert GOLDEN


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_game(path: Path) -> None:
    diff = check(path)
    assert not diff, "golden file differs from the replay:\n" + diff


def test_runner_reports_a_changed_expectation(tmp_path: Path) -> None:
    source = GOLDEN[0].read_text(encoding="utf-8")
    broken = tmp_path / "broken.game"
    broken.write_text(source.replace("claim 6 red camp", "claim 6 blue camp", 1), encoding="utf-8")
    diff = check(broken)
    assert "-  claim 6 blue camp" in diff and "+  claim 6 red camp" in diff
    assert render(broken) == source
