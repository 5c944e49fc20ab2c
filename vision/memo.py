"""Results derived from a model array, computed once per array rather than once per frame.

The reader's models (a region's empty look, the table's light model) are replaced when they are updated,
never changed in place (``vision.empty_model``), so what is derived from one (its smoothed copy, its BGR
form, its sample for the light measure) can be kept by the identity of the arrays it came from. The memo
holds the arrays themselves, so an identity is never reused while its entry lives.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class IdentityMemo(Generic[T]):
    """``get((a, b), make)``: ``make()`` the first time these very arrays are seen, the kept result after."""

    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        self._kept: dict[tuple[int, ...], tuple[tuple[object, ...], T]] = {}
        self._lock = threading.Lock()

    def get(self, arrays: tuple[object, ...], make: Callable[[], T]) -> T:
        key = tuple(id(a) for a in arrays)
        with self._lock:
            hit = self._kept.get(key)
        if hit is not None and all(x is y for x, y in zip(hit[0], arrays, strict=True)):
            return hit[1]
        value = make()
        with self._lock:
            if len(self._kept) >= self.limit:
                self._kept.pop(next(iter(self._kept)))  # the oldest: models are replaced in turn
            self._kept[key] = (arrays, value)
        return value
