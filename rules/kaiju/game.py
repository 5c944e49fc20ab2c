"""`KaijuGame`: Colossal Kaiju Combat (seed 003) behind the game interface, for 2-5 players.

Notation: the acting seat, a verb, its words; cards by code, characters by seat and code:

    red draw planning TOWER      red discard combat PUNCH      red keep
    red play TOWER               red pass                      red select GOROS
    red attack blue AQUALA       red challenge blue KORAL      blue accept | blue decline
    red roar draw | red roar refill                            red rampage TOWER
    red card HAYMAKER            red rage                      red scar BATTLESCAR red GOROS
    judge glory red 2            judge energy red -1           (printed texts the engine does not read)

Decks are multisets: a draw names the card the player turned over (on a phone, tapped from their deck
list), so the physical shuffle stays the truth and the record stays replayable.
"""

from __future__ import annotations

from collections.abc import Callable

from rules.core.engine import Illegal, SnapshotEngine
from rules.core.interface import JUDGE, Config, GameResult, Prompt, View
from rules.core.notation import Act, Grammar
from rules.kaiju import combat, flow
from rules.kaiju.cards import KaijuCatalog, packaged
from rules.kaiju.setup import setup
from rules.kaiju.state import KaijuState, Player

PILES = ("planning", "combat")
GRAMMAR = Grammar({
    "draw": (("pile", PILES), ("card", "word")), "discard": (("pile", PILES), ("card", "word")), "keep": (),
    "play": (("card", "word"),), "pass": (), "select": (("character", "word"),),
    "attack": (("seat", "word"), ("character", "word")), "challenge": (("seat", "word"), ("character", "word")),
    "accept": (), "decline": (), "roar": (("choice", ("draw", "refill")),), "rampage": (("city card", "word"),),
    "card": (("combat card", "word"),), "rage": (),
    "scar": (("scar card", "word"), ("seat", "word"), ("character", "word")),
    "glory": (("seat", "word"), ("amount", "int")), "energy": (("seat", "word"), ("amount", "int")),
}, judge_verbs=("glory", "energy"))


