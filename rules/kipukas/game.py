"""`Game`: the two-player Domination game of the rule book as a state machine.

Modelled on python-chess: `apply(action)` checks an action against the rules and either changes the
state (keeping the previous state for `undo()`) or returns a rejection naming the rule section and
leaving the state untouched; `prompts()` says what the rules now demand and of whom; `legal_actions()`
lists the actions the engine accepts now (dice rolls sampled, enough for random self-play);
`to_text()` is the canonical state text used by golden files.

    game = Game.new({"red": red_cards, "blue": blue_cards})
    verdict = game.apply(parse("red affinity Avian"))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from weakref import ref

from rules.core.errors import RulesError
from rules.core.verdict import Prompt, Verdict
from rules.kipukas import card_actions, combat, day, night, setup_phase, style_ends, turns
from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.context import Ctx, Illegal, other
from rules.kipukas.effects import FLAGS
from rules.kipukas.history import History
from rules.kipukas.legal import candidates
from rules.kipukas.legal_checks import Checker
from rules.kipukas.legal_direct import direct
from rules.kipukas.legal_items import free_actions
from rules.kipukas.notation import (
    JUDGE,
    PLAYERS,
    Action,
    Affinity,
    Attack,
    Award,
    Bottom,
    Bs,
    Camp,
    Capital,
    Challenge,
    Concede,
    Craft,
    DefaultEffect,
    Dig,
    Discard,
    Draw,
    Effect,
    End,
    Equip,
    Grab,
    Heal,
    Hold,
    Imprison,
    Initiative,
    Injure,
    Means,
    Move,
    Pass,
    Peace,
    Personal,
    Pickup,
    Play,
    Release,
    Resolve,
    Retreat,
    Reveal,
    Roam,
    Roll,
    Sabotage,
    Steal,
    Stop,
    Swim,
    Tame,
    Trap,
    Unequip,
    parse,
)
from rules.kipukas.prompts import prompts
from rules.kipukas.seating import captive_pairs, seated
from rules.kipukas.state import CardState, GameState, Pending, PlayerState, Undo, new_card
from rules.kipukas.style_ends import matches
from rules.kipukas.styles import DOMINATION, Style, StyleError
from rules.kipukas.styles import style as play_style


class Rejected(RulesError):
    """Raised by `Game.push` for an action the rules forbid; `verdict` holds the rule and message."""

    def __init__(self, action: str, verdict: Verdict, phase: str) -> None:
        self.action = action
        self.verdict = verdict
        super().__init__(f"{action!r} rejected in the {phase} phase: {verdict.message} ({verdict.rule})")


_ROLLS: dict[str, Callable[[Ctx, Roll], None]] = {
    "d6": setup_phase.rolloff, "diel": turns.roll_diel, "d20": day.trap_roll, "attack": combat.roll,
    "defence": combat.roll, "escape": combat.escape_roll, "chase": combat.escape_roll,
    "territory": card_actions.territory_roll}


def _roll(c: Ctx, a: Roll) -> None:
    _ROLLS[a.what](c, a)


def _draw(c: Ctx, a: Draw) -> None:
    (setup_phase.setup_draw if c.s.phase == "draw" else night.draw)(c, a)


def _initiative(c: Ctx, a: Initiative) -> None:
    if c.s.phase == "night":
        night.night_action(c, a.player, "initiative")
    else:
        day.start_action(c, a.player)
    c.s.origin = None
    turns.initiative(c, a)


def judge_effect(c: Ctx, a: Effect) -> None:
    """The judge's override of a printed effect for one card (rules.effects); it never ends a turn."""
    cs = c.card(a.card)
    if a.flag not in FLAGS:
        raise Illegal("#card_variations", f"unknown effect flag {a.flag!r} (flags: {', '.join(FLAGS)})")
    flags = (*tuple((f, on) for f, on in c.s.overrides.get(cs.id, ()) if f != a.flag), (a.flag, a.state == "on"))
    c.s.overrides[cs.id] = flags
    c.notice(f"judge: {c.name(cs)} {a.flag} {a.state} (printed effect override)")


