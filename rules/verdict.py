"""What the rules say: the verdict on an action (accepted, or rejected with the rule that forbids it) and the
prompts for what they demand now."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Verdict:
    accepted: bool
    rule: str
    message: str

    @classmethod
    def ok(cls, rule: str, message: str) -> Verdict:
        return cls(True, rule, message)

    @classmethod
    def reject(cls, rule: str, message: str) -> Verdict:
        return cls(False, rule, message)


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the rules demand now. `blocking` prompts need an answer before play goes on."""

    player: str | None
    rule: str
    text: str
    blocking: bool = True
