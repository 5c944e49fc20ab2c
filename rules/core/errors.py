"""Errors raised by the rules package; each names the input it was given and the rule section."""

from __future__ import annotations


class RulesError(Exception):
    """Base class for every error the rules package raises."""


class MapFileError(RulesError, ValueError):
    """A map file is unreadable or does not follow the `kipukas-map/1` schema."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        self.source = source
        self.key = key
        self.problem = problem
        super().__init__(f"{source}: {key}: {problem}")


class PayloadError(RulesError, ValueError):
    """A QR payload is not a Kipukas card payload, or names a card the catalog does not know."""

    def __init__(self, payload: str, problem: str) -> None:
        self.payload = payload
        self.problem = problem
        super().__init__(f"{payload!r}: {problem}")


class CatalogError(RulesError, ValueError):
    """A name (adaptation, motive, habitat, card code) the catalog does not know, or malformed card data."""

    def __init__(self, value: str, problem: str) -> None:
        self.value = value
        self.problem = problem
        super().__init__(f"{value!r}: {problem}")
