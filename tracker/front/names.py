"""Cards by name for the command line: title, type and KEAL means from the packaged catalog."""

from __future__ import annotations

from functools import lru_cache

from rules.core.errors import PayloadError
from rules.kipukas.catalog import Card, Catalog


@lru_cache(maxsize=1)
def _catalog() -> Catalog:
    return Catalog.packaged()


def card_info(code: str | None) -> Card | None:
    """The catalog's card for `code` (``HMPU``), or None for a code it does not know."""
    if not code:
        return None
    try:
        return _catalog().card(code)
    except PayloadError:
        return None


def card_label(code: str | None) -> str:
    """``Hilbert: King of Avian Frogs · Species · KEAL: Kick 2, Eat 1, ...`` (or the code, unknown)."""
    info = card_info(code)
    if info is None:
        return f"{code} (not in the catalog)"
    means = ", ".join(f"{m.name} {m.count}" for m in info.keal_means)
    return f"{info.title} · {info.type}" + (f" · KEAL: {means}" if means else "")


def card_json(code: str | None) -> dict[str, object]:
    info = card_info(code)
    if info is None:
        return {"title": None, "type": None, "means": []}
    return {"title": info.title, "type": info.type,
            "means": [{"name": m.name, "tolerates": m.count} for m in info.keal_means]}
