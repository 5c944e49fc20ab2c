"""`Game.history`: the accepted actions with the state before each, rebuilt from undo records when read.

The game changes one state in place and keeps, per accepted action, only how to take it back (an
`Undo` record; python-chess's move stack). Readers that want the earlier states themselves (the tracker's
snapshots, a #BS ruling) get them here: a `History` is a view taken at one moment — later actions and
undos do not change it — whose states are rebuilt newest first, each one a state of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import overload

from rules.kipukas.notation import Action
from rules.kipukas.state import GameState, Undo

Entry = tuple[Action, Undo | GameState]


class History:
    """The (action, state before it) pairs of a game, oldest first, as they were when the view was taken.

    The current state is copied only when the game is about to change (`freeze`, called by the game) or
    when a state is first read, so `len(game.history)` and trimming cost no copy."""

    __slots__ = ("__weakref__", "_entries", "_live", "_now", "_states")

    def __init__(self, log: list[Entry], state: GameState) -> None:
        self._live = log  # the game's own log: deleting old entries here trims it (the tracker's memory cap)
        self._entries = list(log)
        self._now: GameState | None = state  # the game's live state until frozen
        self._states: list[GameState] = []  # newest first: the state when taken, then before each action

    def freeze(self) -> None:
        """Keep a copy of the state as it is now: the game calls this before it changes its state."""
        if self._now is not None:
            self._states = [self._now.copy()]
            self._now = None

    def _state(self, index: int) -> GameState:
        """The state before action `index` (0 = the oldest kept)."""
        self.freeze()
        states, entries = self._states, self._entries
        while len(states) < len(entries) - index + 1:
            undo = entries[len(entries) - len(states)][1]
            if isinstance(undo, GameState):
                states.append(undo.copy())
            else:
                earlier = states[-1].copy()
                earlier.restore(undo)
                states.append(earlier)
        return states[len(entries) - index]

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        return bool(self._entries)

    @overload
    def __getitem__(self, index: int) -> tuple[Action, GameState]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[Action, GameState]]: ...

    def __getitem__(self, index: int | slice) -> tuple[Action, GameState] | list[tuple[Action, GameState]]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self._entries))[index]]
        i = range(len(self._entries))[index]  # IndexError names an index out of range
        return self._entries[i][0], self._state(i)

    def __iter__(self) -> Iterator[tuple[Action, GameState]]:
        for i in range(len(self._entries)):
            yield self[i]

    def __delitem__(self, index: slice) -> None:
        """Forget the oldest entries (`del game.history[:-N]`); undo records chain from the newest, so only
        a prefix can go."""
        gone = range(len(self._entries))[index]
        if len(gone) and (gone.step != 1 or gone.start != 0):
            raise ValueError(f"only the oldest history entries can be dropped (del history[:N]), not {index!r}")
        n = len(gone)
        del self._live[:n]
        del self._entries[:n]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (History, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"History({len(self._entries)} actions)"
