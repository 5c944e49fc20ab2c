"""Kipukas behind the game interface: a thin adapter over `rules.kipukas.game.Game`.

The adapter only translates between the interface's notation lines, seats, views and result and the
engine's own objects; the engine's modules know nothing of the interface.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rules.core.interface import JUDGE, Config, GameResult, Prompt, Verdict, View
from rules.core.notation import NotationError
from rules.kipukas.game import Game
from rules.kipukas.notation import Action, parse
from rules.kipukas.notation_words import NotationError as KipukasNotationError
from rules.kipukas.styles import StyleError

__all__ = ["KipukasGame", "new"]

_WINNER = re.compile(r"^(red|blue|green|yellow) wins")
_HIDDEN_ZONES = ("hand", "deck", "aside")
_PUBLIC_ZONES = ("discard", "prison")  # as tracker.service.views
_WORD = re.compile(r"[A-Za-z0-9_#-]+")


class KipukasGame:
    """`TableGame` for Kipukas of the rule book (seed 000): two seats, or 3-4 in Mass conflict / Band together."""

    name = "kipukas"

    def __init__(self, game: Game) -> None:
        self.game = game
        self._lines: list[str] = []
        self._listed: dict[str, Action] = {}  # the last legal_actions() by text: applying one skips parsing

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(self.game.state.players)

    def apply(self, line: str) -> Verdict:
        action = self._listed.get(line)
        if action is None:
            try:
                action = parse(line)
            except KipukasNotationError as exc:
                return Verdict.reject("notation", str(exc))
        verdict = self.game.apply(action)
        if verdict.accepted:
            self._lines.append(action.to_text())
        return verdict

    def undo(self) -> str:
        action = self.game.undo()
        self._lines.pop()
        return action.to_text()

    def legal_actions(self, seat: str | None = None) -> list[str]:
        """The engine's legal actions as lines; they are remembered, so applying one of them skips the
        notation parser (a parse costs far more than a step of the engine)."""
        actions = [a for a in self.game.legal_actions() if seat is None or a.player == seat]
        self._listed = {a.to_text(): a for a in actions}
        return list(self._listed)

    def prompts(self) -> list[Prompt]:
        return self.game.prompts()

    def line_for(self, line: str, viewer: str) -> str:
        """Card ids a viewer may not know (another seat's hidden or face-down cards, as `view` hides them)
        become ``?``; judges read the whole line. The Kipukas pages keep their own, richer projection
        (`tracker.service.views`); this one is for code that speaks only the interface."""
        if viewer == JUDGE:
            return line
        cards = self.game.state.cards

        def word(m: re.Match[str]) -> str:
            c = cards.get(m[0])
            if c is None or c.owner == viewer or c.zone in _PUBLIC_ZONES or (c.zone == "play" and c.revealed):
                return m[0]
            return "?"

        return _WORD.sub(word, line)

    def canonical(self, line: str) -> str:
        try:
            return parse(line).to_text()
        except KipukasNotationError as exc:
            raise NotationError(line, exc.problem) from exc

    def view(self, viewer: str) -> View:
        """Hands, decks and cards set aside are named only to their owner and judges; souls played face
        down only to their owner and judges (the rule book's hidden information). Territory claims are
        public (``claims``: territory -> "owner kind")."""
        s = self.game.state
        players: dict[str, object] = {}
        for seat in self.game.state.players:
            sees = viewer in (seat, JUDGE)
            zones: dict[str, object] = {}
            for zone in (*_HIDDEN_ZONES, "discard", "effect"):
                ids = [c.id for c in s.in_zone(zone, seat)]
                zones[zone] = ids if sees or zone not in _HIDDEN_ZONES else len(ids)
            players[seat] = zones
        board = []
        for c in s.in_zone("play") + s.in_zone("prison"):
            shown = c.revealed or viewer in (c.owner, JUDGE)
            board.append({"card": c.id if shown else None, "owner": c.owner, "at": c.at, "revealed": c.revealed})
        claims = {t: f"{owner} {kind}" for t, (owner, kind) in sorted(s.claims.items())}
        return {"game": self.name, "phase": s.phase, "turn": s.turn, "active": s.active, "players": players,
                "board": board, "claims": claims, "result": s.result}

    def to_text(self) -> str:
        return self.game.to_text()

    @property
    def result(self) -> GameResult | None:
        text = self.game.result
        if text is None:
            return None
        won = _WINNER.match(text)
        return GameResult((won.group(1),) if won else (), text, "#win")

    @property
    def history(self) -> tuple[str, ...]:
        return tuple(self._lines)


def new(config: Config) -> KipukasGame:
    """A Kipukas game from `config`: ``decks`` (seat -> card ids), optional ``style``, ``cycles`` and the
    style's other parameters. Errors name the key."""
    decks = config.get("decks")
    if not isinstance(decks, Mapping) or not all(isinstance(v, Sequence) and not isinstance(v, str)
                                                  for v in decks.values()):
        raise StyleError("kipukas: config key 'decks' must map each seat (red, blue) to a list of card ids")
    style = config.get("style", "domination")
    if not isinstance(style, str):
        raise StyleError(f"kipukas: config key 'style' must be a style name, got {style!r}")
    cycles = config.get("cycles")
    if cycles is not None and not isinstance(cycles, int):
        raise StyleError(f"kipukas: config key 'cycles' must be a whole number, got {cycles!r}")
    params: dict[str, Any] = {k: v for k, v in config.items() if k not in ("decks", "style", "cycles")}
    game = Game.new({str(k): [str(c) for c in v] for k, v in decks.items()}, style=style, cycles=cycles, **params)
    return KipukasGame(game)
