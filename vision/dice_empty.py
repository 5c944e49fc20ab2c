"""The roll area's empty model, learned from the table itself: no photo of the empty area is needed.

The dice reader finds dice as differences from the empty area (`vision.dice`). With no photo the first
`STREAK` frames in which the area is still (consecutive patches agree to within the camera's noise) become
the model. From then on, whenever the area reads empty for `STREAK` frames in a row, the patch is blended
in (`BLEND`), so the model follows slow changes of light. A die lying in the area when the model was taken
leaves a *hole* once it is picked up: a thing of a die's size whose colour is the table's own; the reader
copies the table back into the model there (`repair`), so a model learned with a die in it heals the first
time that die moves. (Dice of the table's own colour cannot be told from such a hole: a seat's dice must
differ from the table, which they must anyway to be seen.)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
STREAK = 3
BLEND = 0.3
STILL = 4.0  # mean absolute difference (8-bit levels) between consecutive patches of a still area


class EmptyArea:
    """The (rectified, BGR float) patch of the empty roll area, or None until one is learned."""

    def __init__(self) -> None:
        self.model: F32 | None = None
        self.streak = 0
        self.last: F32 | None = None
        self.learned = False  # True once the model came from the table rather than from a photo

    def set(self, patch: F32) -> None:
        self.model = patch.astype(np.float32).copy()
        self.streak = 0

    def offer(self, patch: F32, empty: bool) -> None:
        """One frame's patch. Without a model: stable patches become it. With one: `empty` is not None when
        the frame read empty (no die, no hand), and after a streak of those the patch is blended in."""
        if self.model is None:
            still = self.last is not None and float(np.abs(patch - self.last).mean()) < STILL
            self.streak = self.streak + 1 if still else 0
            self.last = patch.copy()
            if self.streak >= STREAK - 1:
                self.set(patch)
                self.learned = True
                self.last = None
            return
        if not empty:
            self.streak = 0
            return
        self.streak += 1
        if self.streak >= STREAK:
            self.model = (1 - BLEND) * self.model + BLEND * patch

    def repair(self, patch: F32, mask: NDArray[np.bool_]) -> None:
        """Where `mask` is set the table is seen where the model has something else: copy the table in."""
        if self.model is not None:
            self.model[mask] = patch[mask]
