"""What every action handler works on: a private copy of the state plus queries over it.

Handlers raise `Illegal` (rule section + a message for players); the game then throws the copy away,
so a rejected action never changes the state.
"""

from __future__ import annotations

from rules.core.errors import RulesError
from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Card, Catalog
from rules.kipukas.effects import NONE, Effects
from rules.kipukas.movement import downed_range
from rules.kipukas.state import CardState, CardTable, GameState, Pending
from rules.kipukas.styles import DOMINATION, Style

WATER_HABITAT = "Water"


class Illegal(RulesError):
    """An action the rules forbid now. `rule` is the rule-book section, e.g. ``#movement``."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        self.message = message
        super().__init__(f"{message} ({rule})")


def _by_id(c: CardState) -> str:
    return c.id


def other(player: str) -> str:
    """The opponent in a two-seat game (red and blue); games of more seats ask `Ctx.foes` instead."""
    return "blue" if player == "red" else "red"


_NONE: dict[str, CardState] = {}
_FOES: dict[tuple[frozenset[str], tuple[str, ...]], tuple[str, ...]] = {}
_TWO_SEATS = {"red": ("blue",), "blue": ("red",)}


class Ctx:
    __slots__ = ("_cards", "_effects", "_souls", "_territory", "board", "catalog", "notices", "s", "style")

    def __init__(self, state: GameState, board: BoardMap, catalog: Catalog, style: Style = DOMINATION) -> None:
        self.s = state
        self.board = board
        self.catalog = catalog
        self.style = style
        self.notices: list[str] = []
        self._souls = catalog.soul_codes
        self._territory = board.stand_territory
        self._effects = catalog.effects
        self._cards = catalog.cards

    # --- cards -------------------------------------------------------------------------------------------
    def card(self, card_id: str) -> CardState:
        cs = self.s.cards.get(card_id)
        if cs is None:
            raise Illegal("#card_variations", f"there is no card {card_id} in this game")
        return cs

    def info(self, cs: CardState | str) -> Card:
        try:
            return self._cards[cs.code]  # type: ignore[union-attr]
        except (AttributeError, KeyError):
            code = cs if isinstance(cs, str) else cs.code
            card = self._cards.get(code)
            return card if card is not None else self.catalog.card(code)  # the catalog names an unknown code

    def put(self, cs: CardState) -> None:
        self.s.cards[cs.id] = cs  # `GameState.put`, one call less per card write

    def own(self, player: str, card_id: str, zone: str | None = None) -> CardState:
        cs = self.card(card_id)
        if cs.control != player:
            raise Illegal("#card_variations", f"{card_id} is {cs.control}'s card, not {player}'s")
        if zone is not None and cs.zone != zone:
            raise Illegal("#card_variations", f"{card_id} is in {cs.control}'s {cs.zone}, not in their {zone}")
        return cs

    def name(self, cs: CardState) -> str:
        return f"{self.info(cs).title} ({cs.id})"

    def relocate(self, cs: CardState, stand: str, **changes: object) -> None:
        """Put soul `cs` on `stand`; items equipped to it travel with it as one stack (#equiping)."""
        self.put(cs.set(at=stand, **changes))
        for item in list(self.s.play.values()):  # equipped items are always in play
            if item.equipped_to == cs.id:
                self.put(item.set(at=stand))

    def notice(self, text: str) -> None:
        self.notices.append(text)

    # --- map -----------------------------------------------------------------------------------------------
    def territory_of(self, stand: str) -> str:
        t = self._territory.get(stand)
        return t if t is not None else self.board.stand(stand).territory

    def territory_stand(self, territory: str) -> str:
        if territory not in self.board.territories:
            raise Illegal("#maps", f"map {self.board.name!r} has no territory {territory!r}")
        st = self.board.territory_stand(territory)
        if st is None:
            raise Illegal("#transit_territories", f"territory {territory} is a transit territory: no base camp")
        return st.id

    def holdable(self) -> list[str]:
        return list(self.board.holdable)

    def controls(self, player: str, territory: str) -> bool:
        claim = self.s.claims.get(territory)
        return claim is not None and claim[0] == player

    # --- seats --------------------------------------------------------------------------------------------
    @property
    def seats(self) -> tuple[str, ...]:
        """The game's seats in seat order (red, blue, then green and yellow in Mass conflict)."""
        return tuple(self.s.players)

    def foes(self, player: str) -> tuple[str, ...]:
        """The seats `player` fights: every other seat, except allies of a style's team (Band together)."""
        players = self.s.players
        if len(players) == 2 and not self.style.allies and player in _TWO_SEATS:
            return _TWO_SEATS[player]
        key = (player, *players)
        found = _FOES.get((self.style.allies, key))
        if found is None:
            allies = self.style.allies
            found = _FOES[(allies, key)] = tuple(q for q in self.s.players if q != player
                                                 and not (player in allies and q in allies))
        return found

    def next_seat(self, player: str) -> str:
        """Whose action follows `player`'s: the next seat in seat order that has neither taken initiative nor
        ended its turn (two seats: the other player until one takes initiative, then the one left)."""
        seats = tuple(self.s.players)
        if len(seats) == 2 and self.s.passed is None:
            return other(player)
        out = {self.s.passed, *self.s.done}
        i = seats.index(player) if player in seats else -1
        for k in range(1, len(seats) + 1):
            q = seats[(i + k) % len(seats)]
            if q not in out:
                return q
        return player

    def responder(self, player: str, territory: str) -> str | None:
        """The foe of `player` who answers in a fight in `territory`: the first in seat order after `player`
        with a soul there (two seats: the opponent, if a soul of theirs is there)."""
        seats = tuple(self.s.players)
        i = seats.index(player) if player in seats else -1
        foes = self.foes(player)
        for k in range(1, len(seats)):
            q = seats[(i + k) % len(seats)]
            if q in foes and self.souls_in(territory, q):
                return q
        return None

    def enemies_in(self, territory: str, player: str) -> list[CardState]:
        """Souls of `player`'s foes in `territory` (two seats: the opponent's), sorted by id."""
        foes, souls = self.foes(player), self._souls
        return sorted((c for c in self._in(territory) if c.code in souls and c.owner in foes), key=_by_id)

    def enemies_at(self, stand: str, player: str) -> list[CardState]:
        """Souls of `player`'s foes on `stand`, sorted by id."""
        foes, souls = self.foes(player), self._souls
        return sorted((c for c in self._on().get(stand, _NONE).values() if c.code in souls and c.owner in foes),
                      key=_by_id)

    def enemy_souls(self, player: str) -> list[CardState]:
        """Souls of `player`'s foes in play, in table order."""
        foes, souls = self.foes(player), self._souls
        return [c for c in self.s.play.values() if c.code in souls and c.owner in foes]

    def foes_unrevealed(self, player: str, territory: str) -> list[CardState]:
        """Unrevealed cards of `player`'s foes in `territory` (what a soul entering it rolls the D20 against)."""
        foes = self.foes(player)
        return sorted((c for c in self._in(territory) if c.owner in foes and not c.revealed), key=_by_id)

    # --- souls ---------------------------------------------------------------------------------------------
    def is_soul(self, cs: CardState) -> bool:
        return cs.code in self._souls

    def souls_in_play(self, player: str | None = None) -> list[CardState]:
        souls = self._souls
        return [c for c in self.s.play.values() if c.code in souls and (player is None or c.owner == player)]

    def souls_at(self, stand: str, player: str | None = None) -> list[CardState]:
        souls = self._souls
        return sorted((c for c in self._on().get(stand, _NONE).values()
                       if c.code in souls and (player is None or c.owner == player)), key=_by_id)

    def souls_in(self, territory: str, player: str | None = None) -> list[CardState]:
        souls = self._souls
        return sorted((c for c in self._in(territory) if c.code in souls and (player is None or c.owner == player)),
                      key=_by_id)

    def _on(self) -> dict[str, dict[str, CardState]]:
        """Stand -> the cards in play on it (the card table's index, kept up to date by every write)."""
        table: CardTable = self.s.cards  # type: ignore[assignment]  # a CardTable (GameState.__post_init__)
        return table.at_stand()

    def _in(self, territory: str) -> list[CardState]:
        """The cards in play in `territory`, stand by stand (callers sort or only count)."""
        on = self._on()
        return [c for st in self.board.territory_stands.get(territory, ()) for c in on.get(st, _NONE).values()]

    def occupying(self, territory: str, player: str) -> int:
        """Souls counting towards the 3-per-player limit (digital cloud souls occupy no space)."""
        souls = self._souls
        return sum(1 for c in self._in(territory)
                   if c.code in souls and c.owner == player and self.info(c).habitat != "DigitalCloud")

    def downed(self, cs: CardState) -> bool:
        """Injuries reached the card's tolerance, or every KEAL means is injured (#keal_means_DHT)."""
        return self._wounds(cs)[1]

    def _wounds(self, cs: CardState) -> tuple[tuple[int, ...], bool]:
        """(uninjured KEAL means, downed) for the card's code and injuries, from the catalog's static table."""
        key = (cs.code, cs.injuries)
        table = self.catalog.wounds
        found = table.get(key)
        if found is None:
            info = self.info(cs)
            means = tuple(i + 1 for i, m in enumerate(info.keal_means) if cs.injuries[i] < m.count)
            downed = info.tolerance is not None and (sum(cs.injuries) >= info.tolerance or not means)
            found = table[key] = (means, downed)
        return found

    def effects(self, cs: CardState) -> Effects:
        """Printed overrides of the card (`rules.effects`), with a judge's overrides for this card."""
        fx = self._effects.get(cs.code, NONE)
        flags = self.s.overrides.get(cs.id)
        if flags:
            for flag, on in flags:
                fx = fx.with_flag(flag, on)
        return fx

    def movement_range(self, cs: CardState) -> int | None:
        base = self.info(cs).movement or 0
        return downed_range(base) if self.downed(cs) and not self.effects(cs).moves_downed else base

    def needs_escort(self, cs: CardState) -> bool:
        """A downed soul with movement 1 moves only with an escort (#moving_downed_souls)."""
        return self.info(cs).movement == 1 and self.downed(cs) and not self.effects(cs).moves_downed

    def can_attack(self, cs: CardState) -> str | None:
        """None when `cs` may attack now, else the reason it may not."""
        if cs.zone != "play" or not self.is_soul(cs):
            return f"{cs.id} is not a soul in play"
        if self.downed(cs) and not self.effects(cs).attacks_downed:
            return f"{self.name(cs)} is downed and cannot attack (#keal_means_DHT)"
        if cs.exhausted:
            return (f"{self.name(cs)} already lost an attack or a retreat today and cannot attack again "
                    "(#combat_lifecycle)")
        if cs.rogue:
            return f"{self.name(cs)} is rogue: its owner does not control it (#rouge)"
        return None

    def available_means(self, cs: CardState) -> tuple[int, ...]:
        """The numbers (1-based) of the card's KEAL means that are not fully injured."""
        return self._wounds(cs)[0]

    def unrevealed_of(self, player: str, territory: str) -> list[CardState]:
        return sorted((c for c in self._in(territory) if c.owner == player and not c.revealed), key=_by_id)

    def contested(self, territory: str) -> bool:
        """Souls of foes share `territory` (allies of Band together do not contest it)."""
        souls = self._souls
        first: str | None = None
        allies = self.style.allies
        for c in self._in(territory):
            if c.code in souls:
                if first is None:
                    first = c.owner
                elif c.owner != first and not (first in allies and c.owner in allies):
                    return True
        return False

    # --- flow ----------------------------------------------------------------------------------------------
    def push(self, *items: Pending, front: bool = False) -> None:
        self.s.pending = (*items, *self.s.pending) if front else (*self.s.pending, *items)

    def forget(self, card_id: str) -> None:
        """Drop prompts about a card that just left play (wasted, discarded, imprisoned)."""
        self.s.pending = tuple(p for p in self.s.pending
                               if not (p.kind in ("damage", "heal", "tame", "trap", "combat") and card_id in p.cards))

    def pop(self) -> Pending:
        first, *rest = self.s.pending
        self.s.pending = tuple(rest)
        return first
