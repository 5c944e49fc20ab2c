"""Golden game files: whole games in canonical notation with the expected outcome of every action.

File format (tests/golden/*.game):

    # comment lines and blank lines are kept as they are
    > red affinity Avian            an action in canonical notation
    ok                              accepted ...
      phase affinity turn 0 ...     ... followed by the whole state text, indented two spaces
    > red move HMPU#0001 T7-T1
    rejected #movement: <message>   rejected: the state must be unchanged, so no state follows

An optional ``style NAME key=value ...`` line before the first action picks a play style and its
parameters (rules.kipukas.styles), e.g. ``style king-of-the-hill hill=3 hold=2``; without it the game is Domination.

`render(path)` replays the actions and renders the file as it should be; `check(path)` compares and returns
a readable unified diff (empty when the file matches). Regenerate after an intended rules change with
``python -m tests.golden_runner --update tests/golden/*.game`` and review the diff before committing.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from rules.kipukas.decks import check_deck
from rules.kipukas.game import Game

DECK_PREFIX = "deck "
STYLE_PREFIX = "style "


def render(path: Path) -> str:
    """Replay `path`'s actions and return the file text they produce."""
    out: list[str] = []
    decks: dict[str, list[str]] = {}
    style: dict[str, object] = {}
    game: Game | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(STYLE_PREFIX):
            name, *params = line.split()[1:]
            style = {"style": name}
            for param in params:
                key, _, value = param.partition("=")
                style[key] = int(value) if key in ("cycles", "hold", "limit", "camps") else value
            out.append(line)
        elif line.startswith(DECK_PREFIX):
            _, player, cards = line.split(maxsplit=2)
            decks[player] = cards.split(",")
            out.append(line)
        elif line.startswith("> "):
            if game is None:
                if not {"red", "blue"} <= set(decks):
                    raise ValueError(f"{path}: 'deck red ...' and 'deck blue ...' lines (and green, yellow for "
                                     "more seats) must come first")
                for player, cards in decks.items():
                    if len(cards) == 30:
                        report = check_deck(cards)
                        if not report.valid:
                            raise ValueError(f"{path}: {player}'s deck: {report.problems}")
                game = Game.new(decks, **style)  # type: ignore[arg-type]
            out.append(line)
            before = game.to_text()
            verdict = game.apply(line[2:])
            if verdict.accepted:
                out.append("ok")
                out.extend("  " + s for s in game.to_text().splitlines())
            else:
                if game.to_text() != before:
                    raise AssertionError(f"{path}: rejected {line[2:]!r} changed the state")
                out.append(f"rejected {verdict.rule}: {verdict.message}")
        elif line.startswith("#") or not line.strip():
            out.append(line)
    return "\n".join(out) + "\n"


def check(path: Path) -> str:
    expected = path.read_text(encoding="utf-8")
    actual = render(path)
    if actual == expected:
        return ""
    return "".join(difflib.unified_diff(expected.splitlines(keepends=True), actual.splitlines(keepends=True),
                                        f"{path} (expected)", f"{path} (replayed)", n=4))


def main(argv: list[str]) -> int:
    update = "--update" in argv
    status = 0
    for name in (a for a in argv if a != "--update"):
        path = Path(name)
        if update:
            path.write_text(render(path), encoding="utf-8")
            continue
        diff = check(path)
        if diff:
            print(diff)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
