"""Shared fixtures: paths to the read-only shared data beside the project, a free port, artifacts."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"the shared data folder is missing: expected it beside the project at {SHARED}")
    return SHARED


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    return out
