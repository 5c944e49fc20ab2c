"""A state sent as what changed since the previous one (`diff`), and that change applied (`apply`).

A viewer's state is a JSON object that mostly stays the same between two changes of the table: a new
record row changes its version, its log (a window of the most recent entries that moves on by one) and a
few other keys. A delta names the state it applies to (`base`) and the one it makes (`to`), both by the
state's `version` and `seq`; it carries the top-level keys that changed (`set`), those that went
(`unset`) and, for a list that moved on as a window, only how many entries left its front and which
came at its end (`lists`). `apply(base, diff(base, new)) == new` for any two JSON objects (tested with
hypothesis); a client whose state is not the delta's `base` must not apply it (it asks for the state).
"""

from __future__ import annotations

from typing import Any

Ident = list[Any]


def ident(state: dict[str, Any]) -> Ident:
    """What names a state: its `version` and `seq` (a delayed spectators' view moves on by `seq`)."""
    return [state.get("version"), state.get("seq")]


def _window(old: list[Any], new: list[Any]) -> dict[str, Any] | None:
    """`new` as `old` moved on (`drop` entries left its front, `append` came at its end), if it is one."""
    if not old or not new:
        return None
    try:
        start = old.index(new[0])
    except ValueError:
        return None
    kept = len(old) - start
    if kept > len(new) or old[start:] != new[:kept]:
        return None
    return {"drop": start, "append": new[kept:]}


def diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The delta that turns `old` into `new` (both JSON objects)."""
    changed: dict[str, Any] = {}
    lists: dict[str, Any] = {}
    for key, value in new.items():
        if key in old and old[key] == value:
            continue
        before = old.get(key)
        moved = _window(before, value) if isinstance(before, list) and isinstance(value, list) else None
        if moved is not None and len(moved["append"]) < len(value):
            lists[key] = moved
        else:
            changed[key] = value
    delta: dict[str, Any] = {"base": ident(old), "to": ident(new), "set": changed,
                             "unset": [k for k in old if k not in new]}
    if lists:
        delta["lists"] = lists
    return delta


def apply(old: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The state `delta` makes from `old`; `ValueError` when `old` is not its base."""
    if ident(old) != delta["base"]:
        raise ValueError(f"delta from {delta['base']} cannot apply to state {ident(old)}")
    state = {k: v for k, v in old.items() if k not in delta["unset"]}
    state.update(delta["set"])
    for key, moved in delta.get("lists", {}).items():
        state[key] = [*old[key][moved["drop"]:], *moved["append"]]
    return state