HANDLERS: dict[type[Action], Callable[[Ctx, Any], None]] = {
    Affinity: setup_phase.affinity, Roll: _roll, Capital: setup_phase.capital, Camp: setup_phase.camp,
    Personal: setup_phase.personal, DefaultEffect: setup_phase.default_effect, Draw: _draw,
    Initiative: _initiative, End: turns.end, Play: day.play, Reveal: day.reveal, Move: day.move, Swim: day.swim,
    Trap: day.trap, Attack: combat.attack, Means: combat.means, Grab: combat.grab, Stop: combat.stop,
    Retreat: combat.retreat,
    Challenge: combat.challenge, Hold: combat.hold, Bottom: night.bottom, Craft: night.craft,
    Sabotage: night.sabotage, Injure: night.injure, Heal: night.heal, Discard: night.discard, Steal: night.steal,
    Tame: night.tame,
    Peace: turns.peace, Effect: judge_effect, Equip: card_actions.equip, Unequip: card_actions.unequip,
    Pass: card_actions.pass_item, Pickup: card_actions.pickup, Resolve: card_actions.resolve, Dig: card_actions.dig,
    Roam: card_actions.roam, Imprison: card_actions.imprison, Release: card_actions.release,
    Award: style_ends.award,
}



_CONVENTION = (Bs, Concede)  # #BS: not a handler's action; the game rules on it itself


