"""Deck registration: collect the cards a player shows into a deck list, and the deck file format.

A deck file is UTF-8 text with one QR payload per line; lines starting with ``#`` are comments and blank
lines are ignored. Payloads keep the per-copy token (the file belongs to the deck's owner). Whether the
list makes a legal deck is the rules' decision (`check()` asks `rules.decks.check_deck`);
registration only refuses the same physical card twice: same ``CODE#SERIAL`` for serialised cards, same
payload for older cards and binder links (copies of those cannot be told apart).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rules.decks import DeckReport, check_deck
from rules.identity import parse_payload
from tracker.errors import TrackerError


class DuplicateCard(TrackerError):
    """The same physical card was shown twice for one deck."""


def physical_key(payload: str) -> str:
    """What makes two payloads the same physical card (see the module docstring)."""
    ref = parse_payload(payload)
    if ref.code is not None and ref.serial:
        return f"{ref.code}#{ref.serial}"
    return payload.strip()


@dataclass
class DeckRegistration:
    """The growing deck list of one player, in the order the cards were shown."""

    owner: str = ""
    payloads: list[str] = field(default_factory=list)
    _keys: dict[str, str] = field(default_factory=dict, repr=False)

    def add(self, payload: str) -> str:
        """Add a shown card; return its physical key. `DuplicateCard` if it is already in the deck.

        A payload that is not a Kipukas card raises `rules.errors.PayloadError`.
        """
        key = physical_key(payload)
        if key in self._keys:
            raise DuplicateCard(f"{key} is already in the deck (shown as {self._keys[key]!r})")
        self._keys[key] = payload.strip()
        self.payloads.append(payload.strip())
        return key

    def lines(self) -> list[str]:
        """The deck list as the rules' `check_deck` takes it: one payload per line."""
        return list(self.payloads)

    def check(self) -> DeckReport:
        """The rules' verdict on the deck as registered so far (30 cards, copy limits, ...)."""
        return check_deck(self.lines())

    def write(self, path: Path) -> None:
        """Write the deck file (a comment header naming the owner, then one payload per line)."""
        header = [f"# Kipukas deck{' of ' + self.owner if self.owner else ''}: {len(self.payloads)} cards"]
        Path(path).write_text("\n".join([*header, *self.payloads]) + "\n", encoding="utf-8")


def read_deck_file(path: Path) -> list[str]:
    """The payload lines of a deck file (comments and blank lines dropped, surrounding spaces stripped)."""
    text = Path(path).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
