"""systemd/install.sh, run into a throwaway root (`--root`) and with `--dry-run`.

Under `--root` the script lays out the real tree (the project in opt/, its venv, the config, the unit and
its enablement symlink) and only prints what it would do to the live system (apt-get, useradd, systemctl
daemon-reload/restart) and the networked pip install. A second run must change nothing, and an edited
configuration must survive it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "systemd" / "install.sh"
pytestmark = pytest.mark.slow  # creating the venv and four installs: about 15 s

PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else (shutil.which("python3") or "python3")


def run_install(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["bash", str(SCRIPT), "--python", PYTHON, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"install.sh {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def tree_digest(root: Path) -> str:
    """One hash over every path, its type, permission bits, file content and symlink target."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        st = path.lstat()
        if path.is_symlink():
            digest.update(f"L {rel} -> {os.readlink(path)}\n".encode())
        elif path.is_dir():
            digest.update(f"D {rel} {st.st_mode:o}\n".encode())
        else:
            digest.update(f"F {rel} {st.st_mode:o} ".encode() + hashlib.sha256(path.read_bytes()).digest() + b"\n")
    return digest.hexdigest()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One install into a fresh root, shared by the tests below (creating the venv takes a few seconds)."""
    root = tmp_path_factory.mktemp("pi-root")
    done = run_install("--root", str(root))
    return root, done.stdout


def test_install_lays_out_the_appliance(installed: tuple[Path, str]) -> None:
    root, out = installed
    opt = root / "opt" / "kipukas-tracker"
    assert (opt / "pyproject.toml").read_bytes() == (ROOT / "pyproject.toml").read_bytes()
    watchdog = Path("tracker") / "runtime" / "watchdog.py"
    assert (opt / watchdog).read_bytes() == (ROOT / watchdog).read_bytes()
    assert os.access(opt / "systemd" / "install.sh", os.X_OK)
    assert not (opt / ".git").exists() and not (opt / "__pycache__").exists()
    cfg = (opt / ".venv" / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = true" in cfg  # so the system's picamera2 is importable
    assert os.access(opt / ".venv" / "bin" / "python", os.X_OK)
    conf = root / "etc" / "kipukas-tracker" / "table.toml"
    assert conf.read_text() == (ROOT / "systemd" / "table.toml").read_text()
    assert conf.stat().st_mode & 0o777 == 0o640
    unit = root / "etc" / "systemd" / "system" / "kipukas-tracker.service"
    assert unit.read_text() == (ROOT / "systemd" / "kipukas-tracker.service").read_text()
    link = root / "usr" / "local" / "bin" / "kipukas-tracker"
    assert os.readlink(link) == "/opt/kipukas-tracker/.venv/bin/kipukas-tracker"
    if shutil.which("systemctl"):
        wants = root / "etc" / "systemd" / "system" / "multi-user.target.wants" / "kipukas-tracker.service"
        assert os.readlink(wants) == "/etc/systemd/system/kipukas-tracker.service"
    # what it would do to a live system is printed, not done
    for would in ("apt-get install", "python3-picamera2", "useradd --system", "systemctl restart", "pip install",
                  "gcc python3-dev"):
        assert would in out, f"{would!r} missing from:\n{out}"
    # nothing was pip-installed, so the rules engine has no installed package to be compiled for
    skipped = [line for line in out.splitlines() if line.startswith("install: skipped (--root, nothing pip-installed")]
    assert any("scripts/build_rules.py --package" in line for line in skipped), out
    assert any("pip install" in line and "mypy" in line for line in skipped), out
    assert not list((opt / ".venv").glob("lib/python*/site-packages/kipukas_rules_native"))


def test_second_run_changes_nothing_and_keeps_an_edited_config(installed: tuple[Path, str]) -> None:
    root, _ = installed
    before = tree_digest(root)
    again = run_install("--root", str(root))
    assert tree_digest(root) == before, again.stdout
    assert "0 changed" in again.stdout and "is in place" in again.stdout

    conf = root / "etc" / "kipukas-tracker" / "table.toml"
    edited = conf.read_text().replace('name = "table-1"', 'name = "final table"')
    assert edited != conf.read_text()
    conf.write_text(edited)
    stale = root / "opt" / "kipukas-tracker" / "tracker" / "removed_module.py"
    stale.write_text("# a file the project no longer has\n")
    venv_marker = root / "opt" / "kipukas-tracker" / ".venv" / "kept"
    venv_marker.write_text("the venv is not part of the sync\n")

    upgrade = run_install("--root", str(root))
    assert conf.read_text() == edited, "an upgrade must keep the table's configuration"
    assert "kept" in upgrade.stdout
    assert not stale.exists(), "files that left the project are removed on upgrade"
    assert venv_marker.exists()
    venv_marker.unlink()
    settled = tree_digest(root)
    run_install("--root", str(root))
    assert tree_digest(root) == settled


def test_dry_run_prints_everything_and_changes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "untouched"
    done = run_install("--root", str(root), "--dry-run")
    assert not root.exists()
    assert "+ install -D -m 0644" in done.stdout and "pyproject.toml" in done.stdout
    assert f"+ {PYTHON} -m venv --clear --system-site-packages" in done.stdout
    assert "install: skipped (--root, nothing pip-installed to build for):" in done.stdout
    assert "dry run: nothing was changed" in done.stdout


def test_dry_run_on_the_live_system_changes_nothing() -> None:
    existed = Path("/opt/kipukas-tracker").exists(), Path("/etc/kipukas-tracker").exists()
    done = run_install("--dry-run")
    assert (Path("/opt/kipukas-tracker").exists(), Path("/etc/kipukas-tracker").exists()) == existed
    if not existed[0]:
        assert "+ install -D -m 0644" in done.stdout
    assert "+ systemctl" in done.stdout
    assert "skipped" not in done.stdout  # without --root every command is shown as the command it is
    # the rules engine is compiled for the package pip installs into the venv, with mypy pinned as in dev
    version = subprocess.run([PYTHON, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    site = f"/opt/kipukas-tracker/.venv/lib/python{version}/site-packages"
    build = (f"+ /opt/kipukas-tracker/.venv/bin/python /opt/kipukas-tracker/scripts/build_rules.py "
             f"--package {site}/rules/kipukas")
    assert build in done.stdout.splitlines(), done.stdout
    assert "mypy\\>=1.10 setuptools" in done.stdout, done.stdout  # printf %q escapes the >


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(["bash", str(SCRIPT), "--frobnicate"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "unknown option" in done.stderr
    done = subprocess.run(
        ["bash", str(SCRIPT), "--root", str(tmp_path), "--python", str(tmp_path / "nope")],
        capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 2 and "no Python" in done.stderr


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_install_script_is_shellcheck_clean() -> None:
    done = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout


def test_a_build_is_silent_and_ships_every_room_and_its_data(tmp_path: Path) -> None:
    """Packages and package data are discovered: no setuptools warning, no room or data file left behind."""
    import sys
    import zipfile

    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                           "-w", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "is absent from the `packages` configuration" not in done.stdout + done.stderr
    assert "BuildBackendWarning" not in done.stdout + done.stderr
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for room in ("sources", "front", "overhead", "table", "record", "service", "runtime", "commands"):
        assert f"tracker/{room}/__init__.py" in names
    for data in ("rules/kipukas/data/cards.json", "rules/kipukas/data/maps/starter.json",
                 "calibration/data/mat_12_slot.json", "vision/assets/map_top.jpeg", "web/static/table.js",
                 "web/templates/table.html"):
        assert data in names
    assert not any(n.startswith(("tests/", "bench/")) for n in names)
