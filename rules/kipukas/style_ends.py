"""The ends of the competition specials and the hunt's bookkeeping (#playstyleoptions), beside
`turns._check_end` (which asks `special_end` after every settled action).

- Cradle Robber: "The first person to find and take the surrounding sections (thereby protecting the card)
  wins": the first player to hold every territory that borders the marked one (a movement line joins them;
  transit territories cannot be held and do not count).
- Off to the rescue: "the first player to claim that space and usher the survivor back to their capital
  wins": the soul that claims the marked territory (the first of that player's souls on its territory stand)
  escorts the survivor; the player wins when that soul stands on their capital's stand. An escort that leaves
  play leaves the survivor in the marked territory, for the next claim there.
- Explorer and Trap Springer: "the first player to claim that space and successfully use the card against their
  opponent wins" / "the first player to set off the trap in that space wins": only the ref's printed card says
  whether it was used or set off, so the referee says ``judge award PLAYER``; the engine accepts it only for a
  player who holds the marked territory (Explorer) or has a soul in it (Trap Springer).
- The hunt: a soul whose card matches `style.hunted` (code, title, gene, habitat or card type) counts when it
  is wasted; huntable cards cannot be discarded.
"""

from __future__ import annotations

from rules.kipukas.catalog import Card
from rules.kipukas.context import Ctx, Illegal
from rules.kipukas.notation import Award
from rules.kipukas.state import CardState

PLAYERS = ("red", "blue")


def huntable(c: Ctx, cs: CardState) -> bool:
    """Whether `cs` is of the hunted type (every soul when the style names none)."""
    if c.style.score != "hunt" or not c.is_soul(cs):
        return False
    wanted = c.style.hunted
    return wanted is None or matches(c.info(cs), wanted)


def matches(card: Card, wanted: str) -> bool:
    want = wanted.strip().lower()
    return want in {v.lower() for v in (card.code, card.title, card.gene or "", card.habitat or "", card.type)}


def bordering(c: Ctx, territory: str) -> list[str]:
    """The holdable territories a movement line joins to `territory`."""
    board = c.board
    return [t for t in board.holdable if t != territory and board.adjacent_territories(t, territory)]


def special_end(c: Ctx) -> str | None:
    """The result of a special's end condition, if it is met now (else None)."""
    style = c.style
    marked = style.marked
    if marked is None or not c.s.turn:
        return None
    if style.score == "surround":
        around = bordering(c, marked)
        for player in PLAYERS:
            if around and all(c.controls(player, t) for t in around):
                return (f"{player} wins: holds every territory around the marked territory {marked} "
                        f"({', '.join(around)}) ({style.title})")
    if style.score == "rescue":
        return _rescue(c, marked)
    return None


def _rescue(c: Ctx, marked: str) -> str | None:
    s = c.s
    if s.rescue is not None:
        player, escort = s.rescue
        cs = s.cards.get(escort)
        if cs is None or cs.zone != "play" or cs.owner != player:
            s.rescue = None
            c.notice(f"the survivor's escort is gone: the survivor stays in territory {marked} ({c.style.title})")
    if s.rescue is None:
        claim = s.claims.get(marked)
        home = c.board.home_stand.get(marked)
        if claim is None or home is None:
            return None
        escorts = c.souls_at(home, claim[0])
        if not escorts:
            return None
        s.rescue = (claim[0], escorts[0].id)
        c.notice(f"{c.name(escorts[0])} finds the survivor in territory {marked}: usher it back to "
                 f"{claim[0]}'s capital ({c.style.title})")
    player, escort = s.rescue
    at = s.cards[escort].at
    capitals = [t for t, (owner, kind) in s.claims.items() if owner == player and kind == "capital"]
    if at is not None and any(c.board.home_stand.get(t) == at for t in capitals):
        return f"{player} wins: ushered the survivor from territory {marked} back to their capital ({c.style.title})"
    return None


def award(c: Ctx, a: Award) -> None:
    """`judge award PLAYER`: the referee confirms a special's card-decided condition (see the module doc)."""
    style, marked = c.style, c.style.marked
    if style.score not in ("explorer", "springer") or marked is None:
        raise Illegal("#playstyleoptions", f"{style.title} has no referee's award: its end is refereed by the rules"
                      if style.score not in ("explorer", "springer") else f"{style.title}: no territory is marked")
    if style.score == "explorer" and not c.controls(a.winner, marked):
        raise Illegal("#playstyleoptions", f"{a.winner} has not claimed the marked territory {marked}: the terrain "
                                           f"feature is used by the player who claimed that space ({style.title})")
    if style.score == "springer" and not c.souls_in(marked, a.winner):
        raise Illegal("#playstyleoptions", f"{a.winner} has no soul in the marked territory {marked}: the trap is "
                                           f"set off by a soul in that space ({style.title})")
    what = "used the marked terrain feature against the opponent" if style.score == "explorer" else \
        "set off the marked trap"
    c.s.result = f"{a.winner} wins: {what} in territory {marked}, the referee confirms ({style.title})"
    c.s.phase = "over"
    c.s.active = None