class Game:
    def __init__(self, state: GameState, board: BoardMap | None = None, catalog: Catalog | None = None,
                 style: Style | str = DOMINATION) -> None:
        self._state = state.copy()  # the game owns its state: it changes it in place
        self.board = board or BoardMap.packaged()
        self.catalog = catalog or Catalog.packaged()
        self.style = play_style(style)
        # Per accepted action, how to take it back: an undo record (the usual case) or the whole state before
        # it (a #BS ruling, or history handed in from outside).
        self._log: list[tuple[Action, Undo | GameState]] = []
        self._live: Ctx | None = None
        self._views: list[ref[History]] = []  # history views that may still read the live state

    @property
    def state(self) -> GameState:
        """The current state. It is changed in place by `apply` and `undo` (as python-chess's board): keep
        `state.copy()` or `to_text()` to remember a position."""
        return self._state

    @state.setter
    def state(self, state: GameState) -> None:
        self._changing()
        self._state = state.copy()  # the caller may keep (and share) the object it hands in

    @property
    def history(self) -> History:
        """The accepted actions, oldest first, each with the state before it, as it is now (later actions do
        not change it). States are rebuilt from the undo records only when read."""
        view = History(self._log, self._state)
        self._views.append(ref(view))
        return view

    @history.setter
    def history(self, entries: Sequence[tuple[Action, GameState]]) -> None:
        self._log = [(action, state) for action, state in entries]

    def _changing(self) -> None:
        """The state is about to change: history views taken since the last change keep a copy of it."""
        if self._views:
            for alive in self._views:
                view = alive()
                if view is not None:
                    view.freeze()
            self._views = []

    def _ctx(self, state: GameState) -> Ctx:
        """The handlers' view of `state`; the live state's is made once and kept (it is changed in place)."""
        ctx = self._live
        if ctx is None or ctx.s is not state or ctx.board is not self.board or ctx.catalog is not self.catalog \
                or ctx.style is not self.style:
            ctx = Ctx(state, self.board, self.catalog, self.style)
            if state is self._state:
                self._live = ctx
        return ctx

    @classmethod
    def new(cls, decks: Mapping[str, Sequence[str]], board: BoardMap | None = None,
            catalog: Catalog | None = None, style: Style | str = "domination", cycles: int | None = None,
            **params: object) -> Game:
        """A game before setup. `decks[player]` lists card ids (``CODE#SERIAL``, or ``CODE`` when unique)
        including the optional personal effect; validate decks with `rules.decks.check_deck` first.
        `style` is a play style of #playstyleoptions (`rules.styles`); `cycles` overrides its fixed number of
        diel cycles (for domination: hold convention and keep the peace after that many); `params` set the
        style's other parameters (``limit``, ``hill``, ``hold``, ``marked``, ``camps``, ``hunted``)."""
        chosen = play_style(style, cycles=cycles, **params)
        board = board or BoardMap.packaged()
        for name in ("hill", "marked"):
            where = getattr(chosen, name)
            if where is not None and (not isinstance(where, str) or where not in board.holdable):
                raise StyleError(f"{chosen.title}: {name} must be a territory id of map {board.name!r} that can be "
                                 f"held ({', '.join(board.holdable)}), got {where!r}")
        catalog = catalog or Catalog.packaged()
        if chosen.hunted is not None and not any(matches(card, chosen.hunted) for card in catalog.cards.values()
                                                 if card.is_soul):
            raise StyleError(f"{chosen.title}: hunted must name souls by card code, title, gene, habitat or type; "
                             f"no soul card matches {chosen.hunted!r}")
        cards: dict[str, CardState] = {}
        chosen, seats = seated(chosen, decks, board)
        chosen = captive_pairs(chosen, decks, catalog)
        given = dict(zip(chosen.captives, reversed(PLAYERS), strict=False))  # Captive: card -> who receives it
        for player in seats:
            for card_id in decks[player]:
                if card_id in cards:
                    raise ValueError(f"card {card_id} is listed twice ({cards[card_id].owner} and {player}); "
                                     "give physical cards distinct serials")
                info = catalog.card(card_id.split("#")[0])
                zone = "aside" if info.type == "PersonalEffect" else "deck"
                cards[card_id] = new_card(card_id, info.code, given.get(card_id, player), zone,
                                          (0,) * len(info.keal_means))
        state = GameState(cards, {p: PlayerState() for p in seats}, {p: () for p in seats})
        return cls(state, board, catalog, chosen)

    # --- applying ------------------------------------------------------------------------------------------
    def _run(self, action: Action) -> tuple[Undo, list[str]]:
        """Apply `action` to the state in place and return its undo record; a rejection (or any failure)
        restores the state from the record before the exception leaves."""
        s = self._state
        if s.phase == "over":
            raise Illegal("#win", f"the game is over: {s.result}")
        if action.player not in s.players and action.player != JUDGE:
            raise Illegal("#playstyleoptions", f"{action.player} has no seat in this game "
                                               f"(seats: {', '.join(s.players)})")
        undo = s.mark()
        ctx = self._live
        if ctx is None or ctx.s is not s or ctx.board is not self.board or ctx.catalog is not self.catalog \
                or ctx.style is not self.style:
            ctx = self._ctx(s)
        ctx.notices = []
        try:
            s.notices = ()
            HANDLERS[type(action)](ctx, action)
            turns.finish(ctx)
        except BaseException:
            s.restore(undo)
            raise
        finally:
            s.cards.journal = None  # type: ignore[attr-defined]  # a CardTable (GameState.__post_init__)
        s.notices = tuple(ctx.notices) if ctx.notices else ()
        return undo, ctx.notices

    def apply(self, action: Action | str) -> Verdict:
        """Apply `action` if the rules allow it. A rejection leaves the state untouched."""
        act = parse(action) if isinstance(action, str) else action
        if self._views:
            self._changing()
        if type(act) in _CONVENTION:
            return self._bs(act)  # type: ignore[arg-type]
        try:
            undo, notices = self._run(act)
        except Illegal as exc:
            return Verdict.reject(exc.rule, f"{act.to_text()}: {exc.message}")
        self._log.append((act, undo))
        return Verdict(True, "", "; ".join(notices)) if notices else Verdict(True, "", None, act)

    def _bs(self, act: Bs | Concede) -> Verdict:
        """#BS: "Call them out before the effect is used in game play. Pause the battle and hold convention.
        One player must concede reasonability (either for or against). If required, enlist a tie breaking
        third individual to make the final call." Conceded against, the called-out action is taken back."""
        s = self._state
        waiting = s.pending[0] if s.pending and s.pending[0].kind == "bs" else None
        if isinstance(act, Bs):
            last = self._log[-1][0] if self._log else None
            if waiting is not None or last is None or last.player == act.player or last.player not in s.players \
                    or act.player not in s.players or s.phase == "over":
                return Verdict.reject("#BS", f"{act.to_text()}: call out the opponent's last action, before its "
                                             "effect is used")
            new = s.copy()
            new.notices = ()
            new.pending = (Pending("bs", last.player, note=last.to_text()), *s.pending)
            self._log.append((act, s))
            self._state = new
            return Verdict.ok("#BS", f"{act.player} calls BS on '{last.to_text()}': hold convention")
        if waiting is None:
            return Verdict.reject("#BS", f"{act.to_text()}: no BS call is waiting for convention")
        challenged = waiting.player
        stands = act.reasonability == "for"
        if act.player not in s.players and act.player != "judge":
            return Verdict.reject("#BS", f"{act.to_text()}: not a player of this game")
        if act.player != "judge" and (act.player == challenged) == stands:
            return Verdict.reject("#BS", f"{act.to_text()}: a player concedes the other side's point: "
                                         f"{challenged} concedes against, "
                                         f"{other(challenged) if len(s.players) == 2 else 'the caller'} concedes for")
        history = self.history
        self._log.append((act, s))
        if stands:
            new = s.copy()
            new.pending = tuple(p for p in s.pending if p is not waiting)
            new.notices = ()
            self._state = new
            return Verdict.ok("#BS", f"'{waiting.note}' stands (#BS)")
        calls = [i for i, (a, _) in enumerate(self._log) if isinstance(a, Bs)]
        before_call = history[calls[-1] - 1][1]  # the state before the called-out action
        new = before_call.copy()
        new.notices = (f"'{waiting.note}' is taken back: conceded against reasonability (#BS)",)
        self._state = new
        return Verdict.ok("#BS", new.notices[0])

    def push(self, action: Action | str) -> Verdict:
        """Like `apply`, but raise `Rejected` (naming action, phase and rule) instead of returning it."""
        verdict = self.apply(action)
        if not verdict.accepted:
            text = action if isinstance(action, str) else action.to_text()
            raise Rejected(text, verdict, self._state.phase)
        return verdict

    def is_legal(self, action: Action) -> bool:
        """Whether the rules accept `action` now (applied in place and taken back: the state is unchanged)."""
        try:
            undo, _ = self._run(action)
        except Illegal:
            return False
        self._state.restore(undo)
        return True

    def undo(self) -> Action:
        """Take back the last accepted action and return it (python-chess's `pop`)."""
        if not self._log:
            raise IndexError("nothing to undo: no action has been accepted")
        self._changing()
        action, previous = self._log.pop()
        if isinstance(previous, GameState):
            self._state = previous.copy()
        else:
            self._state.restore(previous)
        return action

    # --- views ---------------------------------------------------------------------------------------------
    def to_text(self) -> str:
        return self.state.to_text()

    @property
    def result(self) -> str | None:
        return self.state.result

    def prompts(self) -> list[Prompt]:
        return prompts(self._ctx(self.state))

    def legal_actions(self, free: bool = False) -> list[Action]:
        """The candidate actions (`rules.legal.candidates`) the rules accept now, in candidate order.
        Common kinds are generated directly (`rules.legal_direct`, `rules.legal_rare`, `rules.legal_items`),
        the rest decided by direct checks (`rules.legal_checks`) or trial application.

        `free=True` adds the free actions a player may take at almost any moment because printed card text
        or a dispute calls for them (discard, steal, imprison, release, resolve, roll territory, #BS call-outs):
        phones offer them; self-play, perft counts and the bench leave them out. A BS call waiting for
        convention is answered by `concede` whatever `free` says."""
        s = self._state
        ctx = self._live  # `_ctx` inline: the live view, unless the state or a part was replaced
        if ctx is None or ctx.s is not s or ctx.board is not self.board or ctx.catalog is not self.catalog \
                or ctx.style is not self.style:
            ctx = self._ctx(s)
        if s.pending and s.pending[0].kind == "bs":
            return self._bs_actions(free)
        generated = direct(ctx)
        if generated is None:
            checker = Checker(ctx)
            generated = []
            for action in candidates(ctx):
                ok = checker.decide(action)
                if ok is None:
                    ok = self.is_legal(action)
                if ok:
                    generated.append(action)
        if free:
            generated = generated + free_actions(ctx) + self._bs_actions(True)
        return generated

    def _bs_actions(self, free: bool) -> list[Action]:
        """#BS: the concessions a waiting call-out needs, or (free) the call-out of the opponent's last action."""
        s = self.state
        if s.phase == "over":
            return []
        if s.pending and s.pending[0].kind == "bs":
            challenged = s.pending[0].player
            return [Concede(challenged, "against"), *(Concede(q, "for") for q in s.players if q != challenged)]
        last = self._log[-1][0] if self._log else None
        if not free or last is None or last.player not in s.players:
            return []
        return [Bs(q) for q in s.players if q != last.player]

    def legal_actions_by_trial(self, free: bool = False) -> list[Action]:
        """The reference definition of `legal_actions`: every candidate trial-applied (slow; for tests).
        BS call-outs and concessions are not handler actions and are left out here."""
        if self.state.pending and self.state.pending[0].kind == "bs":
            return []
        return [a for a in candidates(self._ctx(self.state), free) if self.is_legal(a)]
