"""Deck registration: collect the cards a player shows into a deck list, and the deck file format.

A deck file is UTF-8 text with one QR payload per line; lines starting with ``#`` are comments and blank
lines are ignored. Payloads keep the per-copy token (the file belongs to the deck's owner). Whether the
list makes a legal deck is the rules' decision (`check()` asks `rules.kipukas.decks.check_deck`);
registration only refuses the same physical card twice: same ``CODE#SERIAL`` for serialised cards, same
payload for older cards and binder links (copies of those cannot be told apart).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.core.errors import RulesError
from rules.kipukas.decks import DeckReport, check_deck
from rules.kipukas.identity import parse_payload
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

        A payload that is not a Kipukas card raises `rules.core.errors.PayloadError`.
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
        # The payloads hold each card's private token: readable by the owner only.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("\n".join([*header, *self.payloads]) + "\n")


def read_deck_file(path: Path) -> list[str]:
    """The payload lines of a deck file (comments and blank lines dropped, surrounding spaces stripped)."""
    text = Path(path).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


class FrontEnrolment:
    """Registering decks with the front camera from the organiser's page: while a seat is being registered,
    every card shown to the front camera goes into that seat's deck list instead of to the game (`offer`).
    Thread-safe (the camera loop offers, the page starts, stops and reads). The payloads, with their
    private tokens, stay here: the page sees card names and counts only."""

    def __init__(self, names: Callable[[str], str] | None = None) -> None:
        self._lock = threading.Lock()
        self._seat: str | None = None
        self._decks: dict[str, DeckRegistration] = {}
        self._problems: list[str] = []
        self._names = names or _label

    def start(self, seat: str) -> None:
        """Register `seat`'s deck from now on (a fresh list)."""
        with self._lock:
            self._seat = seat
            self._decks[seat] = DeckRegistration(owner=seat)
            self._problems = []

    def stop(self) -> None:
        with self._lock:
            self._seat = None

    def offer(self, payload: str) -> bool:
        """A card shown to the front camera: True when a registration took it (the game must not)."""
        with self._lock:
            if self._seat is None:
                return False
            try:
                self._decks[self._seat].add(payload)
            except (DuplicateCard, RulesError) as exc:
                self._problems = [*self._problems[-9:], str(exc)]
            return True

    def lines(self, seat: str) -> list[str]:
        with self._lock:
            deck = self._decks.get(seat)
            return deck.lines() if deck is not None else []

    def status(self) -> dict[str, Any]:
        """What the organiser's page shows: the seat being registered, each seat's cards by name and the
        rules' verdict on the list so far."""
        with self._lock:
            decks = {seat: (deck.lines(), deck.check()) for seat, deck in self._decks.items()}
            seat, problems = self._seat, list(self._problems)
        return {"registering": seat, "problems": problems,
                "decks": {s: {"count": len(lines), "cards": [self._names(p) for p in lines],
                              "valid": report.valid, "deck_problems": list(report.problems)}
                          for s, (lines, report) in decks.items()}}


def _label(payload: str) -> str:
    """``HMPU#0004 Hilbert: King of Avian Frogs · Species · KEAL: ...``: a card by its id and name."""
    from tracker.front.names import card_label

    return f"{physical_key(payload)} {card_label(parse_payload(payload).code)}"
