"""`CardTable`: the game's cards by id with the indices kept on every write (by zone and controlling
player, the cards in play in table order, by stand), and the journal of card writes an action applied in
place is taken back with (`GameState.mark` / `restore`)."""

from __future__ import annotations

from typing import Any

from rules.kipukas.catalog import KIND_ITEM, KIND_SOUL
from rules.kipukas.play_counts import PlayCounts
from rules.kipukas.records import CardState


def _by_id(c: CardState) -> str:
    return c.id


class CardTable(dict[str, CardState]):
    """The game's cards by id, keeping on every write an index by zone and controlling player (`owned`) and
    the cards in play in table order (`play`), so rules that ask "which souls are on the map" or "what is
    in red's hand" look at a handful of cards instead of all sixty.

    `clone()` shares the index dicts copy-on-write (both sides copy a dict before their first write to it),
    so a snapshot per action costs one copy of the id table, not of every index.
    """

    __slots__ = ("bound", "counts", "journal", "mine", "on", "owned", "play", "play_mine", "settled", "sorted_by",
                 "touched")

    def __init__(self, cards: dict[str, CardState] | None = None) -> None:
        super().__init__(cards or {})
        self.play: dict[str, CardState] = {k: c for k, c in self.items() if c.zone == "play"}
        self.owned: dict[tuple[str, str], dict[str, CardState]] = {}  # (zone, controlling player) -> cards
        for k, c in self.items():
            self.owned.setdefault((c.zone, c.control), {})[k] = c
        self.mine: set[tuple[str, str]] = set(self.owned)  # index dicts this table may write without copying
        self.play_mine = True
        # Stands where a card arrived, left, or changed what it means for claims since claims were last
        # settled (`turns.settle_claims` looks only there, and clears it).
        self.touched: set[str] = {c.at for c in self.values() if c.at is not None}
        self.settled: dict[str, tuple[str, str]] | None = None  # the claims as the last settlement left them
        # While an action is applied in place: its undo journal. A card write appends two items, the card id
        # and the record before the write (no pair object per write: every journal is kept for the whole game,
        # and each tuple in it is one more object the garbage collector walks); a write into the state's small
        # dicts appends one (field, key, old value) tuple (`rules.kipukas.journal`). `GameState.restore`
        # reads it newest first: a tuple is a dict write, anything else the old record of a card write.
        self.journal: list[Any] | None = None
        self.bound: tuple[object, ...] | None = None  # the state's dicts that journal into this table
        # (zone, controlling player or None for everyone) -> its cards sorted by id, until a write there.
        self.sorted_by: dict[tuple[str, str | None], list[CardState]] = {}
        # stand -> the cards in play there (table order within a stand not kept); built on first use
        self.on: dict[str, dict[str, CardState]] | None = None
        # what day generation reads of the cards in play, kept on every write once built (`play_counts`)
        self.counts: PlayCounts | None = None

    def __reduce__(self) -> tuple[type[CardTable], tuple[dict[str, CardState]]]:
        """copy, deepcopy and pickle rebuild the indices from the cards (claims are then looked at everywhere)."""
        return CardTable, (dict(self),)

    def clone(self) -> CardTable:
        new = CardTable.__new__(CardTable)
        dict.update(new, self)
        new.owned = dict(self.owned)
        new.play = self.play
        new.mine, self.mine = set(), set()
        new.play_mine = self.play_mine = False
        new.touched = set(self.touched)
        new.settled = self.settled
        new.journal = None
        new.bound = None
        new.sorted_by = dict(self.sorted_by)  # the lists are never changed, only dropped
        new.on = None  # rebuilt when first asked for
        new.counts = None
        return new

    def play_counts(self, kinds: dict[str, int], where: dict[str, str], movement: frozenset[str]) -> PlayCounts:
        """The cards in play counted for `rules.kipukas.legal_items.scan`, kept up to date on every write once
        built (for this catalog's kinds: another catalog rebuilds them)."""
        counts = self.counts
        if counts is None or counts.kinds is not kinds:
            counts = self.counts = PlayCounts(self.play, kinds, where, movement)
        return counts

    def at_stand(self) -> dict[str, dict[str, CardState]]:
        """Stand -> the cards in play on it, kept up to date on every write once built."""
        on = self.on
        if on is None:
            on = self.on = {}
            for k, c in self.play.items():
                if c.at is not None:
                    on.setdefault(c.at, {})[k] = c
        return on

    def zone(self, zone: str) -> list[CardState]:
        """Every card in `zone`, whoever controls it (unordered)."""
        return [c for (z, _), members in self.owned.items() if z == zone for c in members.values()]

    def any_in(self, zone: str) -> bool:
        """Whether any card is in `zone` (without listing them); the two seats' entries are looked at first."""
        owned = self.owned
        if owned.get((zone, "red")) or owned.get((zone, "blue")):
            return True
        return any(members for (z, _), members in owned.items() if z == zone)

    def sorted_in(self, zone: str, owner: str | None) -> list[CardState]:
        """The cards of `zone` (controlled by `owner`, or everyone's when None) sorted by id; kept until a
        write to that zone, as hands and decks are asked for far more often than they change."""
        key = (zone, owner)
        found = self.sorted_by.get(key)
        if found is None:
            members = self.zone(zone) if owner is None else self.owned.get((zone, owner), {}).values()
            found = self.sorted_by[key] = sorted(members, key=_by_id)
        return list(found)

    def sorted_view(self, zone: str, owner: str) -> list[CardState]:
        """`sorted_in` for one player without the copy: the table's own cached list, which the caller must
        not change (legal-action generation reads hands and decks many times per game)."""
        key = (zone, owner)
        found = self.sorted_by.get(key)
        if found is None:
            found = self.sorted_by[key] = sorted(self.owned.get(key, {}).values(), key=_by_id)
        return found

    def _members(self, key: tuple[str, str]) -> dict[str, CardState]:
        cache = self.sorted_by
        if cache:
            cache.pop(key, None)
            cache.pop((key[0], None), None)
        if key not in self.mine:
            self.owned[key] = dict(self.owned.get(key, {}))
            self.mine.add(key)
        return self.owned[key]

    def __setitem__(self, key: str, cs: CardState) -> None:
        old = dict.get(self, key)
        journal = self.journal
        if journal is not None:
            journal.append(key)
            journal.append(old)
        dict.__setitem__(self, key, cs)
        if old is not None:
            zone, at = cs.zone, cs.at
            if old.zone == zone and old.at == at and old.controller == cs.controller and old.owner == cs.owner:
                # The usual write (moved, revealed, injured, ...): the card stays where it is, in the same
                # hands, so each index only takes the new record in place (member order is not kept).
                if at is not None and (old.rogue != cs.rogue or old.equipped_to != cs.equipped_to):
                    self.touched.add(at)
                self._members((zone, cs.controller or cs.owner))[key] = cs
                if zone == "play":  # it was in play: it is in `play`, and on its stand once that index is built
                    on = self.on
                    if on is not None and at is not None:
                        on[at][key] = cs
                    if not self.play_mine:
                        self.play, self.play_mine = dict(self.play), True
                    self.play[key] = cs
                    counts = self.counts
                    if counts is not None:  # the same stand and hands: most writes only swap the record
                        if old.revealed != cs.revealed or old.rogue != cs.rogue or old.code != cs.code:
                            counts.write(key, old, cs, self.play)
                        else:
                            kind = counts.kinds[cs.code]
                            if kind & KIND_SOUL:
                                counts.own[cs.owner][key] = cs
                                if cs.rogue and at is not None:  # a rogue soul on the map: still roaming
                                    counts.roaming[key] = cs
                            elif kind & KIND_ITEM:
                                counts.items[key] = cs
                return
        if old is None or old.at != cs.at or old.zone != cs.zone or old.rogue != cs.rogue \
                or old.equipped_to != cs.equipped_to or old.controller != cs.controller or old.owner != cs.owner:
            if old is not None and old.at is not None:
                self.touched.add(old.at)
            if cs.at is not None:
                self.touched.add(cs.at)
        new_key = (cs.zone, cs.controller or cs.owner)
        if old is None:
            self._members(new_key)[key] = cs
        else:
            old_key = (old.zone, old.controller or old.owner)
            if old_key == new_key:  # same zone and hands, another stand (member order is not kept)
                self._members(new_key)[key] = cs
            else:
                del self._members(old_key)[key]
                self._members(new_key)[key] = cs
        on = self.on
        if on is not None:
            if old is not None and old.at is not None and old.zone == "play":
                del on[old.at][key]
            if cs.at is not None and cs.zone == "play":
                on.setdefault(cs.at, {})[key] = cs
        if cs.zone == "play":
            if key in self.play:
                if not self.play_mine:
                    self.play, self.play_mine = dict(self.play), True
                self.play[key] = cs
            else:  # entering play is rare: rebuild in the table's order
                self.play, self.play_mine = {k: c for k, c in self.items() if c.zone == "play"}, True
        elif key in self.play:
            if not self.play_mine:
                self.play, self.play_mine = dict(self.play), True
            del self.play[key]
        if self.counts is not None:
            self.counts.write(key, old, cs, self.play)

    def __delitem__(self, key: str) -> None:
        old = self[key]
        journal = self.journal
        if journal is not None:
            journal.append(key)
            journal.append(old)
        dict.__delitem__(self, key)
        if self.on is not None and old.at is not None and old.zone == "play":
            del self.on[old.at][key]
        del self._members((old.zone, old.control))[key]
        if key in self.play:
            if not self.play_mine:
                self.play, self.play_mine = dict(self.play), True
            del self.play[key]
        if self.counts is not None:
            self.counts.write(key, old, None, self.play)

    def update(self, *args: object, **kwargs: object) -> None:
        raise TypeError("CardTable is changed one card at a time (cards[id] = record), so its index stays right")
