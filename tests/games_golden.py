"""Golden games for the games behind the interface (`rules.core`): whole games in canonical notation with
the verdict of every action, from each game's rule book.

File format (tests/golden/games/kaiju_*.game, tests/golden/games/tilemap_*.game):

    game kaiju seats=2                  the game and its configuration builder's keys (first line)
    # #combat_flow: a comment citing the book
    > red card HAYMAKER                 an action in canonical notation
    ok red card HAYMAKER; ...           accepted, with the engine's message
    rejected #actions: <message>        refused: the state must be unchanged
    show                                the whole state text follows, indented two spaces

`render(path)` replays the actions and renders the file as it should be; `check(path)` returns a unified
diff (empty when it matches). Regenerate after an intended rules change with
``python -m tests.games_golden --update tests/golden/games/kaiju_*.game`` and review the diff before committing.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable
from pathlib import Path

from rules.core.interface import Config, TableGame
from rules.core.registry import new_game
from rules.kaiju.decks import preconstructed

BUILDERS: dict[str, Callable[[dict[str, str]], Config]] = {
    "kaiju": lambda kv: preconstructed(int(kv.get("seats", "2"))),
    "tilemap": lambda kv: {"map": kv.get("map", "skirmish"), "seats": int(kv.get("seats", "2"))},
}


def start(line: str) -> TableGame:
    _, name, *pairs = line.split()
    kv = dict(p.split("=", 1) for p in pairs)
    return new_game(name, BUILDERS[name](kv) if name in BUILDERS else kv)


def render(path: Path) -> str:
    out: list[str] = []
    game: TableGame | None = None
    before = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("game "):
            game = start(line)
            out.append(line)
        elif line.startswith("> "):
            if game is None:
                raise ValueError(f"{path}: the 'game NAME ...' line must come first")
            before = game.to_text()
            verdict = game.apply(line[2:])
            out.append(line)
            if verdict.accepted:
                out.append(f"ok {verdict.message}")
            else:
                if game.to_text() != before:
                    raise AssertionError(f"{path}: {line!r} was rejected but changed the state")
                out.append(f"rejected {verdict.rule}: {verdict.message}")
        elif line == "show":
            if game is None:
                raise ValueError(f"{path}: 'show' before the 'game' line")
            out.append(line)
            out += ["  " + text for text in game.to_text().splitlines()]
        elif line.startswith(("ok", "rejected", "  ")):
            continue
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def check(path: Path) -> str:
    want = render(path)
    have = path.read_text(encoding="utf-8")
    return "".join(difflib.unified_diff(have.splitlines(True), want.splitlines(True), str(path), "rendered"))


if __name__ == "__main__":
    update = "--update" in sys.argv
    for name in (a for a in sys.argv[1:] if a != "--update"):
        p = Path(name)
        if update:
            p.write_text(render(p), encoding="utf-8")
        else:
            sys.stdout.write(check(p))
