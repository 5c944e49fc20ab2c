"""The rules engine compiled with mypyc (scripts/build_rules.py, run by scripts/setup.sh) plays exactly the
games the interpreted engine plays, and a build is loaded only while it matches the sources.

The compiled engine's own behaviour is what the rest of the rules suites check whenever the build is in place
(`make test` builds it first); this file runs the interpreted engine beside it, in another process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rules.kipukas.compiled import ENV, STAMP, build_dir, native_dir, package_dir, stamp

REPO = Path(__file__).resolve().parents[1]


def digest(interpreted: bool) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if interpreted:
        env[ENV] = "1"
    done = subprocess.run([sys.executable, "-m", "tests.compiled_digest", "3"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.slow
def test_the_compiled_and_the_interpreted_engine_play_identical_games() -> None:
    if native_dir(package_dir(), {}) is None:
        pytest.fail("no compiled build of these sources: run scripts/setup.sh (or scripts/build_rules.py)")
    compiled, interpreted = digest(False), digest(True)
    assert compiled[0] == "compiled" and interpreted[0] == "interpreted"
    assert len(compiled) > 20  # golden games, perft positions and self-play were all digested
    assert compiled[1:] == interpreted[1:]


def sources(tmp_path: Path) -> Path:
    """A copy of the rules sources (rules/kipukas and rules/core) in `tmp_path`; returns its rules/kipukas."""
    for package in ("kipukas", "core"):
        (tmp_path / "rules" / package).mkdir(parents=True)
        for source in (package_dir().parent / package).glob("*.py"):
            shutil.copy(source, tmp_path / "rules" / package / source.name)
    return tmp_path / "rules" / "kipukas"


def test_a_build_is_loaded_only_while_it_matches_the_sources(tmp_path: Path) -> None:
    folder = sources(tmp_path)
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")  # a checkout: built into build/rules-native
    built = build_dir(folder)
    assert built == tmp_path / "build" / "rules-native" / "rules" / "kipukas"
    assert native_dir(folder, {}) is None  # not built: the interpreted modules
    built.mkdir(parents=True)
    assert native_dir(folder, {}) is None  # an interrupted build: no stamp yet
    (built / STAMP).write_text(stamp(folder) + "\n", encoding="ascii")
    assert native_dir(folder, {}) == built
    assert native_dir(folder, {ENV: "1"}) is None  # the interpreted engine asked for
    assert native_dir(folder, {ENV: "0"}) == built
    turns = folder / "turns.py"
    turns.write_text(turns.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # one source edited
    assert native_dir(folder, {}) is None
    (built / STAMP).write_text(stamp(folder) + "\n", encoding="ascii")  # built again
    errors = folder.parent / "core" / "errors.py"
    errors.write_text(errors.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # a dependency edited
    assert native_dir(folder, {}) is None


def test_the_interpreted_engine_runs_when_asked_for() -> None:
    env = {**os.environ, ENV: "1"}
    done = subprocess.run([sys.executable, "-c", "import rules.kipukas.turns as t; print(t.__file__)"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == str(package_dir() / "turns.py")


@pytest.mark.parametrize("interpreted", [True, False])
def test_the_process_says_which_engine_it_runs(interpreted: bool) -> None:
    """What the service logs at start and /healthz shows: read from the loaded modules, not from the stamp."""
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if interpreted:
        env[ENV] = "1"
    elif native_dir(package_dir(), {}) is None:
        pytest.fail("no compiled build of these sources: run scripts/setup.sh (or scripts/build_rules.py)")
    code = "from rules.kipukas.compiled import running_engine; print(running_engine())"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == ("interpreted" if interpreted else "compiled")


def test_an_installed_package_is_built_beside_it_where_it_is_looked_for(tmp_path: Path) -> None:
    """systemd/install.sh runs `build_rules.py --package` on the venv's site-packages/rules/kipukas: the build
    goes beside the installed `rules` (not into a `build` folder, PyPA's package's name there) and is found by
    the installed package itself. Checked without compiling: a stamped folder stands for the build (the
    compiling itself is what scripts/setup.sh and the identical-games test above exercise)."""
    site = tmp_path / "site-packages"
    folder = sources(site)
    built = build_dir(folder)
    assert built == site / "kipukas_rules_native" / "rules" / "kipukas"
    script = [sys.executable, str(REPO / "scripts" / "build_rules.py"), "--package", str(folder)]
    built.mkdir(parents=True)
    (built / STAMP).write_text(stamp(folder) + "\n", encoding="ascii")
    done = subprocess.run(script, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert f"{built} is a build of these sources; nothing to do" in done.stdout
    assert native_dir(folder, {}) == built
    assert native_dir(package_dir(), {}) != built  # the checkout's own build is elsewhere
    done = subprocess.run([*script, "--clean"], capture_output=True, text=True, timeout=120, check=True)
    assert not (site / "kipukas_rules_native").exists() and native_dir(folder, {}) is None
    done = subprocess.run([*script[:-1], str(tmp_path)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "not a rules/kipukas source folder" in done.stderr
