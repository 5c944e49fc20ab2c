"""The undo journal of the game state's small dicts (`GameState.players`, `bottom`, `claims`, `fixed_means`,
`overrides`): every write made while an action is applied in place is recorded as (field name, key, old value)
in the action's journal, so taking the action back rewinds those writes instead of restoring copies of the
dicts made before every action (five dict copies per action, kept for the whole game: objects the garbage
collector walks again and again).

The journal is the card table's (`CardTable.journal`, set by `GameState.mark` and cleared when the action is
done), so card writes and dict writes are rewound in the exact reverse order they were made; card writes are
recorded as two items (card id, then the old record), dict writes as one (field, key, old value) tuple.
Entries name the field, never the dict object, so a journal can rewind a copy of the state
(`rules.kipukas.history` rebuilds earlier states that way).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

JOURNALED = ("players", "bottom", "claims", "fixed_means", "overrides")


class _Missing:
    """The old value of a key that was not there: rewinding deletes the key."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


class Journaled(dict[Any, Any]):
    """A dict of the game state that records its writes in its card table's journal while an action is
    applied. Reads are plain dict reads; `copy`, `deepcopy` and `pickle` give a plain dict (the state converts
    it back when the next action is marked). Writes that would bypass the journal are refused."""

    __slots__ = ("name", "owner")

    def __init__(self, name: str, owner: Any, items: Iterable[tuple[Any, Any]] | dict[Any, Any] = ()) -> None:
        super().__init__(items)
        self.name = name    # the `GameState` field it is
        self.owner = owner  # the card table whose `journal` records the writes (None: never recorded)

    def __reduce__(self) -> tuple[type[dict[Any, Any]], tuple[dict[Any, Any]]]:
        return dict, (dict(self),)

    def __setitem__(self, key: Any, value: Any) -> None:
        log = self.owner.journal
        if log is not None:
            log.append((self.name, key, self.get(key, MISSING)))
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        log = self.owner.journal
        if log is not None:
            log.append((self.name, key, self[key]))
        dict.__delitem__(self, key)

    def clear(self) -> None:
        for key in list(self):
            del self[key]

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            value = self[key]
            del self[key]
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def popitem(self) -> tuple[Any, Any]:
        raise TypeError(f"GameState.{self.name} is changed one key at a time, so its undo journal stays right")

    def __ior__(self, other: Any) -> Journaled:  # type: ignore[misc]
        self.update(other)
        return self


def rewind_dict(state: Any, name: str, key: Any, old: Any) -> None:
    """Take back one recorded dict write on `state` (its field `name`), without recording it again. A key
    the write added is dropped if it is there: a dict replaced from outside after the action is rewound
    without failing, like a card edited from outside (outside edits are not the action's to undo)."""
    target = getattr(state, name)
    if old is MISSING:
        dict.pop(target, key, None)
    else:
        dict.__setitem__(target, key, old)
