"""The import directions of docs/architecture.md, as data, and a checker that names the offending import.

Every import counts: at module level, inside functions (lazy) and under `TYPE_CHECKING`, because a circle
or a wrong-way arrow is a design fact whether or not it runs at import time.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("rules", "vision", "calibration", "tracker", "web", "hub", "broadcast", "training")

# (importer prefix, allowed prefixes of our own modules); the first matching importer prefix decides.
# An importer always may import modules of its own room.
ALLOWED: tuple[tuple[str, tuple[str, ...]], ...] = (
    # the game interface knows no game; only its registry names them (docs/games.md)
    ("rules.core.registry", ("rules.core", "rules.kipukas", "rules.kaiju", "rules.tilemap")),
    ("rules.core", ("rules.core",)),
    # each game builds on the interface alone, never on another game's modules
    ("rules.kipukas", ("rules.kipukas", "rules.core")),
    ("rules.kaiju", ("rules.kaiju", "rules.core")),
    ("rules.tilemap", ("rules.tilemap", "rules.core")),
    ("rules", ("rules",)),
    ("vision.synth", ("vision", "calibration")),
    ("vision", ("vision", "calibration")),
    ("calibration", ("calibration",)),
    # room broadcasts encoded and framed once: imports nothing of ours, used by web and hub
    ("broadcast", ("broadcast",)),
    # the patch and dice classifiers' training: renders scenes (vision.synth) on the packaged map; nothing imports it
    ("training", ("training", "vision", "calibration", "rules.kipukas.board_map", "tracker.overhead.layout")),
    ("web", ("web", "tracker.api", "broadcast")),
    # the tournament hub verifies records (tracker.record) and reads its config like a table's; only the
    # composition root (tracker.commands, tracker.runtime) imports it
    ("hub", ("hub", "tracker.record", "tracker.errors", "tracker.config", "broadcast")),
    ("tracker.api", ("tracker.errors", "tracker.service.seats")),
    ("tracker.config", ("tracker.errors",)),
    ("tracker.errors", ()),
    ("tracker.sources", ("tracker.sources", "tracker.errors", "tracker.config")),
    ("tracker.front", ("tracker.front", "tracker.sources", "tracker.errors", "vision", "rules")),
    ("tracker.overhead", ("tracker.overhead", "tracker.errors", "vision", "calibration", "rules.kipukas.board_map")),
    ("tracker.record", ("tracker.record", "tracker.errors")),
    ("tracker.table", ("tracker.table", "tracker.record", "tracker.errors", "rules")),
    ("tracker.service", ("tracker.service", "tracker.table", "tracker.record", "tracker.overhead",
                         "tracker.errors", "rules")),
    # the composition root: wires every room, and `web`, together
    ("tracker.runtime", PACKAGES),
    ("tracker.commands", PACKAGES),
    ("tracker.cli", ("tracker",)),
    ("tracker", ("tracker.errors",)),  # the package's own __init__
)
# Third-party modules a room must not touch: the rules stay pure (no images, no I/O).
FORBIDDEN_THIRD_PARTY: dict[str, tuple[str, ...]] = {
    "rules": ("cv2", "sqlite3", "socket", "flask", "flask_socketio", "requests", "subprocess"),
}
# The reader part of `vision` never imports the renderer (a test renderer must not decide a reading).
RENDERER = "vision.synth"


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    target: str  # dotted module name (ours resolved to the module, not the symbol)
    where: str  # "path:line"


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(root: Path, name: str) -> str:
    """`name` if it is a module or package of ours, else its longest prefix that is one."""
    parts = name.split(".")
    while parts:
        base = root.joinpath(*parts)
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return ".".join(parts)
        parts.pop()
    return name


def collect(root: Path, packages: tuple[str, ...] = PACKAGES) -> list[Import]:
    """Every import statement in the packages under `root`, with relative imports made absolute."""
    out: list[Import] = []
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            module = _module_name(root, path)
            is_pkg = path.name == "__init__.py"
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                where = f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Import):
                    out += [Import(module, _resolve(root, a.name), where) for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    if node.level:
                        base = module.split(".")
                        base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                        name = ".".join([*base, node.module] if node.module else base)
                    else:
                        name = node.module or ""
                    if name.split(".")[0] in packages:
                        # `from pkg import submodule` imports the submodule
                        out += [Import(module, _resolve(root, f"{name}.{a.name}"), where) for a in node.names]
                    else:
                        out.append(Import(module, name, where))
    return out


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(imports: list[Import], packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """Each import that breaks a direction rule, as one line naming the file, the line and the rule."""
    found: list[str] = []
    for imp in imports:
        ours = imp.target.split(".")[0] in packages
        top = imp.importer.split(".")[0]
        if not ours:
            bad = [m for m in FORBIDDEN_THIRD_PARTY.get(top, ()) if _within(imp.target, m)]
            if bad:
                found.append(f"{imp.where}: {imp.importer} imports {imp.target}, which `{top}` must not use")
            continue
        if _within(imp.target, RENDERER) and _within(imp.importer, "vision") and not _within(imp.importer, RENDERER):
            found.append(f"{imp.where}: {imp.importer} imports the renderer {imp.target}: the reader must not")
            continue
        rule = next(((p, allowed) for p, allowed in ALLOWED if _within(imp.importer, p)), None)
        if rule is None:
            found.append(f"{imp.where}: {imp.importer} is in no room of docs/architecture.md")
            continue
        prefix, allowed = rule
        if not any(_within(imp.target, a) for a in allowed):
            found.append(f"{imp.where}: {imp.importer} imports {imp.target}, but `{prefix}` may import only "
                         f"{', '.join(allowed) or 'nothing of ours'}")
    return found


def cycles(imports: list[Import], packages: tuple[str, ...] = PACKAGES) -> list[list[str]]:
    """The import circles among our modules (strongly connected components of more than one module, or a
    module importing itself), each as a list of module names."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        if imp.target.split(".")[0] in packages and imp.target != imp.importer:
            # a package's __init__ importing its own children is how packages re-export, not a circle
            if _within(imp.target, imp.importer):
                continue
            graph.setdefault(imp.importer, set()).add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def where_in_cycle(imports: list[Import], cycle: list[str]) -> list[str]:
    """The import statements that make up `cycle`, for the failure message."""
    members = set(cycle)
    return [f"{i.where}: {i.importer} -> {i.target}" for i in imports if i.importer in members and i.target in members]
