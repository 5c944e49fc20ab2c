"""What the rules say: the verdict on an action (accepted, or rejected with the rule that forbids it) and the
prompts for what they demand now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Action(Protocol):
    """An action a verdict was given for: whatever a game's notation makes, as long as it writes its line."""

    def to_text(self) -> str: ...


class Verdict:
    """Accepted or rejected, the rule-book section that decided, and a message for players. An accepted
    action's message is its own notation unless the rules had notices; that text is made only when read
    (random self-play and replay never read it)."""

    __slots__ = ("_action", "_message", "accepted", "rule")

    def __init__(self, accepted: bool, rule: str, message: str | None = None, action: Action | None = None) -> None:
        self.accepted = accepted
        self.rule = rule
        self._message = message
        self._action = action

    @property
    def message(self) -> str:
        if self._message is None:
            self._message = self._action.to_text() if self._action is not None else ""
        return self._message

    @classmethod
    def ok(cls, rule: str, message: str) -> Verdict:
        return cls(True, rule, message)

    @classmethod
    def ok_action(cls, action: Action) -> Verdict:
        """Accepted with no notices: the message is the action's notation."""
        return cls(True, "", None, action)

    @classmethod
    def reject(cls, rule: str, message: str) -> Verdict:
        return cls(False, rule, message)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Verdict) and (self.accepted, self.rule, self.message) == \
            (other.accepted, other.rule, other.message)

    def __hash__(self) -> int:
        return hash((self.accepted, self.rule, self.message))

    def __repr__(self) -> str:
        return f"Verdict(accepted={self.accepted!r}, rule={self.rule!r}, message={self.message!r})"


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the rules demand now. `blocking` prompts need an answer before play goes on."""

    player: str | None
    rule: str
    text: str
    blocking: bool = True
