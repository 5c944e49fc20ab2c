"""What stands on each stand of the map, as the tracker compares it between camera and record."""

from __future__ import annotations

from dataclasses import dataclass

EMPTY_KIND = "empty"
KINDS = ("empty", "capital", "basecamp", "soul")


@dataclass(frozen=True, slots=True)
class StandValue:
    """The content of one stand: kind, owner colour and (for soul tokens) how many are stacked."""

    kind: str = EMPTY_KIND
    owner: str | None = None
    count: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"stand kind {self.kind!r} is not one of {', '.join(KINDS)}")

    @property
    def empty(self) -> bool:
        return self.kind == EMPTY_KIND

    def visible(self) -> StandValue:
        """What a camera straight above can tell: a stack of soul tokens looks like one token."""
        return StandValue(self.kind, self.owner, 1) if self.kind == "soul" and self.count > 1 else self

    def text(self) -> str:
        if self.empty:
            return "empty"
        stack = f" x{self.count}" if self.kind == "soul" and self.count > 1 else ""
        return f"{self.owner} {self.kind}{stack}"


EMPTY = StandValue()
