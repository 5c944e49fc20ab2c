"""The scripted game the demo table plays: setup, souls entering play, one legal and one illegal move
(then put right), as physical token positions plus the declarations players make on their phones."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Declaration:
    """A soul card played revealed, as a player would declare it (phone or front camera)."""

    owner: str
    payload: str
    stand: str


@dataclass(frozen=True)
class Step:
    caption: str
    tokens: dict[str, tuple[str, str, int]]  # stand -> (kind, owner, count): the whole board after the step
    declare: tuple[Declaration, ...] = field(default_factory=tuple)


HILBERT = "kpks.us/HMPU#0004?BFxDCJ"  # Hilbert: King of Avian Frogs, movement 2
OLY = "kpks.us/F3GW#0001?Qx7Kp2"  # Tears for Oly, movement 3


def demo_steps() -> list[Step]:
    board: dict[str, tuple[str, str, int]] = {}
    steps: list[Step] = [Step("The empty starter map", {})]

    def step(caption: str, *declare: Declaration, **changes: tuple[str, str, int] | None) -> None:
        for stand, value in changes.items():
            if value is None:
                board.pop(stand, None)
            else:
                board[stand] = value
        steps.append(Step(caption, dict(board), tuple(declare)))

    step("Red places its capital on territory 7", T7=("capital", "red", 1))
    step("Blue places its capital on territory 4", T4=("capital", "blue", 1))
    step("Red claims territory 8", T8=("basecamp", "red", 1))
    step("Blue claims territory 3", T3=("basecamp", "blue", 1))
    step("Red claims territory 1", T1=("basecamp", "red", 1))
    step("Blue claims territory 5", T5=("basecamp", "blue", 1))
    step("Red plays Hilbert revealed at its base camp on territory 1", Declaration("red", HILBERT, "T1"))
    step("Hilbert moves T1 -> M9 (1 of 2): legal", M9=("soul", "red", 1))
    step("Blue plays Tears for Oly revealed at territory 3", Declaration("blue", OLY, "T3"))
    step("Tears for Oly moves T3 -> M4: legal", M4=("soul", "blue", 1))
    step("Hilbert jumps M9 -> M5, four stands away with a range of 2: illegal", M9=None, M5=("soul", "red", 1))
    step("Red puts Hilbert back on M9: the board is in sync again", M5=None, M9=("soul", "red", 1))
    step("Hilbert moves M9 -> M8: legal", M9=None, M8=("soul", "red", 1))
    return steps
