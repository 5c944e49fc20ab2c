"""Movement ranges of downed souls (#moving_downed_souls)."""

from __future__ import annotations

# #moving_downed_souls: movement before downed -> movement after (None: cannot be moved at all).
DOWNED_MOVEMENT: dict[int, int | None] = {0: None, 1: 1, 2: 1, 3: 1, 4: 2, 5: 2}


def downed_range(movement: int) -> int | None:
    """Movement range of a downed soul; a range of 1 before needs an escort (#moving_downed_souls)."""
    if movement in DOWNED_MOVEMENT:
        return DOWNED_MOVEMENT[movement]
    return (movement + 1) // 2  # the table stops at 5; above it the halving it describes continues
