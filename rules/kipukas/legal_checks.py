"""Direct legality checks for the candidate actions `Game.legal_actions` sees most (day plays, moves, swims,
reveals, initiative, end, the diel roll, bout rolls), so they need not be trial-applied.

Each check repeats, read-only, exactly the conditions the action's handler enforces in the position the
candidate generator (`rules.legal.candidates`) produced it for; `Checker.decide` returns None for every
other action and the game then trial-applies it. `tests/test_legal_direct.py` compares the two ways on
thousands of positions and `tests/test_perft.py` pins the counts, so a handler change that is not
mirrored here fails a test rather than silently changing what is legal.
"""

from __future__ import annotations

from rules.kipukas.combat import total
from rules.kipukas.context import Ctx, Illegal
from rules.kipukas.day import DAY_CARD_TYPES, MAX_PLAYED, MAX_SOULS, reach
from rules.kipukas.notation import Action, Bottom, Draw, End, Initiative, Means, Move, Play, Reveal, Roll, Swim
from rules.kipukas.setup_phase import HAND_SIZE
from rules.kipukas.state import CardState


class Checker:
    """Legality of candidates in one position; caches what several candidates ask (occupancy, turn)."""

    def __init__(self, c: Ctx) -> None:
        self.c = c
        self._occupied: dict[tuple[str, str], int] = {}
        self._reached: dict[tuple[str, int], dict[str, int]] = {}

    def decide(self, a: Action) -> bool | None:
        s = self.c.s
        kind = type(a)
        if kind is Roll:
            return self._roll(a)  # type: ignore[arg-type]
        if kind is Means:
            return self._means(a)  # type: ignore[arg-type]
        if s.pending or s.bout is not None or s.contention_due:
            return None
        if s.phase == "night":
            return self._night(a)
        if s.phase != "day":
            return None
        if kind is Play:
            return self._play(a)  # type: ignore[arg-type]
        if kind is Move:
            return self._move(a)  # type: ignore[arg-type]
        if kind is Swim:
            return self._swim(a)  # type: ignore[arg-type]
        if kind is Reveal:
            return self._reveal(a)  # type: ignore[arg-type]
        if kind is Initiative:
            return self._my_turn(a.player) and s.passed is None
        if kind is End:
            return self._my_turn(a.player) and s.passed is not None and s.passed != a.player
        return None

    def _night(self, a: Action) -> bool | None:
        """`night.night_action` + the handler, for the night's once-each actions."""
        s = self.c.s
        kind = type(a)
        if kind is End:
            return self._my_turn(a.player) and s.passed is not None and s.passed != a.player
        verb = {Initiative: "initiative", Draw: "draw", Bottom: "bottom"}.get(kind)
        if verb is None:
            return None
        if not self._my_turn(a.player) or verb in s.players[a.player].night_done:
            return False
        if kind is Initiative:
            return s.passed is None
        hand = s.in_zone("hand", a.player)
        if kind is Bottom:
            return bool(hand)
        assert isinstance(a, Draw)
        deck = s.in_zone("deck", a.player)
        want = min(HAND_SIZE - len(hand), len(deck))
        if want == 0 or len(a.cards) != want:
            return False
        bottom = s.bottom.get(a.player, ())
        ids = {x.id for x in deck}
        if len(set(a.cards)) != want or not all(x in ids and x not in bottom for x in a.cards):
            return None  # duplicates, foreign cards and bottom-pile order: decided by trial
        return True

    # --- shared ---------------------------------------------------------------------------------------------
    def _my_turn(self, player: str) -> bool:
        """`turns.require_turn` in a day position with nothing pending."""
        s = self.c.s
        return s.active == player and s.passed != player

    def _occupying(self, territory: str, player: str) -> int:
        key = (territory, player)
        n = self._occupied.get(key)
        if n is None:
            n = self._occupied[key] = self.c.occupying(territory, player)
        return n

    # --- actions --------------------------------------------------------------------------------------------
    def _roll(self, a: Roll) -> bool | None:
        s = self.c.s
        if a.what == "diel":
            return (s.phase == "diel" and not s.pending) if a.value in ("day", "night", "storm") else None
        if a.what in ("attack", "defence") and s.bout is not None:
            b = s.bout
            if not b.final and (b.attack_means is None or b.defence_means is None):
                return False
            side = self.c.s.cards.get(b.attacker if a.what == "attack" else b.defender)
            if side is None or side.owner != a.player:
                return False
            done = b.attack_roll if a.what == "attack" else b.defence_roll
            if done is not None:
                return False
            try:
                total(self.c, side, a.value)
            except Illegal:
                return False
            return True
        return None

    def _means(self, a: Means) -> bool | None:
        """`combat.means`: a side of an open KEAL means bout picks an available means once."""
        b = self.c.s.bout
        if b is None or b.final or a.card not in (b.attacker, b.defender):
            return False
        cs = self.c.s.cards.get(a.card)
        if cs is None or cs.owner != a.player:
            return False
        chosen = b.attack_means if a.card == b.attacker else b.defence_means
        return chosen is None and a.index in self.c.available_means(cs)

    def _play(self, a: Play) -> bool | None:
        c, s = self.c, self.c.s
        if not self._my_turn(a.player):
            return False
        cs = s.cards.get(a.card)
        if cs is None:
            return None
        if cs.owner == a.player and cs.zone == "effect":
            due = s.players[a.player].effect_due
            info = c.info(cs)
            if due is None or info.type == "PersonalEffect" or s.turn < due:
                return False
        elif cs.control != a.player or cs.zone != "hand":
            return False
        else:
            info = c.info(cs)
        if info.type not in DAY_CARD_TYPES:
            return False
        if c.board.territory_stand(a.territory) is None or not c.controls(a.player, a.territory):
            return None
        if s.players[a.player].played_this_roll >= MAX_PLAYED:
            return False
        limited = info.is_soul and info.habitat != "DigitalCloud"
        return not (limited and self._occupying(a.territory, a.player) >= MAX_SOULS)

    def _move(self, a: Move) -> bool | None:
        c, s = self.c, self.c.s
        if not self._my_turn(a.player):
            return False
        cs = s.cards.get(a.card)
        start, goal = a.path
        if a.via:
            return None
        if cs is None or cs.control != a.player or cs.zone != "play" or not c.is_soul(cs) or cs.at != start \
                or goal not in c.board.stands or goal == start:
            return None
        if cs.rogue or not cs.revealed:
            return False
        if cs.played_turn == s.turn and not cs.played_revealed:
            return False
        rng = c.movement_range(cs)
        if not rng:
            return False
        info = c.info(cs)
        if c.needs_escort(cs):
            return False
        left = rng - cs.moved
        if left <= 0:
            return False
        target = c.territory_of(goal)
        if target != c.territory_of(start) and info.habitat != "DigitalCloud" \
                and self._occupying(target, a.player) >= MAX_SOULS:
            return False
        if c.can_attack(cs) is not None and c.enemies_at(goal, a.player):
            return False
        return None if goal not in self._reach(cs, left) else True

    def _reach(self, cs: CardState, left: int) -> dict[str, int]:
        key = (cs.id, left)
        seen = self._reached.get(key)
        if seen is None:
            assert cs.at is not None
            seen = self._reached[key] = reach(self.c, cs, cs.at, left)
        return seen

    def _swim(self, a: Swim) -> bool | None:
        c, s = self.c, self.c.s
        if not self._my_turn(a.player):
            return False
        cs = s.cards.get(a.card)
        if cs is None or cs.control != a.player or cs.zone != "play" or cs.swim_tried or cs.at is None:
            return None
        habitat = c.info(cs).habitat
        if habitat in ("Water", "Heavens"):
            return False
        want = 1 if habitat == "Nomad" else 2
        if len(a.faces) != want or not all(1 <= f <= 6 for f in a.faces):
            return False
        return None if not any((p := c.board.path_between(cs.at, n)) is not None and p.water
                               for n in c.board.neighbours(cs.at)) else True

    def _reveal(self, a: Reveal) -> bool | None:
        c, s = self.c, self.c.s
        if not self._my_turn(a.player):
            return False
        cs = s.cards.get(a.card)
        if cs is None or cs.control != a.player or cs.zone != "play" or not c.is_soul(cs):
            return None
        return not cs.revealed
