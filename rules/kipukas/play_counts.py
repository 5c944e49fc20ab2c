"""`PlayCounts`: what day generation asks of the cards in play (`rules.kipukas.legal_items.scan`), per owning
seat, kept up to date on every card write of a `CardTable` instead of found by a pass over the cards at each
day position. An undo rewinds it for free: `GameState.restore` writes the old records back through the table."""

from __future__ import annotations

from collections.abc import Mapping

from rules.kipukas.catalog import KIND_HEALER, KIND_ITEM, KIND_SOUL, KIND_SPACED, KIND_UNDERGROUND
from rules.kipukas.records import CardState

_NOTHING: dict[str, dict[str, int]] = {}
_SKIP = (_NOTHING, "")  # a count that does not apply


class PlayCounts:
    """The cards in play as `scan` reads them. Souls per owner in table order (the order legal actions are
    generated in), items in table order, and counts: each owner's souls per territory that count to the limit,
    per stand, and per movement stand where they are revealed; each owner's underground dwellers; healers,
    rogue souls on the map. A card entering play, or a soul changing owners, rebuilds the one ordered group it
    joins from the table's `play` (already in table order); every other write changes entries in place."""

    __slots__ = ("healers", "items", "kinds", "movement", "occupied", "own", "roaming", "rogues", "stands", "taken",
                 "underground", "visible", "where")

    def __init__(self, play: Mapping[str, CardState], kinds: Mapping[str, int], where: Mapping[str, str],
                 movement: frozenset[str]) -> None:
        self.kinds, self.where, self.movement = kinds, where, movement
        self.own: dict[str, dict[str, CardState]] = {}      # owner -> souls in play, table order
        self.items: dict[str, CardState] = {}                # item cards in play, table order
        self.occupied: dict[str, dict[str, int]] = {}        # owner -> territory -> souls counting to the limit
        self.stands: dict[str, dict[str, int]] = {}          # owner -> stand -> souls there
        self.visible: dict[str, dict[str, int]] = {}         # owner -> movement stand -> revealed souls there
        self.underground: dict[str, int] = {}                # owner -> underground dwellers in play
        self.taken: dict[str, int] = {}                      # owner -> its souls in play another seat controls
        self.healers = 0                                     # cards in play with the healer flag
        self.rogues = 0                                      # rogue souls on the map
        self.roaming: dict[str, CardState] = {}              # those rogue souls, table order
        for k, x in play.items():
            kind = kinds[x.code]
            if kind & KIND_SOUL:
                self.own.setdefault(x.owner, {})[k] = x
            elif kind & KIND_ITEM:
                self.items[k] = x
            self._count(x, kind, 1)
        self.roaming = self._roaming(play)

    def _roaming(self, play: Mapping[str, CardState]) -> dict[str, CardState]:
        """The rogue souls on the map in table order, from the table's `play` (rebuilt when one joins or leaves)."""
        kinds = self.kinds
        return {k: x for k, x in play.items() if x.rogue and x.at is not None and kinds[x.code] & KIND_SOUL}

    def _count(self, x: CardState, kind: int, by: int) -> None:
        """Add (`by` 1) or take away (-1) the counts of record `x` of a card in play (the bumps inlined: this
        runs on every move)."""
        if kind & KIND_HEALER:
            self.healers += by
        if not kind & KIND_SOUL:
            return
        owner, at = x.owner, x.at
        if kind & KIND_UNDERGROUND:
            self.underground[owner] = self.underground.get(owner, 0) + by
        if x.controller is not None and x.controller != owner:
            self.taken[owner] = self.taken.get(owner, 0) + by
        if at:
            for counts, key in ((self.stands, at),
                                (self.occupied, self.where[at]) if kind & KIND_SPACED else _SKIP,
                                (self.visible, at) if x.revealed and at in self.movement else _SKIP):
                if counts is _NOTHING:
                    continue
                row = counts.get(owner)
                if row is None:
                    row = counts[owner] = {}
                n = row.get(key, 0) + by
                if n:
                    row[key] = n
                else:
                    del row[key]
        if x.rogue and at is not None:
            self.rogues += by

    def _step(self, owner: str, was: str, now: str, kind: int, revealed: bool) -> None:
        """`_count` of a soul of `owner` taken away at stand `was` and added at `now`, nothing else changed: the
        counts of a move, without the per-territory change when it stays in its territory."""
        row = self.stands[owner]  # the soul was counted at `was`: its owner's row and entry are there
        n = row[was] - 1
        if n:
            row[was] = n
        else:
            del row[was]
        row[now] = row.get(now, 0) + 1
        if kind & KIND_SPACED:
            where = self.where
            left, entered = where[was], where[now]
            if left != entered:
                row = self.occupied[owner]
                n = row[left] - 1
                if n:
                    row[left] = n
                else:
                    del row[left]
                row[entered] = row.get(entered, 0) + 1
        movement = self.movement
        if revealed and (was in movement or now in movement):
            shown = self.visible.get(owner)
            if shown is None:
                shown = self.visible[owner] = {}
            if was in movement:
                n = shown[was] - 1
                if n:
                    shown[was] = n
                else:
                    del shown[was]
            if now in movement:
                shown[now] = shown.get(now, 0) + 1

    def write(self, key: str, old: CardState | None, new: CardState | None, play: Mapping[str, CardState]) -> None:
        """Card `key` went from `old` to `new` (None: absent); `play` is the table's cards in play after it."""
        kinds = self.kinds
        was = old is not None and old.zone == "play"
        now = new is not None and new.zone == "play"
        if was and now:
            assert old is not None and new is not None
            kind = kinds[new.code]
            if old.code == new.code and old.owner == new.owner:  # the usual write: in place
                if old.at != new.at or old.revealed != new.revealed or old.rogue != new.rogue \
                        or old.controller != new.controller:
                    if kind & KIND_SOUL and old.at and new.at and old.revealed == new.revealed \
                            and old.rogue == new.rogue and old.controller == new.controller:
                        self._step(new.owner, old.at, new.at, kind, new.revealed)  # a move: only the stand
                    else:
                        self._count(old, kind, -1)
                        self._count(new, kind, 1)
                if kind & KIND_SOUL:
                    self.own[new.owner][key] = new
                    if old.rogue or new.rogue:
                        if old.rogue and new.rogue and old.at is not None and new.at is not None:
                            self.roaming[key] = new  # still roaming: its place in table order is kept
                        else:
                            self.roaming = self._roaming(play)
                elif kind & KIND_ITEM:
                    self.items[key] = new
                return
        if was:
            assert old is not None
            kind = kinds[old.code]
            self._count(old, kind, -1)
            if kind & KIND_SOUL:
                del self.own[old.owner][key]
                if key in self.roaming:
                    del self.roaming[key]
            elif kind & KIND_ITEM:
                del self.items[key]
        if now:
            assert new is not None
            kind = kinds[new.code]
            self._count(new, kind, 1)
            if kind & KIND_SOUL:
                owner = new.owner
                self.own[owner] = {k: x for k, x in play.items() if x.owner == owner and kinds[x.code] & KIND_SOUL}
                if new.rogue and new.at is not None:
                    self.roaming = self._roaming(play)
            elif kind & KIND_ITEM:
                self.items = {k: x for k, x in play.items() if kinds[x.code] & (KIND_ITEM | KIND_SOUL) == KIND_ITEM}
