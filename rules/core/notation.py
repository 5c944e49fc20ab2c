"""The word-level grammar shared by the games' notations: one action per line, words separated by spaces,
the acting seat first. `Words` reads a line word by word and fails with a `NotationError` naming the line,
the word's position and what was expected, so an error on a phone or in a golden file points at the word.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.core.errors import RulesError


class NotationError(RulesError, ValueError):
    """Text that is not a line of the game's notation; names the text, the word position and the problem."""

    def __init__(self, text: str, problem: str, position: int | None = None) -> None:
        self.text = text
        self.problem = problem
        self.position = position
        where = f" (word {position + 1})" if position is not None else ""
        super().__init__(f"{text!r}{where}: {problem}")


class Words:
    """A cursor over the words of one notation line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.words = text.split()
        self.at = 0

    def error(self, problem: str) -> NotationError:
        return NotationError(self.text, problem, min(self.at, max(len(self.words) - 1, 0)))

    def word(self, what: str) -> str:
        if self.at >= len(self.words):
            raise self.error(f"expected {what} after the last word")
        self.at += 1
        return self.words[self.at - 1]

    def choice(self, what: str, options: Sequence[str]) -> str:
        word = self.word(what)
        if word not in options:
            self.at -= 1
            raise self.error(f"{what} must be one of {', '.join(options)}, got {word!r}")
        return word

    def number(self, what: str, low: int = 0, high: int | None = None) -> int:
        word = self.word(what)
        if not word.lstrip("-").isdigit():
            self.at -= 1
            raise self.error(f"{what} must be a whole number, got {word!r}")
        value = int(word)
        if value < low or (high is not None and value > high):
            self.at -= 1
            raise self.error(f"{what} must be between {low} and {high if high is not None else 'any'}, got {value}")
        return value

    def optional(self, word: str) -> bool:
        """Consume `word` if it comes next."""
        if self.at < len(self.words) and self.words[self.at] == word:
            self.at += 1
            return True
        return False

    def rest(self) -> list[str]:
        out = self.words[self.at:]
        self.at = len(self.words)
        return out

    def more(self) -> bool:
        return self.at < len(self.words)

    def end(self) -> None:
        if self.at < len(self.words):
            raise self.error(f"unexpected word {self.words[self.at]!r} after a complete action")


Arg = tuple[str, "str | tuple[str, ...]"]
"""One argument of a verb: its name and its kind: ``"word"``, ``"int"`` (signed), ``"count"`` (>= 0) or the
tuple of words it may be."""


@dataclass(frozen=True, slots=True)
class Act:
    """One action of a game built on the shared grammar: who, the verb, and the verb's arguments as words."""

    seat: str
    verb: str
    args: tuple[str, ...] = ()

    def to_text(self) -> str:
        return " ".join((self.seat, self.verb, *self.args))

    def int(self, i: int) -> int:
        return int(self.args[i])


class Grammar:
    """A game's notation: which seats may speak and each verb's arguments, in order (optional trailing
    arguments are not supported on purpose: one spelling per action)."""

    def __init__(self, verbs: dict[str, tuple[Arg, ...]], judge_verbs: tuple[str, ...] = ()) -> None:
        self.verbs = verbs
        self.judge_verbs = judge_verbs

    def parse(self, text: str, seats: Sequence[str]) -> Act:
        w = Words(text)
        seat = w.choice("the acting seat", (*seats, "judge"))
        verbs = self.judge_verbs if seat == "judge" else tuple(v for v in self.verbs if v not in self.judge_verbs)
        verb = w.choice("a verb", verbs)
        args: list[str] = []
        for name, kind in self.verbs[verb]:
            if kind == "int":
                args.append(str(w.number(name, low=-999, high=999)))
            elif kind == "count":
                args.append(str(w.number(name, low=0, high=999)))
            elif kind == "word":
                args.append(w.word(name))
            else:
                args.append(w.choice(name, kind))
        w.end()
        return Act(seat, verb, tuple(args))

    def usage(self, verb: str) -> str:
        return " ".join(("<seat>", verb, *(f"<{name}>" for name, _ in self.verbs[verb])))
