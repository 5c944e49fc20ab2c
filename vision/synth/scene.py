"""What a synthetic frame shows: the pieces on stands, the cards in slots, hands, and the ground truth."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from vision.synth.clutter import Clutter


@dataclass(frozen=True)
class Token:
    """What stands on a stand: a piece kind, its owner (seat colour), how many (soul stacks), flipped."""

    kind: str  # "capital" | "basecamp" | "soul"
    owner: str
    count: int = 1
    flipped: bool = False


@dataclass(frozen=True)
class SlotCard:
    """A card in a mat slot: face "down" (back with QR of ``payload``), "up" or "landscape", or "hidden":
    face down under the mat, only its end (``payload``'s back) showing beyond the mat's edge."""

    face: str
    payload: str | None = None


@dataclass
class TableScene:
    """A table state: tokens by stand id, cards by slot id (the last card of a list is on top), hands, and
    foreign objects (``clutter``)."""

    tokens: dict[str, Token]
    slots: dict[str, list[SlotCard]] = field(default_factory=dict)
    hands: int = 0
    clutter: list[Clutter] = field(default_factory=list)


@dataclass(frozen=True)
class RenderTruth:
    """Ground truth of one rendered frame: the fraction of each stand / slot region hidden by hands or
    foreign objects, and the mask of what they cover."""

    occluded: dict[str, float]
    hand_mask: NDArray[np.uint8]
