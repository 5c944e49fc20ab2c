"""`kipukas-tracker --version` names the installed version."""

from __future__ import annotations

import pytest

from tracker.cli import installed_version, main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == f"kipukas-tracker {installed_version()}" and installed_version()[0].isdigit()
