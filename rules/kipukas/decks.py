"""Deck validation (#deck_structure, #incubation_cards).

A deck is 30 cards plus at most one personal effect card, within the copy limits per card type; incubation
cards cannot be played. Each line of a deck list is a QR payload or a bare 4-character code (format in
docs/deck-format.md). The same physical card (``CODE#SERIAL``) listed twice is an error: one card cannot
be in a deck twice.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from rules.core.errors import PayloadError
from rules.kipukas.catalog import Card, Catalog
from rules.kipukas.identity import parse_payload

DECK_SIZE = 30
COPY_LIMITS = {"Character": 1, "Species": 2, "TerrainFeature": 3, "Trap": 3, "Sabotage": 3, "Item": 4,
               "PersonalEffect": 0, "Incubation": 0}
_BARE = re.compile(r"^(?P<code>[A-Za-z0-9_-]{4})(?:#(?P<serial>[0-9]{1,8}))?$")


@dataclass(frozen=True, slots=True)
class DeckEntry:
    line: int
    card: Card
    physical_id: str  # CODE#SERIAL, or CODE when the payload carries no serial
    token: str | None = field(default=None, repr=False)  # printed per copy; a secret of the owner


@dataclass(frozen=True, slots=True)
class DeckReport:
    valid: bool
    problems: list[str]
    cards: list[DeckEntry]
    personal_effect: DeckEntry | None = None


def parse_line(text: str, catalog: Catalog) -> DeckEntry | None:
    """One deck line as an entry (None for blank and comment lines); `PayloadError` if unreadable."""
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    bare = _BARE.match(stripped)
    if bare:
        return DeckEntry(0, catalog.card(bare["code"]), stripped)
    ref = parse_payload(stripped)
    card = catalog.resolve(ref)
    pid = f"{card.code}#{ref.serial}" if ref.serial else card.code
    return DeckEntry(0, card, pid, ref.token)


def check_deck(lines: list[str], catalog: Catalog | None = None) -> DeckReport:
    """Check a deck list; every problem names the line it comes from (1-based)."""
    catalog = catalog or Catalog.packaged()
    problems: list[str] = []
    cards: list[DeckEntry] = []
    personal: DeckEntry | None = None
    seen: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        try:
            parsed = parse_line(text, catalog)
        except PayloadError as exc:
            problems.append(f"line {number}: {exc.payload.strip()!r}: {exc.problem}")
            continue
        if parsed is None:
            continue
        entry = DeckEntry(number, parsed.card, parsed.physical_id, parsed.token)
        if "#" in entry.physical_id:
            if entry.physical_id in seen:
                problems.append(f"line {number}: {entry.physical_id} is the same physical card as line "
                                f"{seen[entry.physical_id]} (#deck_structure)")
                continue
            seen[entry.physical_id] = number
        kind = entry.card.type
        if kind == "Incubation":
            problems.append(f"line {number}: {entry.card.title} ({entry.card.code}) is an incubation card; "
                            "incubation cards cannot be played (#incubation_cards)")
        elif kind == "PersonalEffect":
            if personal is not None:
                problems.append(f"line {number}: a second personal effect ({entry.card.title}); a deck takes at most "
                                f"one, already on line {personal.line} (#deck_structure)")
            else:
                personal = entry
        else:
            cards.append(entry)
    counts = Counter(e.card.code for e in cards)
    for code, n in counts.items():
        card = catalog.card(code)
        limit = COPY_LIMITS[card.type]
        if n > limit:
            where = ", ".join(str(e.line) for e in cards if e.card.code == code)
            problems.append(f"lines {where}: {n} copies of {card.title} ({code}); a deck takes at most {limit} "
                            f"{card.type} copies (#deck_structure)")
    if len(cards) != DECK_SIZE:
        problems.append(f"deck has {len(cards)} cards besides the personal effect; it must have exactly "
                        f"{DECK_SIZE} (#deck_structure)")
    return DeckReport(not problems, problems, cards, personal)
