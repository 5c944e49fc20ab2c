"""Compare the stable board the camera sees with the board the record expects, and turn the
differences into candidate actions for the rules.

Only changes the record can explain become actions: a claim token on an empty territory stand, and a
soul token of one owner that left one stand and arrived on another (or left / entered a base camp,
where no token is shown). Whatever cannot be attributed stays a listed difference: the table is out of
sync until the board matches the record again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rules.movement import check_move
from tracker.board import EMPTY, StandValue
from tracker.table import LogEntry, Soul, TableModel


@dataclass
class Reconciler:
    table: TableModel
    source: str = "overhead"
    # action -> how many accepted entries the record held when it was rejected: the same reading is not
    # logged again until the record changes (then the rules may decide differently).
    _rejected: dict[str, int] = field(default_factory=dict)

    def update(self, observed: Mapping[str, StandValue]) -> list[LogEntry]:
        """Process a new stable board; return the log entries it produced (possibly none)."""
        entries: list[LogEntry] = []
        expected = self.table.expected_board()
        # Capitals first: a base camp is only legal once its owner has a capital (#game_setup).
        for stand, seen in sorted(observed.items(), key=lambda item: (item[1].kind != "capital", item[0])):
            want = expected.get(stand, EMPTY)
            if seen != want and want.empty and seen.kind in ("capital", "basecamp") and seen.owner:
                entries += self._claim(stand, seen)
        owners = {v.owner for v in observed.values() if v.owner} | {s.owner for s in self.table.souls.values()}
        for owner in sorted(owners):
            entries += self._soul_moves(owner, observed)
        if not differences(self.table, observed):
            self._rejected.clear()
        return entries

    def _once(self, act: Callable[[], LogEntry], action: str) -> list[LogEntry]:
        accepted = self.table.accepted
        if self._rejected.get(action) == accepted:
            return []
        entry = act()
        if not entry.accepted:
            self._rejected[entry.action] = accepted
        return [entry]

    def _claim(self, stand: str, seen: StandValue) -> list[LogEntry]:
        owner = seen.owner or ""
        return self._once(lambda: self.table.claim(self.source, owner, seen.kind, stand),
                          f"{owner} {seen.kind} {stand}")

    def _soul_moves(self, owner: str, observed: Mapping[str, StandValue]) -> list[LogEntry]:
        expected = self.table.expected_board()
        vanished, appeared = [], []
        for stand, spec in self.table.board.stands.items():
            if spec.kind != "movement" or stand not in observed:
                continue
            want = _tokens(expected.get(stand, EMPTY), owner)
            seen = _tokens(observed[stand], owner)
            vanished += [stand] * max(0, want - seen)
            appeared += [stand] * max(0, seen - want)
        if len(vanished) > 1 or len(appeared) > 1 or not (vanished or appeared):
            return []
        if vanished and appeared:
            movers = self.table.souls_on(vanished[0], owner)
            return self._move(movers[0], appeared[0]) if movers else []
        if appeared:  # a soul left a base camp / capital
            in_camps = [s for s in self.table.souls.values()
                        if s.owner == owner and self.table.board.stands[s.stand].kind == "territory"]
            return self._pick(in_camps, appeared[0])
        movers = self.table.souls_on(vanished[0], owner)  # a soul entered a base camp / capital
        camps = [st for st, (_, o) in self.table.claims.items() if o == owner]
        if len(movers) != 1:
            return []
        reachable = [c for c in camps if self._legal(movers[0], c)]
        return self._move(movers[0], reachable[0]) if len(reachable) == 1 else []

    def _pick(self, souls: list[Soul], goal: str) -> list[LogEntry]:
        legal = [s for s in souls if self._legal(s, goal)]
        if len(legal) == 1:
            return self._move(legal[0], goal)
        if not legal and len(souls) == 1:
            return self._move(souls[0], goal)  # the only candidate: let the rules explain the rejection
        return []

    def _legal(self, soul: Soul, goal: str) -> bool:
        return check_move(self.table.board, soul.title, soul.movement, soul.stand, goal,
                          self.table.enemy_stands(soul.owner)).accepted

    def _move(self, soul: Soul, goal: str) -> list[LogEntry]:
        return self._once(lambda: self.table.move_soul(self.source, soul, goal),
                          f"{soul.owner} move {soul.physical_id} {soul.stand}-{goal}")


def _tokens(value: StandValue, owner: str) -> int:
    return value.count if value.kind == "soul" and value.owner == owner else 0


def differences(table: TableModel, observed: Mapping[str, StandValue]) -> list[str]:
    """Human-readable list of every stand where the board and the record disagree."""
    expected = table.expected_board()
    out = []
    for stand in sorted(observed):
        want = expected.get(stand, EMPTY)
        if observed[stand] != want:
            out.append(f"{stand}: board shows {observed[stand].text()}, record expects {want.text()}")
    return out
