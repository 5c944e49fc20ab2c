"""The organiser's page's backend: what a new game may be (seats, token colours, play styles) and the
decks registered with the front camera, so a judge starts a game without SSH.

The front camera's registration lives in the composition root's `tracker.front` (`FrontEnrolment`); the
service sees it through `Registrar`, so this room never imports `tracker.front`.
"""

from __future__ import annotations

from typing import Any, Protocol

from rules.kipukas.styles import STYLES
from tracker.errors import InputError


class Registrar(Protocol):
    """Deck registration with the front camera (`tracker.front.registration.FrontEnrolment`)."""

    def start(self, seat: str) -> None: ...

    def stop(self) -> None: ...

    def lines(self, seat: str) -> list[str]: ...

    def status(self) -> dict[str, Any]: ...


def play_styles() -> list[dict[str, Any]]:
    """The play styles (#playstyleoptions) the organiser page starts, domination first: two-seat styles that
    need no parameter (3-4 seats and Captive's exchanged cards start with `game new`)."""
    return [{"name": s.name, "title": s.title, "cycles": s.cycles} for s in STYLES.values()
            if s.implemented and s.seats == (2, 2) and not s.needs]


def style_body(name: str) -> dict[str, Any] | None:
    """A start row's ``style`` for the style named `name` (None for domination, the default)."""
    if not name or name == "domination":
        return None
    found = STYLES.get(name)
    if found is None or name not in {s["name"] for s in play_styles()}:
        known = ", ".join(s["name"] for s in play_styles())
        raise InputError(f"play style {name!r} is not one the organiser page starts (choose from {known}; "
                         "more seats and Captive start with kipukas-tracker game new)")
    return {"name": found.name, "cycles": found.cycles, "params": {}}


def decks_for(players: tuple[str, ...], given: dict[str, list[str]],
              registrar: Registrar | None) -> dict[str, list[str]]:
    """Each seat's deck: the lines pasted or uploaded, else the cards registered with the front camera."""
    decks = {}
    for seat in players:
        lines = [line for line in given.get(seat, []) if line.strip()]
        if not lines and registrar is not None:
            lines = registrar.lines(seat)
        if not lines:
            raise InputError(f"{seat}: no deck (paste or upload one, or register it with the front camera)")
        decks[seat] = lines
    return decks
