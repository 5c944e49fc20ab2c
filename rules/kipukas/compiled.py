"""Which build of the Kipukas engine runs: the modules compiled to C extensions by mypyc
(`scripts/build_rules.py`, run by `scripts/setup.sh` for a checkout and by `systemd/install.sh` for the Pi's
installed package) when a build made from exactly these sources is present, else the interpreted modules.

A compiled module would shadow its source, so a build is used only when the stamp it was made with equals the
stamp of the sources now (their bytes, the module list and the Python ABI): an edited, checked-out or pulled
source makes the engine fall back to the interpreted modules until the next build, never to stale compiled
code. ``KIPUKAS_INTERPRETED=1`` in the environment forces the interpreted engine (the test that compares the
two engines uses it). The two engines give identical games (tests/test_rules_compiled.py); the compiled one
is ~2x faster a step (docs/rules-engine.md, the fourteenth speed pass).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping
from pathlib import Path

# Modules that stay interpreted, and why: each one does something mypyc's native classes refuse or would change.
INTERPRETED: dict[str, str] = {
    "__init__": "chooses the build before any compiled module can be imported",
    "compiled": "this module: chooses the build",
    "notation": "its verbs are registered by a class decorator that sets class attributes after the class is "
                "made, and a decorated class cannot be native",
    "records": "records are built through a mutable twin whose `__class__` is then swapped, which native "
               "classes refuse",
    "history": "the game keeps weak references to its history views, which native classes do not take",
    "styles": "`Style.with_params` accepts parameters of any type and `Game.new` rejects wrong ones with a "
              "StyleError; a native class would raise TypeError first",
}
ENV = "KIPUKAS_INTERPRETED"  # set to 1: never use a compiled build
GROUP = "rules.kipukas.compiled_group"  # mypyc's shared library is GROUP + "__mypyc", beside the modules
BUILD = Path("build") / "rules-native"  # the build's output, relative to the checkout (ignored by git)
# The build's output beside an installed package (site-packages/rules): the checkout's `build/` would be the
# folder of PyPA's `build` package there.
INSTALLED_BUILD = Path("kipukas_rules_native")
STAMP = "STAMP"  # the file in the build's rules/kipukas folder holding the stamp it was made with


def package_dir() -> Path:
    """The source folder of `rules.kipukas`."""
    return Path(__file__).resolve().parent


def compiled_modules(folder: Path) -> list[str]:
    """The names of the modules of `folder` (the source folder of rules.kipukas) that the build compiles."""
    return sorted(p.stem for p in folder.glob("*.py") if p.stem not in INTERPRETED)


def stamp(folder: Path) -> str:
    """What a build depends on: every source of rules.kipukas and rules.core (the compiled code reads the
    interpreted modules' classes and the core's errors by their types), the compiled list and the Python ABI."""
    h = hashlib.sha256()
    h.update(f"{sys.implementation.cache_tag} {' '.join(compiled_modules(folder))}\n".encode())
    for source in sorted([*folder.glob("*.py"), *(folder.parent / "core").glob("*.py")]):
        h.update(f"{source.parent.name}/{source.name}\n".encode())
        h.update(source.read_bytes())
    return h.hexdigest()


def build_root(folder: Path) -> Path:
    """The folder the build of the source folder `folder` makes: `build/rules-native` in a checkout (the
    folder holding `rules/` has the project's pyproject.toml), else `kipukas_rules_native` beside the
    installed `rules` package (systemd/install.sh builds there for the venv's non-editable install)."""
    top = folder.parents[1]
    return top / (BUILD if (top / "pyproject.toml").is_file() else INSTALLED_BUILD)


def build_dir(folder: Path) -> Path:
    """Where the build puts the compiled rules.kipukas modules for the source folder `folder`."""
    return build_root(folder) / "rules" / "kipukas"


def native_dir(folder: Path, environ: Mapping[str, str]) -> Path | None:
    """The folder of a compiled build made from the sources in `folder` as they are now, or None: not built,
    built from other sources, or the interpreted engine asked for (`ENV`)."""
    if environ.get(ENV, "") not in ("", "0"):
        return None
    found = build_dir(folder)
    try:
        built = (found / STAMP).read_text(encoding="ascii").strip()
    except OSError:
        return None
    return found if built == stamp(folder) else None


def running_engine() -> str:
    """Which engine this process runs: "compiled" when the game module was loaded from a build, else
    "interpreted" (read from the module itself, so it is true whatever chose it)."""
    from rules.kipukas import game

    return "interpreted" if str(game.__file__).endswith(".py") else "compiled"
