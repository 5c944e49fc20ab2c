"""The scripted game the demo table plays: set-up by phone and by tokens, cards played and revealed on the
mat with no phone declaration (face up after being shown to the front camera, face down read from the QR
on the card's back), legal moves, and one illegal move that is flagged and then put right. Each step lists
what the players say on their phones (notation, sent when the step begins), the cards shown to the front
camera, the whole board of tokens and the whole mat after the step."""

from __future__ import annotations

from dataclasses import dataclass, field

DECKS: dict[str, list[str]] = {
    "red": ["HMPU#0004", "SWyA#0001", "WCA9#0001"],  # Hilbert (movement 2), Gray Wolf, Illia and Dorsay
    "blue": ["F3GW#0001", "ZrrD#0002", "hLwQ#0001"],  # Tears for Oly (movement 3), Myrthvither Raven, Joker
}


@dataclass(frozen=True)
class Step:
    caption: str
    tokens: dict[str, tuple[str, str, int]]  # stand -> (kind, owner, count): the whole board after the step
    say: tuple[str, ...] = ()  # notation lines, each "<seat> <verb> ..." sent from that seat's phone
    shown: tuple[str, ...] = ()  # card ids shown to the front camera when the step begins
    cards: dict[str, tuple[tuple[str, str | None], ...]] = field(default_factory=dict)  # slot -> (face, payload)
    # from the bottom card up: the whole mat after the step
    dice: tuple[tuple[str, str, str], ...] = ()  # (kind, seat, face): the dice rolled into the roll area
    tap: tuple[str, ...] = ()  # seats that tap "read N - confirm" once the dice are at rest
    typed: tuple[str, ...] = ()  # rolls typed on a phone after the dice came to rest ("<seat> roll ...")
    judge: tuple[str, ...] = ()  # a judge's actions at the end of the step


WOLF_PAYLOAD = "kpks.us/SWyA#0001?dEm0w1"  # what the QR on the back of red's Gray Wolf says
ILLIA_PAYLOAD = "kpks.us/WCA9#0001?dEm0i1"  # red's Illia and Dorsay: its back, of which only the end shows


def demo_steps() -> list[Step]:
    board: dict[str, tuple[str, str, int]] = {}
    mat: dict[str, tuple[tuple[str, str | None], ...]] = {}
    steps: list[Step] = []

    def step(caption: str, *say: str, shown: tuple[str, ...] = (),
             cards: dict[str, tuple[tuple[str, str | None], ...]] | None = None,
             **changes: tuple[str, str, int] | None) -> None:
        for stand, value in changes.items():
            if value is None:
                board.pop(stand, None)
            else:
                board[stand] = value
        mat.update(cards or {})
        steps.append(Step(caption, dict(board), say, shown, dict(mat)))

    step("Affinities and the capital roll-off", "red affinity Avian", "blue affinity Decrepit",
         "red roll d6 5", "blue roll d6 2")
    step("Red, higher roll, places its capital on territory 7", T7=("capital", "red", 1))
    step("Blue places its capital on territory 4", T4=("capital", "blue", 1))
    step("Red claims territory 8", T8=("basecamp", "red", 1))
    step("Blue claims territory 3", T3=("basecamp", "blue", 1))
    step("Red claims territory 1", T1=("basecamp", "red", 1))
    step("Blue claims territory 5", T5=("basecamp", "blue", 1))
    step("Effects and draws, by phone", "red personal none", "blue personal none",
         "red draw HMPU#0004,SWyA#0001,WCA9#0001", "blue draw F3GW#0001,ZrrD#0002,hLwQ#0001")
    step("Blue shows Tears for Oly to the front camera and lays it face up in slot 3: played revealed",
         shown=("F3GW#0001",), cards={"3": (("up", None),)})
    step("Red shows Hilbert to the front camera and lays it face up in slot 1: played revealed",
         shown=("HMPU#0004",), cards={"1": (("up", None),)})
    step("Tears for Oly moves T3 -> M4: legal; its card goes to slot 4", M4=("soul", "blue", 1),
         cards={"3": (), "4": (("up", None),)})
    step("Hilbert (movement 2) jumps T1 -> M5, three stands away: illegal", M5=("soul", "red", 1),
         cards={"1": (), "5": (("up", None),)})
    step("Red takes Hilbert's token and card back: the board matches the record again", M5=None,
         cards={"5": (), "1": (("up", None),)})
    step("Hilbert moves T1 -> M9: legal", M9=("soul", "red", 1), cards={"1": (), "9": (("up", None),)})
    step("Blue takes initiative; Hilbert goes on M9 -> M8 with his second stand", "blue initiative",
         M9=None, M8=("soul", "red", 1), cards={"9": (), "8": (("up", None),)})
    step("Red lays Gray Wolf face down in slot 1: the QR on its back says which card it is",
         cards={"1": (("down", WOLF_PAYLOAD),)})
    step("Red answers the taming prompt on the phone and turns Gray Wolf face up: revealed",
         "red tame SWyA#0001 tamed", cards={"1": (("up", None),)})
    step("Red takes Gray Wolf off the mat: the tracker asks red why", cards={"1": ()})
    step("Red answers on the phone: a card effect discarded it", "red discard SWyA#0001")
    step("The judge lets Illia and Dorsay's printed text put it under the mat; red slides it face down under "
         "slot 7, its end showing: the tracker asks red which card", "judge effect WCA9#0001 hidden_placement on",
         cards={"7": (("hidden", ILLIA_PAYLOAD),)})
    step("Red answers on the phone: Illia and Dorsay, played hidden; red ends the day: night falls",
         "red play WCA9#0001 7 hidden", "red end")
    return steps