def _judge(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    """A printed text the engine does not read gave glory tokens or energy (#winning_the_game: "If you are
    told to gain GLORY with no specific card to represent it, use tokens")."""
    seat, amount = a.args[0], a.int(1)
    if seat not in s.players:
        raise Illegal("#winning_the_game", f"{seat} is not a seat of this game")
    p = s.players[seat]
    if a.verb == "glory":
        p.glory_tokens = max(0, p.glory_tokens + amount)
    else:
        p.energy = max(0, p.energy + amount)


def _pass(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    (combat.pass_combat if s.combat is not None else flow.pass_turn)(s, cat, a)


STEPS: dict[str, Callable[[KaijuState, KaijuCatalog, Act], None]] = {
    "draw": lambda s, c, a: flow.draw(s, a), "discard": lambda s, c, a: flow.discard(s, a),
    "keep": lambda s, c, a: flow.keep(s, a), "play": flow.play, "pass": _pass, "select": flow.select,
    "attack": lambda s, c, a: flow.attack(s, a), "challenge": lambda s, c, a: flow.challenge(s, a),
    "accept": flow.answer, "decline": flow.answer, "roar": flow.roar, "rampage": lambda s, c, a: flow.rampage(s, a),
    "card": combat.card, "rage": combat.rage, "scar": combat.scar, "glory": _judge, "energy": _judge,
}


class KaijuGame(SnapshotEngine[KaijuState, Act]):
    name = "kaiju"

    def __init__(self, state: KaijuState, catalog: KaijuCatalog) -> None:
        super().__init__(state, state.seats)
        self.catalog = catalog

    def parse(self, line: str) -> Act:
        return GRAMMAR.parse(line, self.seats)

    def fmt(self, action: Act) -> str:
        return action.to_text()

    def step(self, state: KaijuState, action: Act) -> str:
        if action.seat != JUDGE and not state.players[action.seat].members and action.verb != "keep":
            raise Illegal("#winning_the_game", f"{action.seat} has no characters left")
        state.notices = ()
        STEPS[action.verb](state, self.catalog, action)
        flow.settle(state, self.catalog)
        return "; ".join((action.to_text(), *state.notices))

    def hidden_words(self, action: Act) -> tuple[int, ...]:
        """A card drawn (its name, #setup) and a combat card played face down (#combat_flow) are the
        player's own until the view reveals the exchange."""
        return {"draw": (1,), "card": (0,)}.get(action.verb, ())

    # --- what may be tried now ------------------------------------------------------------------------
    def known_legal(self, state: KaijuState, action: Act) -> bool:
        """Kinds `_of` lists only when `apply`'s checks hold need no trial (draws and discards owed, the
        combat card or pass awaited, the basic actions of the seat to act, planning cards it may play, keep
        rage and scars); answers to a challenge are tried. The property tests apply every listed line."""
        p = state.players.get(action.seat)
        verb = action.verb
        if p is None or not p.members:
            return False
        if verb in ("draw", "discard"):
            r = state.refills.get((action.seat, action.args[0]))
            if verb == "draw":
                return r is not None and not flow.complete(p, r)
            if state.knockdown == action.seat:
                return action.args[0] == "combat"  # listed from the hand
            return r is not None and r.may_discard
        if verb in ("keep", "rage", "scar"):
            return True  # listed only when their checks hold
        if verb in ("card", "pass") and state.combat is not None:
            return combat.to_play(state) == action.seat
        if verb in ("select", "attack", "challenge", "roar", "rampage", "pass"):
            return flow.can_act(state, action.seat, state.phase)
        if verb == "play":
            return flow.can_act(state, action.seat, "planning") and self._playable(p, action.args[0])
        return False

    def _playable(self, p: Player, code: str) -> bool:
        """#playing_planning_cards: not a scar, and an ally only when a member meets its requirement."""
        card = self.catalog.planning_card(code)
        return card.kind != "scar" and (card.kind != "ally" or not card.requires or any(
            card.requires in m.stats.attributes for m in p.members.values()))
        return False

    def candidates(self, state: KaijuState, seat: str | None) -> list[Act]:
        out: list[Act] = []
        for who in (state.seats if seat is None else (seat,)):
            if who in state.players:
                out += self._of(state, who)
        return out

    def _of(self, s: KaijuState, seat: str) -> list[Act]:
        p = s.players[seat]
        out: list[Act] = []
        for (who, pile), r in s.refills.items():
            if who != seat:
                continue
            deck = p.planning_deck if pile == "planning" else (p.combat_deck or p.combat_discard)
            if not flow.complete(p, r):
                out += [Act(seat, "draw", (pile, c)) for c in sorted(deck)]
            if r.may_discard:
                hand = p.planning_hand if pile == "planning" else p.combat_hand
                out += [Act(seat, "discard", (pile, c)) for c in sorted(hand)]
            if all(flow.complete(p, q) for (w, _), q in s.refills.items() if w == seat):
                out.append(Act(seat, "keep"))
        if s.knockdown == seat:
            out += [Act(seat, "discard", ("combat", c)) for c in sorted(p.combat_hand)]
        for who, member in s.scar_window:
            target = s.players[who].members.get(member)
            if target is not None and target.scar is None:
                out += [Act(seat, "scar", (c, who, member)) for c in sorted(p.planning_hand)
                        if self.catalog.planning_card(c).kind == "scar"]
        if s.challenge and s.challenge[1] == seat:
            out += [Act(seat, "accept"), Act(seat, "decline")]
        if s.combat is not None:
            if combat.to_play(s) == seat:
                out += [Act(seat, "card", (c,)) for c in sorted(p.combat_hand)] + [Act(seat, "pass")]
            name = combat.side_of(s.combat, seat)
            c = s.combat
            if (name and not getattr(c, name).city and not c.attacker.played and not c.defender.played
                    and not s.knockdown and not s.refills and p.fury >= self.catalog.team(p.team).fury):
                out.append(Act(seat, "rage"))
            return out
        if not flow.can_act(s, seat, s.phase):
            return out
        if s.phase == "planning":
            out += [Act(seat, "play", (c,)) for c in sorted(p.planning_hand) if self._playable(p, c)]
            out.append(Act(seat, "pass"))
        elif s.phase == "select":
            out += [Act(seat, "select", (m,)) for m in p.members]
        elif s.phase == "action":
            for other, q in s.players.items():
                if other == seat:
                    continue
                if q.active:
                    out.append(Act(seat, "attack", (other, q.active)))
                out += [Act(seat, "challenge", (other, m)) for m in q.members if m != q.active]
            out += [Act(seat, "roar", ("draw",)), Act(seat, "roar", ("refill",)), Act(seat, "pass")]
            out += [Act(seat, "rampage", (c.id,)) for c in s.city[:4]]
        return out

    # --- what the rules demand, and who sees what ------------------------------------------------------
    def prompts_of(self, state: KaijuState) -> list[Prompt]:
        s = state
        out = [Prompt(seat, "#setup", f"draw {pile} cards up to {r.target}"
                      + (" (discard first if you wish), or keep" if r.may_discard else ""))
               for (seat, pile), r in s.refills.items()]
        if s.knockdown:
            out.append(Prompt(s.knockdown, "#key_terms", "knockdown: discard a combat card at random"))
        if s.challenge:
            out.append(Prompt(s.challenge[1], "#actions", f"{s.challenge[0]} challenges your {s.challenge[2]}: "
                                                           "accept or decline"))
        if s.combat is not None:
            seat = combat.to_play(s)
            if seat:
                out.append(Prompt(seat, "#combat_flow", "play a combat card face down, or pass"))
        elif not out and (seat := flow.to_act(s)):
            what = {"planning": "play a planning card or pass", "select": "select your active character",
                    "action": "attack, challenge, roar, rampage or pass"}[s.phase]
            out.append(Prompt(seat, "#turn_order", what))
        out += [Prompt(None, "#kaiju_abilities", text, blocking=False) for text in s.notices]
        return out

    def view_of(self, state: KaijuState, viewer: str) -> View:
        """Hands and decks are hidden (a hand to its owner and judges only, deck contents to judges only); a
        face-down combat card only to the one who played it and judges; the rest is on the table."""
        s = state
        players: dict[str, object] = {}
        for seat, p in s.players.items():
            sees = viewer in (seat, JUDGE)
            players[seat] = {
                "team": p.team, "energy": p.energy, "fury": p.fury, "glory": p.glory, "active": p.active,
                "members": {m.id: {"code": m.stats.code, "damage": m.damage, "scar": m.scar}
                            for m in p.members.values()},
                "planning_hand": sorted(p.planning_hand.elements()) if sees else p.planning_hand.total(),
                "combat_hand": sorted(p.combat_hand.elements()) if sees else p.combat_hand.total(),
                "planning_deck": sorted(p.planning_deck.elements()) if viewer == JUDGE else p.planning_deck.total(),
                "combat_deck": sorted(p.combat_deck.elements()) if viewer == JUDGE else p.combat_deck.total(),
                "planning_discard": sorted(p.planning_discard.elements()),
                "combat_discard": sorted(p.combat_discard.elements()),
            }
        fight: dict[str, object] | None = None
        if s.combat is not None:
            fight = {"initiative": s.combat.initiative}
            for name in ("attacker", "defender"):
                side = getattr(s.combat, name)
                down = side.card if viewer in (side.seat, JUDGE) else ("face-down" if side.card else None)
                fight[name] = {"seat": side.seat, "fighter": side.fighter, "stack": list(side.stack), "card": down}
        return {"game": self.name, "phase": s.phase, "turn": s.turn, "order": list(s.order),
                "to_act": flow.to_act(s), "city": [{"id": c.id, "damage": c.damage} for c in s.city],
                "players": players, "combat": fight, "result": self._result_text(s)}

    def _result_text(self, s: KaijuState) -> str | None:
        r = self.result_of(s)
        return r.to_text() if r else None

    def result_of(self, state: KaijuState) -> GameResult | None:
        return GameResult(*state.result) if state.result else None

    def text_of(self, state: KaijuState) -> str:
        s = state
        lines = [f"phase {s.phase} turn {s.turn} to-act {flow.to_act(s) or '-'} order {','.join(s.order)}",
                 "city " + (" ".join(f"{c.id}:{c.damage}" for c in s.city) or "-")]
        for seat in s.seats:
            p = s.players[seat]
            lines.append(f"{seat} team {p.team} energy {p.energy} fury {p.fury} glory {p.glory} active "
                         f"{p.active or '-'} members " + (" ".join(f"{m.id}:{m.damage}" + (f"+{m.scar}" if m.scar
                                                                                         else "")
                                                             for m in p.members.values()) or "-"))
            for label, cards in (("planning-hand", p.planning_hand), ("combat-hand", p.combat_hand),
                                 ("planning-discard", p.planning_discard), ("combat-discard", p.combat_discard)):
                if cards:
                    lines.append(f"{seat} {label} {','.join(sorted(cards.elements()))}")
            lines.append(f"{seat} decks {p.planning_deck.total()}/{p.combat_deck.total()}")
        for (seat, pile), r in s.refills.items():
            lines.append(f"owes {seat} {pile} up to {r.target}" + (" may-discard" if r.may_discard else ""))
        if s.combat:
            c = s.combat
            lines.append(f"combat {c.attacker.seat}:{c.attacker.fighter} vs {c.defender.seat}:{c.defender.fighter}"
                         f" initiative {c.initiative} passes {c.passes}")
        if s.result:
            lines.append(f"result {GameResult(*s.result).to_text()}")
        return "\n".join(lines)


def new(config: Config, catalog: KaijuCatalog | None = None) -> KaijuGame:
    """A game set up from `config` (see `rules.kaiju.setup.setup` for the keys)."""
    cat = catalog or packaged()
    return KaijuGame(setup(config, cat), cat)
