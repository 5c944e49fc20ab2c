"""A toy game that exists only to prove that adding a game touches nothing but its registration.

"Toy draw": two seats take turns; on your turn you either draw a card from your own deck into your hidden
hand (the line names the card you turned over, as the physical shuffle decides) or play a card from your
hand face up, scoring its number. The first seat to score `target` (default 7) wins. The drawn card is
hidden information: only its seat and judges may read it, in the view and in the record.

It imports only `rules.core`, as a game added by a contributor would, and is registered at run time
(`rules.core.registry.register`), never named by the tracker or the web pages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rules.core.engine import Illegal, SnapshotEngine
from rules.core.interface import JUDGE, Config, GameResult, Prompt, View
from rules.core.notation import NotationError, Words

NAME = "toy"
HAND_LIMIT = 3
VERBS = ("draw", "play")


@dataclass
class ToyState:
    """Each seat's deck (a multiset: a draw names the card), hidden hand, face-up plays and score."""

    seats: tuple[str, ...]
    target: int
    decks: dict[str, Counter[str]]
    hands: dict[str, list[str]] = field(default_factory=dict)
    played: dict[str, list[str]] = field(default_factory=dict)
    active: int = 0

    def clone(self) -> ToyState:
        return ToyState(self.seats, self.target, {s: Counter(d) for s, d in self.decks.items()},
                        {s: list(h) for s, h in self.hands.items()}, {s: list(p) for s, p in self.played.items()},
                        self.active)

    def score(self, seat: str) -> int:
        return sum(int(c) for c in self.played[seat])


@dataclass(frozen=True)
class ToyAction:
    seat: str
    verb: str
    card: str


class ToyGame(SnapshotEngine[ToyState, ToyAction]):
    """The toy game on the shared snapshot engine (see the module docstring)."""

    name = NAME

    def parse(self, line: str) -> ToyAction:
        w = Words(line)
        seat = w.choice("a seat", self.seats)
        verb = w.choice("a verb", VERBS)
        card = w.word("a card")
        if not card.isdigit() or not 1 <= int(card) <= 9:
            raise NotationError(line, f"a card is a number 1-9, got {card!r}", 2)
        w.end()
        return ToyAction(seat, verb, card)

    def fmt(self, action: ToyAction) -> str:
        return f"{action.seat} {action.verb} {action.card}"

    def step(self, state: ToyState, action: ToyAction) -> str:
        if action.seat != state.seats[state.active]:
            raise Illegal("#toy_turn", f"it is {state.seats[state.active]}'s turn")
        if action.verb == "draw":
            if len(state.hands[action.seat]) >= HAND_LIMIT:
                raise Illegal("#toy_draw", f"a hand holds at most {HAND_LIMIT} cards")
            if state.decks[action.seat][action.card] <= 0:
                raise Illegal("#toy_draw", f"no {action.card} left in {action.seat}'s deck")
            state.decks[action.seat][action.card] -= 1
            state.hands[action.seat].append(action.card)
        else:
            if action.card not in state.hands[action.seat]:
                raise Illegal("#toy_play", f"{action.card} is not in {action.seat}'s hand")
            state.hands[action.seat].remove(action.card)
            state.played[action.seat].append(action.card)
        state.active = (state.active + 1) % len(state.seats)
        return ""

    def candidates(self, state: ToyState, seat: str | None) -> list[ToyAction]:
        out: list[ToyAction] = []
        for s in state.seats if seat is None else (seat,):
            out += [ToyAction(s, "draw", c) for c in sorted(state.decks[s]) if state.decks[s][c] > 0]
            out += [ToyAction(s, "play", c) for c in sorted(set(state.hands[s]))]
        return out

    def hidden_words(self, action: ToyAction) -> tuple[int, ...]:
        return (0,) if action.verb == "draw" else ()

    def prompts_of(self, state: ToyState) -> list[Prompt]:
        if self.result_of(state) is not None:
            return []
        seat = state.seats[state.active]
        return [Prompt(seat, "#toy_turn", f"{seat}: draw a card or play one")]

    def view_of(self, state: ToyState, viewer: str) -> View:
        players: dict[str, object] = {}
        for s in state.seats:
            hand = state.hands[s]
            players[s] = {"hand": list(hand) if viewer in (s, JUDGE) else len(hand),
                          "deck": sum(state.decks[s].values()), "played": list(state.played[s]),
                          "score": state.score(s)}
        result = self.result_of(state)
        return {"game": NAME, "active": state.seats[state.active], "target": state.target, "players": players,
                "result": result.to_text() if result else None}

    def result_of(self, state: ToyState) -> GameResult | None:
        done = [s for s in state.seats if state.score(s) >= state.target]
        return GameResult((done[0],), f"scored {state.target}", "#toy_win") if done else None

    def text_of(self, state: ToyState) -> str:
        return "\n".join(f"{s}: hand {' '.join(state.hands[s]) or '-'}; played {' '.join(state.played[s]) or '-'}; "
                         f"score {state.score(s)}" for s in state.seats)


def new(config: Config) -> ToyGame:
    """A toy game: ``seats`` (seat -> its deck, a list of cards 1-9) in play order, optional ``target``."""
    seats = config.get("seats")
    if not isinstance(seats, Mapping) or not 2 <= len(seats) <= 5:
        raise Illegal("#toy_setup", "config key 'seats' must map 2-5 seats to their decks")
    decks: dict[str, Counter[str]] = {}
    for seat, deck in seats.items():
        if not isinstance(deck, Sequence) or isinstance(deck, str) or not all(str(c).isdigit() for c in deck):
            raise Illegal("#toy_setup", f"config key 'seats.{seat}' must be a list of cards 1-9")
        decks[str(seat)] = Counter(str(c) for c in deck)
    target = config.get("target", 7)
    if not isinstance(target, int) or target < 1:
        raise Illegal("#toy_setup", f"config key 'target' must be a positive whole number, got {target!r}")
    order = tuple(decks)
    state = ToyState(order, target, decks, {s: [] for s in order}, {s: [] for s in order})
    return ToyGame(state, order)


def example(seats: list[str]) -> dict[str, object]:
    """Every seat gets the same small deck."""
    return {"seats": {s: ["1", "2", "2", "3", "3", "4", "5"] for s in seats}, "target": 7}
