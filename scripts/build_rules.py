"""Compile the Kipukas rules engine (`rules/kipukas`) with mypyc into C extensions, in build/rules-native.

The compiled modules play the same games ~2x faster a step (docs/rules-engine.md, the fourteenth speed pass);
`rules.kipukas` loads them only while they match the sources (`rules/kipukas/compiled.py`), so a plain
checkout, or one whose sources changed since the build, runs the interpreted engine. Run by scripts/setup.sh
for the checkout and by systemd/install.sh for the installed package (`--package`, built into
`kipukas_rules_native` beside it); needs mypy (the dev or native extra), a C compiler and the Python headers
(Debian: gcc, python3-dev).

    .venv/bin/python scripts/build_rules.py           # build unless a build of these sources is there
    .venv/bin/python scripts/build_rules.py --force   # build again
    .venv/bin/python scripts/build_rules.py --clean   # remove the build (the interpreted engine runs)
    venv/bin/python scripts/build_rules.py --package venv/lib/python3.11/site-packages/rules/kipukas

Exit status: 0 built or already up to date, 3 no C compiler or no Python headers (nothing built).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import sysconfig
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ["KIPUKAS_INTERPRETED"] = "1"  # this process reads the sources, never a build

from rules.kipukas.compiled import (  # noqa: E402
    GROUP,
    INSTALLED_BUILD,
    STAMP,
    build_dir,
    build_root,
    compiled_modules,
    package_dir,
    stamp,
)


def toolchain_problem() -> str | None:
    """What is missing to compile C extensions for this Python, or None."""
    compiler = sysconfig.get_config_var("CC") or "cc"
    if shutil.which(str(compiler).split()[0]) is None:
        return f"no C compiler ({compiler}; Debian: apt-get install gcc)"
    header = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not header.is_file():
        return f"no Python headers ({header}; Debian: apt-get install python3-dev)"
    return None


def copy_sources(folder: Path, to: Path) -> Path:
    """Copy the sources a build reads (rules/__init__.py, rules/core, rules/kipukas) under `to`; return the
    copy's rules/kipukas. An installed package is compiled from such a copy: mypy, given files in
    site-packages, puts site-packages on its search path and rejects the libraries there that shadow its own
    (typing_extensions). The stamp is of the sources' bytes, so the copy's build is the package's."""
    rules = to / "rules"
    for package in ("kipukas", "core"):
        (rules / package).mkdir(parents=True)
        for source in (folder.parent / package).glob("*.py"):
            shutil.copy2(source, rules / package / source.name)
    init = folder.parent / "__init__.py"
    (rules / "__init__.py").write_bytes(init.read_bytes() if init.is_file() else b"")
    return rules / "kipukas"


def build(folder: Path, want: str) -> Path:
    """Compile the modules of `folder` into a fresh build folder and return its rules/kipukas folder. The
    build is made aside and moved into place whole, with the stamp written last, so an interrupted build
    is never loaded."""
    from mypyc.build import mypycify  # the build's own dependencies, imported only to build
    from setuptools import setup  # type: ignore[import-untyped,unused-ignore]

    root = build_root(folder)
    work = root.with_name(root.name + ".work")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    sources = folder if build_root(folder).name != INSTALLED_BUILD.name else copy_sources(folder, work / "src")
    cwd = Path.cwd()
    os.chdir(work)  # mypy and setuptools read no project configuration here, and their caches stay here
    try:
        paths = [str(sources / f"{name}.py") for name in compiled_modules(folder)]
        extensions = mypycify(paths, group_name=GROUP, target_dir=str(work / "c"), opt_level="3")
        setup(name="kipukas-rules-native", ext_modules=extensions, script_name="build_rules.py",
              script_args=["-q", "build_ext", "--build-lib", str(work / "lib"), "--build-temp", str(work / "obj")])
    finally:
        os.chdir(cwd)
    built = work / "lib" / "rules" / "kipukas"
    (built / STAMP).write_text(want + "\n", encoding="ascii")
    shutil.rmtree(root, ignore_errors=True)
    (work / "lib").rename(root)
    shutil.rmtree(work, ignore_errors=True)
    return build_dir(folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="build even when a build of these sources is there")
    parser.add_argument("--clean", action="store_true", help="remove the build")
    parser.add_argument("--package", type=Path, default=package_dir(), metavar="DIR",
                        help="the rules/kipukas folder to build for (default: this checkout's); an installed "
                             "package is built into kipukas_rules_native beside its rules folder")
    args = parser.parse_args()
    folder = args.package.resolve()
    if not (folder / "compiled.py").is_file() or not (folder.parent / "core").is_dir():
        print(f"build_rules: {folder} is not a rules/kipukas source folder", file=sys.stderr)
        return 2
    if args.clean:
        shutil.rmtree(build_root(folder), ignore_errors=True)
        print(f"build_rules: removed {build_root(folder)}; the interpreted engine runs")
        return 0
    want = stamp(folder)
    out = build_dir(folder)
    if not args.force and (out / STAMP).is_file() and (out / STAMP).read_text(encoding="ascii").strip() == want:
        print(f"build_rules: {out} is a build of these sources; nothing to do")
        return 0
    problem = toolchain_problem()
    if problem is not None:
        print(f"build_rules: not compiling the rules engine: {problem}; the interpreted engine runs", file=sys.stderr)
        return 3
    print(f"build_rules: compiling {len(compiled_modules(folder))} modules of rules/kipukas with mypyc "
          "(a few minutes)", flush=True)
    t0, c0 = time.perf_counter(), os.times()
    out = build(folder, want)
    c1 = os.times()
    cpu = c1.user + c1.system + c1.children_user + c1.children_system - (c0.user + c0.system + c0.children_user
                                                                        + c0.children_system)
    size = sum(p.stat().st_size for p in out.glob("*.so"))
    print(f"build_rules: built {out} in {time.perf_counter() - t0:.0f} s ({cpu:.0f} s CPU, "
          f"mypyc and the C compiler), {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
