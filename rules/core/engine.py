"""`SnapshotEngine`: a `TableGame` built from a game's state, its action parser and its step function.

A game supplies a state with a cheap `clone()` (per-player records copied one level down, cards as
immutable strings), `parse`/`fmt` for its notation, `step` that changes a clone or raises `Illegal`
naming the rule anchor, and `candidates` (actions worth trying now). The engine keeps the state before
every accepted action, so `undo` restores it exactly, and decides `legal_actions` by trial application,
so every listed action is accepted by `apply` by construction.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, Protocol, TypeVar

from rules.core.errors import RulesError
from rules.core.interface import JUDGE, GameResult, Prompt, Verdict, View
from rules.core.notation import NotationError


class Illegal(RulesError):
    """An action the rules forbid now: the rule anchor (``#section`` of the book) and why."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        self.message = message
        super().__init__(f"{message} ({rule})")


class Clonable(Protocol):
    def clone(self: S) -> S: ...


S = TypeVar("S", bound=Clonable)
A = TypeVar("A")


class SnapshotEngine(ABC, Generic[S, A]):
    """The shared machinery of the games' engines (see the module docstring)."""

    name = ""

    def __init__(self, state: S, seats: tuple[str, ...]) -> None:
        self.state = state
        self._seats = seats
        self._history: list[tuple[str, S]] = []

    # --- what a game supplies -------------------------------------------------------------------------
    @abstractmethod
    def parse(self, line: str) -> A:
        """The action a notation line names; `NotationError` otherwise."""

    @abstractmethod
    def fmt(self, action: A) -> str:
        """The canonical line of `action`."""

    @abstractmethod
    def step(self, state: S, action: A) -> str:
        """Apply `action` to `state` (a clone, free to change) and return what happened; `Illegal` if the
        rules forbid it (the clone is then thrown away)."""

    @abstractmethod
    def candidates(self, state: S, seat: str | None) -> list[A]:
        """Actions worth trying now (a superset of the legal ones, for `seat` only when given)."""

    @abstractmethod
    def prompts_of(self, state: S) -> list[Prompt]: ...

    @abstractmethod
    def view_of(self, state: S, viewer: str) -> View: ...

    @abstractmethod
    def result_of(self, state: S) -> GameResult | None: ...

    @abstractmethod
    def text_of(self, state: S) -> str: ...

    # --- the TableGame interface ----------------------------------------------------------------------
    @property
    def seats(self) -> tuple[str, ...]:
        return self._seats

    def apply(self, line: str) -> Verdict:
        try:
            action = self.parse(line)
        except NotationError as exc:
            return Verdict.reject("notation", str(exc))
        return self.apply_action(action)

    def apply_action(self, action: A) -> Verdict:
        text = self.fmt(action)
        if self.result_of(self.state) is not None:
            return Verdict.reject("#win", f"{text}: the game is over")
        new = self.state.clone()
        try:
            message = self.step(new, action)
        except Illegal as exc:
            return Verdict.reject(exc.rule, f"{text}: {exc.message}")
        self._history.append((text, self.state))
        self.state = new
        return Verdict.ok("", message or text)

    def push(self, line: str) -> Verdict:
        """Like `apply`, but raise `Illegal` for a refused line (scripts, golden files, tests)."""
        verdict = self.apply(line)
        if not verdict.accepted:
            raise Illegal(verdict.rule, verdict.message)
        return verdict

    def undo(self) -> str:
        if not self._history:
            raise IndexError("nothing to undo: no action has been accepted")
        text, previous = self._history.pop()
        self.state = previous
        return text

    def is_legal(self, action: A) -> bool:
        if self.result_of(self.state) is not None:
            return False
        try:
            self.step(self.state.clone(), action)
        except Illegal:
            return False
        return True

    def known_legal(self, state: S, action: A) -> bool:
        """True when a game can tell without trial that a candidate is legal now (a cheap shortcut for
        `legal_actions`; the property tests apply every listed action, so a wrong shortcut is caught)."""
        return False

    def legal(self, seat: str | None = None) -> list[A]:
        if self.result_of(self.state) is not None:
            return []
        return [a for a in self.candidates(self.state, seat) if self.known_legal(self.state, a) or self.is_legal(a)]

    def legal_actions(self, seat: str | None = None) -> list[str]:
        return [self.fmt(a) for a in self.legal(seat)]

    def prompts(self) -> list[Prompt]:
        return self.prompts_of(self.state)

    def view(self, viewer: str) -> View:
        return self.view_of(self.state, viewer)

    def hidden_words(self, action: A) -> tuple[int, ...]:
        """Which argument positions of `action` only its seat and judges may read (none by default)."""
        return ()

    def line_for(self, line: str, viewer: str) -> str:
        """`line` with the words of `hidden_words` replaced by ``?`` unless `viewer` is judge or the acting
        seat (text that is not notation is shown only to judges: it may name anything)."""
        if viewer == JUDGE:
            return line
        try:
            action = self.parse(line)
        except NotationError:
            return "?"
        words = self.fmt(action).split()
        if not words or words[0] == viewer:
            return line
        hidden = self.hidden_words(action)
        if not hidden:
            return line
        verb_at = 2  # seat, verb, then the arguments
        return " ".join("?" if i - verb_at in hidden else w for i, w in enumerate(words))

    def canonical(self, line: str) -> str:
        return self.fmt(self.parse(line))

    def to_text(self) -> str:
        return self.text_of(self.state)

    @property
    def result(self) -> GameResult | None:
        return self.result_of(self.state)

    @property
    def history(self) -> tuple[str, ...]:
        return tuple(text for text, _ in self._history)
