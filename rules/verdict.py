"""The answer the rules give to an action: accepted, or rejected with the rule that forbids it."""

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
