"""Every runtime dependency installs on a Raspberry Pi (64-bit Raspberry Pi OS Bookworm: Python 3.11, glibc
2.36) from binary wheels, so a Pi never compiles anything: `pip download --only-binary :all:` for the
aarch64 platform succeeds for each dependency in pyproject.toml (PyPI is reachable here and in CI).
glibc 2.36 runs manylinux wheels up to 2_36 (zxing-cpp ships manylinux_2_28 only); pyzbar's wheel is pure
Python over Debian's libzbar0, which systemd/install.sh installs with apt."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # downloads a few wheels: 10-60 s


def runtime_dependencies() -> list[str]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def test_runtime_dependencies_are_listed() -> None:
    names = {d.split(">")[0].split("=")[0].split("[")[0].strip().lower() for d in runtime_dependencies()}
    assert {"numpy", "opencv-python-headless", "zxing-cpp", "pyzbar"} <= names


@pytest.mark.parametrize("requirement", runtime_dependencies())
def test_dependency_has_an_aarch64_wheel(requirement: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary", ":all:", "--platform",
         "manylinux_2_17_aarch64", "--platform", "manylinux2014_aarch64", "--platform", "manylinux_2_28_aarch64",
         "--platform", "manylinux_2_34_aarch64", "--platform", "manylinux_2_36_aarch64",
         "--python-version", "3.11", "--implementation", "cp", "--no-deps", "-d", str(tmp_path), requirement],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{requirement}: no binary wheel for a Raspberry Pi:\n{done.stderr[-2000:]}"
    assert list(tmp_path.glob("*.whl")), f"{requirement}: pip downloaded no wheel"
