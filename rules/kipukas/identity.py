"""Card identity from the QR payload printed on a card's back.

Forms in circulation (see ARCHITECTURE, Identifiers):
- ``kpks.us/HMPU#0004?BFxDCJ``: short code, serial, and a per-copy token (a secret of the owner);
- ``https://www.kpks.us/frlU``: older cards, short code only, serial unknown;
- ``https://www.kipukas.cards/<slug>``: the binder page of a card, resolved through the catalog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.core.errors import PayloadError

_KPKS = re.compile(
    r"^(?:https?://)?(?:www\.)?kpks\.us/(?P<code>[A-Za-z0-9_-]{4})"
    r"(?:#(?P<serial>[0-9]{1,8}))?(?:\?(?P<token>[A-Za-z0-9_-]{1,64}))?/?$"
)
_BINDER = re.compile(
    r"^(?:https?://)?(?:www\.)?kipukas\.cards/(?:cards/)?(?P<slug>[a-z0-9_-]{1,80})/?$"
)


@dataclass(frozen=True, slots=True)
class CardRef:
    """What a payload says about a physical card. ``token`` must never be broadcast."""

    raw: str
    code: str | None
    serial: str | None
    token: str | None
    slug: str | None = None

    @property
    def physical_id(self) -> str:
        """``CODE#SERIAL`` (or ``CODE`` when the serial is unknown), the id used across the project."""
        if self.code is None:
            raise PayloadError(self.raw, "names a card by slug only; resolve it through the catalog first")
        return f"{self.code}#{self.serial}" if self.serial else self.code


def parse_payload(payload: str) -> CardRef:
    """Parse a Kipukas QR payload; raise `PayloadError` naming the payload if it is not one."""
    text = payload.strip()
    m = _KPKS.match(text)
    if m:
        return CardRef(raw=payload, code=m["code"], serial=m["serial"], token=m["token"])
    m = _BINDER.match(text)
    if m:
        return CardRef(raw=payload, code=None, serial=None, token=None, slug=m["slug"])
    raise PayloadError(payload, "not a Kipukas card payload (expected kpks.us/CODE#SERIAL or kipukas.cards/SLUG)")


def is_kipukas_payload(payload: str) -> bool:
    """True when `payload` has one of the Kipukas card forms (the catalog is not consulted)."""
    text = payload.strip()
    return bool(_KPKS.match(text) or _BINDER.match(text))
