"""The card mat as the tracker compares it between camera and record (#mats, #placement_etiquette).

Every territory has a slot numbered like it; a transit territory's cards lie in a `transit` slot. The
overhead camera sees only the top card of a slot: its face and, for a face-down card, the physical id read
from the QR code on its back (`CODE#SERIAL`, never the payload's private token). What the record expects is
every card in play in that territory: face down when unrevealed, face up (sideways for a landscape card)
when revealed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.state import GameState

FACES = ("empty", "down", "up", "landscape")
MAT_CARD_TYPES = ("Character", "Species", "TerrainFeature", "Trap")  # the cards that lie in a slot
HIDDEN_CARD_TYPES = (*MAT_CARD_TYPES, "Item")  # and those that may lie under the mat (#placement_how)


@dataclass(frozen=True, slots=True)
class SlotValue:
    """The top card of one slot: its face, and the physical card id when its QR was read (face down); and
    whether a card's end shows beyond the slot's outer edge (played hidden, under the mat), or None where
    the camera does not watch that edge (the transit slots, an edge out of view)."""

    face: str = "empty"
    card: str | None = None
    under: bool | None = None

    def __post_init__(self) -> None:
        if self.face not in FACES:
            raise ValueError(f"slot face {self.face!r} is not one of {', '.join(FACES)}")

    @property
    def empty(self) -> bool:
        return self.face == "empty"

    @property
    def revealed(self) -> bool:
        return self.face in ("up", "landscape")

    def text(self) -> str:
        """The public wording: a face-down card's id is never part of it."""
        top = {"empty": "empty", "down": "a face-down card", "up": "a face-up card",
               "landscape": "a landscape card"}[self.face]
        return f"{top}, a card under the mat" if self.under else top

    def body(self) -> dict[str, str | bool | None]:
        out: dict[str, str | bool | None] = {"face": self.face, "card": self.card}
        if self.under is not None:
            out["under"] = self.under
        return out

    @classmethod
    def of(cls, body: dict[str, object]) -> SlotValue:
        """The value a mat row's or a snapshot's body holds (`body`); rows before hidden cards have no `under`."""
        card, under = body.get("card"), body.get("under")
        return cls(str(body["face"]), None if card is None else str(card), None if under is None else bool(under))


EMPTY_SLOT = SlotValue()


@dataclass(frozen=True, slots=True)
class MatCard:
    """A card the record has in play, and the slot it belongs in."""

    card: str
    owner: str
    slot: str
    revealed: bool
    landscape: bool
    hidden: bool = False  # under the mat, its end showing beyond the slot's edge

    @property
    def face(self) -> str:
        if self.hidden:
            return "hidden"
        if not self.revealed:
            return "down"
        return "landscape" if self.landscape else "up"


def slot_of(board: BoardMap, territory: str) -> str:
    """The mat slot of a territory: its number, or `transit` for a transit territory."""
    t = board.territories[territory]
    return "transit" if t.transit else str(t.number)


def expected_mat(state: GameState, board: BoardMap, catalog: Catalog) -> dict[str, list[MatCard]]:
    """Slot -> the cards the record has in play there (souls, terrain features, traps), by card id."""
    out: dict[str, list[MatCard]] = {}
    for cs in sorted(state.cards.values(), key=lambda c: c.id):
        if cs.zone != "play" or cs.at is None or cs.at not in board.stands:
            continue
        info = catalog.card(cs.code)
        hidden = cs.hidden and not cs.revealed
        if info.type not in (HIDDEN_CARD_TYPES if hidden else MAT_CARD_TYPES):
            continue
        slot = slot_of(board, board.stands[cs.at].territory)
        out.setdefault(slot, []).append(MatCard(cs.id, cs.owner, slot, cs.revealed, info.landscape, hidden))
    return out


def where(expected: dict[str, list[MatCard]]) -> dict[str, MatCard]:
    """Card id -> where the record has it on the mat."""
    return {mc.card: mc for cards in expected.values() for mc in cards}
