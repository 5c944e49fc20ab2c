"""The word-level grammar shared by the games' notations: one action per line, words separated by spaces,
the acting seat first. `Words` reads a line word by word and fails with a `NotationError` naming the line,
the word's position and what was expected, so an error on a phone or in a golden file points at the word.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.errors import RulesError


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
