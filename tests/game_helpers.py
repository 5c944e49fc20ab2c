"""Shared helpers for game tests: a game set up through the real setup actions, and placing souls."""

from __future__ import annotations

from rules.kipukas.game import Game
from rules.kipukas.notation import PLAYERS


def new_game(red: list[str], blue: list[str], *, red_hand: int = 3, blue_hand: int = 3) -> Game:
    """Blue places first (capital 4, camps 6 and 5), red gets initiative (capital 9, camps 7 and 8).
    Each player draws the first cards of their list; the game stands at turn 1 (day), red to act."""
    g = Game.new({"red": red, "blue": blue})
    script = ["red affinity Avian", "blue affinity Decrepit", "red roll d6 2", "blue roll d6 5",
              "blue capital 4", "red capital 9", "blue camp 6", "red camp 7", "blue camp 5", "red camp 8",
              "red personal none", "blue personal none"]
    for text in script:
        g.push(text)
    for player, cards, n in (("red", red, red_hand), ("blue", blue, blue_hand)):
        g.push(f"{player} draw {','.join(cards[:n])}")
    assert g.state.phase == "day" and g.state.turn == 1 and g.state.active == "red"
    return g


def place(g: Game, card: str, stand: str, *, revealed: bool = True, injuries: tuple[int, ...] | None = None,
          turn: int = 0) -> None:
    """Put `card` on `stand` as if it had been played on an earlier day."""
    cs = g.state.cards[card]
    g.state.cards[card] = cs.set(zone="play", at=stand, revealed=revealed, played_turn=turn, played_revealed=revealed,
                                 injuries=injuries if injuries is not None else cs.injuries, arrived_turn=turn)


def play_until(g: Game, phase: str) -> None:
    """End turns (initiative + end) until the game reaches `phase` (rolling 'day' for diel rolls)."""
    for _ in range(10):
        if g.state.phase == phase:
            return
        if g.state.phase == "diel":
            g.push("red roll diel day")
            continue
        active = g.state.active
        assert active in PLAYERS
        if g.state.passed:
            g.push(f"{active} end")
        else:
            g.push(f"{active} initiative")
    raise AssertionError(f"never reached {phase}")
