"""`rules.core.registry`: a game's name -> the factory that starts it from a configuration.

The three games of the table are known by name; a new game registers its factory with `register`.
Factories import their game lazily, so choosing a game loads only that game's engine.
"""

from __future__ import annotations

from collections.abc import Callable

from rules.core.errors import RulesError
from rules.core.interface import Config, TableGame

Factory = Callable[[Config], TableGame]


class UnknownGame(RulesError, ValueError):
    """A game name the registry does not know; names it and the known ones."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        super().__init__(f"unknown game {name!r} (known: {', '.join(known)})")


def _kipukas(config: Config) -> TableGame:
    from rules.kipukas.adapter import new
    return new(config)


def _kaiju(config: Config) -> TableGame:
    from rules.kaiju.game import new
    return new(config)


def _tilemap(config: Config) -> TableGame:
    from rules.tilemap.game import new
    return new(config)


def _kaiju_example(seats: list[str]) -> dict[str, object]:
    from rules.kaiju.decks import preconstructed
    made = preconstructed(len(seats))["seats"]
    assert isinstance(made, dict)
    return {"seats": dict(zip(seats, made.values(), strict=True)), "initiative_order": list(seats)}


def _tilemap_example(seats: list[str]) -> dict[str, object]:
    return {"map": "skirmish", "seats": list(seats)}


_FACTORIES: dict[str, Factory] = {"kipukas": _kipukas, "kaiju": _kaiju, "tilemap": _tilemap}
Example = Callable[[list[str]], dict[str, object]]
_EXAMPLES: dict[str, Example] = {
    "kaiju": _kaiju_example, "tilemap": _tilemap_example}  # Kipukas needs decks: its demo has its own table


def register(name: str, factory: Factory, example: Example | None = None) -> None:
    """Make `name` available to `new_game` (a later registration of the same name replaces it); `example`
    gives the configuration that starts a game for the given seats with packaged data (`game new` without
    deck files, the demo table)."""
    if not name or not name.isidentifier():
        raise ValueError(f"a game name is one lowercase word, got {name!r}")
    _FACTORIES[name] = factory
    _EXAMPLES[name] = example or (lambda seats: {})


def unregister(name: str) -> None:
    """Forget a game `register` added (a test's toy game); the three games of the table stay."""
    if name in ("kipukas", "kaiju", "tilemap"):
        raise ValueError(f"{name!r} is one of the table's own games")
    _FACTORIES.pop(name, None)
    _EXAMPLES.pop(name, None)


def example(name: str, seats: list[str] | None = None) -> dict[str, object]:
    """The configuration that starts a game of `name` for `seats` (default red and blue) from packaged
    data: preconstructed decks, the first map. An unknown name raises `UnknownGame`."""
    factory(name)
    made = _EXAMPLES.get(name)
    return made(list(seats or ("red", "blue"))) if made is not None else {}


def names() -> list[str]:
    return sorted(_FACTORIES)


def factory(name: str) -> Factory:
    try:
        return _FACTORIES[name]
    except KeyError:
        raise UnknownGame(name, names()) from None


def new_game(name: str, config: Config) -> TableGame:
    """A new game of `name` set up from `config` (the game's own keys; its errors name the bad key)."""
    return factory(name)(config)
