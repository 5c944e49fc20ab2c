"""Play styles (#playstyleoptions) as data: how a game is set up and how it ends.

A `Style` is chosen when a game is created (`Game.new(..., style="domination")`, the tracker's
``game new --style`` and ``table.toml``). The engine reads only these fields; the hooks that use them live
where the rule they change lives (set-up in `setup_phase`, ends in `turns`). Where the book leaves a
number open ("a fixed number of diel cycles"), the field is a parameter with the default documented in
docs/rules-engine.md; `Style.with_params` overrides it per game.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.core.errors import RulesError


class StyleError(RulesError, ValueError):
    """An unknown play style or a parameter it does not take; names both."""


@dataclass(frozen=True, slots=True)
class Style:
    name: str
    title: str
    camps: int = 2                  # base camps each player places after the capital (#game_setup)
    adjacent_capitals: bool = False  # capitals only, in adjacent territories (King of the hill, specials)
    cycles: int | None = None       # the game ends after this many diel cycles (None: no fixed end)
    score: str = "domination"       # how a fixed end is scored: territories, ends-means, coastline, hunt, ...
    referee: bool = False           # a referee / third-party seat takes part
    seats: tuple[int, int] = (2, 2)  # fewest and most players
    implemented: bool = True        # False: named and parameterised, its special end is not refereed yet
    claims_matter: bool = True      # False (Highest body count): capitals cannot be taken, no #win
    limit: int | None = None        # souls a player may lose before leaving the game (The cost is too great)
    hill: str | None = None         # King of the hill: the territory to hold (chosen by a ref or at random)
    hold: int = 3                   # King of the hill: diel cycles the hill must be held
    marked: str | None = None       # specials: the territory a ref marked (Find the treasure, ...)
    hunted: str | None = None       # The hunt: the huntable type (card code, title, gene, habitat or type)
    allies: frozenset[str] = frozenset()  # seats on one team: they never fight each other (Band together)
    third: str | None = None        # the third party's seat (Band together)
    captives: tuple[str, ...] = ()  # Captive: the soul card each seat gives the other, in seat order
    needs: tuple[str, ...] = ()     # parameters a game of this style cannot start without

    def with_params(self, **params: object) -> Style:
        known = {"camps", "cycles", "limit", "hill", "hold", "marked", "hunted", "third", "captives"}
        bad = sorted(set(params) - known)
        if bad:
            raise StyleError(f"style {self.name!r} takes no parameter {', '.join(bad)} "
                             f"(known: {', '.join(sorted(known))})")
        captives = params.get("captives")
        if isinstance(captives, str):
            params = {**params, "captives": tuple(c for c in captives.split(",") if c)}
        return replace(self, **params)  # type: ignore[arg-type]


CONVENTION = "convention"  # the score of a domination game ended by a cycle limit: keep the peace (#discarding_runout)

STYLES: dict[str, Style] = {s.name: s for s in (
    Style("domination", "Domination", score=CONVENTION),
    Style("mass-conflict", "Mass conflict", seats=(2, 4), score=CONVENTION),
    Style("band-together", "Band together", referee=True, cycles=20, score="band", seats=(3, 3)),
    Style("king-of-the-hill", "King of the hill", camps=0, adjacent_capitals=True, score="hill"),
    Style("captive", "Captive", score="captive", needs=("captives",)),
    Style("highest-body-count", "Highest body count", score="body-count", claims_matter=False),
    Style("ends-justify-means", "The ends must justify the means", cycles=20, score="ends-means"),
    Style("cost-too-great", "The cost is too great", limit=5),
    Style("coastal-war", "Coastal war", cycles=20, score="coastline"),
    Style("the-hunt", "The hunt", cycles=20, score="hunt"),
    Style("find-the-treasure", "Find the treasure", camps=0, adjacent_capitals=True, referee=True,
          score="marked"),
    Style("explorer", "Explorer", camps=0, adjacent_capitals=True, referee=True, score="explorer"),
    Style("trap-springer", "Trap Springer", camps=0, adjacent_capitals=True, referee=True, score="springer"),
    Style("off-to-the-rescue", "Off to the rescue", camps=0, adjacent_capitals=True, referee=True,
          score="rescue"),
    Style("cradle-robber", "Cradle Robber", camps=0, adjacent_capitals=True, referee=True, score="surround"),
)}

DOMINATION = STYLES["domination"]


def style(name: str | Style, **params: object) -> Style:
    """The style called `name` (or `name` itself), with `params` (e.g. ``cycles=30``) applied."""
    if isinstance(name, Style):
        found = name
    else:
        looked_up = STYLES.get(name.strip().lower())
        if looked_up is None:
            raise StyleError(f"unknown play style {name!r} (known: {', '.join(STYLES)})")
        found = looked_up
    given = {k: v for k, v in params.items() if v is not None}
    return found.with_params(**given) if given else found
