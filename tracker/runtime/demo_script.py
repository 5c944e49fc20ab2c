"""The scripted game the demo table plays: set-up by phone and by tokens, souls entering play, legal
moves, and one illegal move that is flagged and then put right. Each step lists what the players say on
their phones (notation, sent when the step begins) and the whole board of tokens after the step."""

from __future__ import annotations

from dataclasses import dataclass

DECKS: dict[str, list[str]] = {
    "red": ["HMPU#0004", "SWyA#0001", "WCA9#0001"],  # Hilbert (movement 2), Gray Wolf, Illia and Dorsay
    "blue": ["F3GW#0001", "ZrrD#0002", "hLwQ#0001"],  # Tears for Oly (movement 3), Myrthvither Raven, Joker
}


@dataclass(frozen=True)
class Step:
    caption: str
    tokens: dict[str, tuple[str, str, int]]  # stand -> (kind, owner, count): the whole board after the step
    say: tuple[str, ...] = ()  # notation lines, each "<seat> <verb> ..." sent from that seat's phone


def demo_steps() -> list[Step]:
    board: dict[str, tuple[str, str, int]] = {}
    steps: list[Step] = []

    def step(caption: str, *say: str, **changes: tuple[str, str, int] | None) -> None:
        for stand, value in changes.items():
            if value is None:
                board.pop(stand, None)
            else:
                board[stand] = value
        steps.append(Step(caption, dict(board), say))

    step("Affinities and the capital roll-off", "red affinity Avian", "blue affinity Decrepit",
         "red roll d6 5", "blue roll d6 2")
    step("Red, higher roll, places its capital on territory 7", T7=("capital", "red", 1))
    step("Blue places its capital on territory 4", T4=("capital", "blue", 1))
    step("Red claims territory 8", T8=("basecamp", "red", 1))
    step("Blue claims territory 3", T3=("basecamp", "blue", 1))
    step("Red claims territory 1", T1=("basecamp", "red", 1))
    step("Blue claims territory 5", T5=("basecamp", "blue", 1))
    step("Effects, draws, and both players play a soul revealed at a base camp",
         "red personal none", "blue personal none", "red draw HMPU#0004,SWyA#0001,WCA9#0001",
         "blue draw F3GW#0001,ZrrD#0002,hLwQ#0001", "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    step("Tears for Oly moves T3 -> M4: legal", M4=("soul", "blue", 1))
    step("Hilbert (movement 2) jumps T1 -> M5, three stands away: illegal", M5=("soul", "red", 1))
    step("Red takes Hilbert's token back: the board matches the record again", M5=None)
    step("Hilbert moves T1 -> M9: legal", M9=("soul", "red", 1))
    step("Blue takes initiative; Hilbert goes on M9 -> M8 with his second stand", "blue initiative",
         M9=None, M8=("soul", "red", 1))
    step("Red ends the day: night falls", "red end")
    return steps
