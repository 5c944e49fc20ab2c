"""Warnings clear when what they are about is put right, and carry a severity the judge page colours."""

from __future__ import annotations

from pathlib import Path

from tests.table_helpers import new_table
from tracker.service.seats import JUDGE
from tracker.service.service import TableService


def test_a_resolved_warning_goes_and_severities_are_told(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    service = TableService(table)
    table.warn("overhead camera lost: no frame for 3 s", key="overhead camera")
    table.warn("token colours not learned yet", key="colours")
    assert [a["severity"] for a in service.snapshot(JUDGE)["alerts"]] == ["error", "warning"]
    table.warn("overhead camera back: frames again", key="overhead camera")  # replaces "lost"
    table.resolve("colours")
    alerts = service.snapshot(JUDGE)["alerts"]
    assert alerts == [{"severity": "info", "message": "overhead camera back: frames again"}]
    assert service.snapshot(JUDGE)["warnings"] == ["overhead camera back: frames again"]
