"""Explain the difference between the stable mat and the record as card actions (#placement, #mats).

A face-down card appearing in a slot is the play the rules allow there (its identity from the QR code on its
back); a card in a slot turning face up is a reveal; a face-up card appearing is a play of the card the
front camera saw last (a card shown is expected in a slot next); a card leaving a slot is what the rules
cannot make of it alone: its owner is asked (discarded, stolen), and the table is out of sync until then.

What cannot be attributed is a flag, never a guess: a card in no registered deck, a card seen in two
slots, a face-down card whose QR cannot be read, a face-up card nobody showed. Flags are worded for
everyone: they never name a face-down card (the judge sees the camera's mat row).

A card played hidden lies under the mat with its end showing beyond the slot's outer edge (#placement_how).
Its QR code is under the mat, so its identity is its owner's word: a card end appearing there asks the
territory's holder which card they played hidden (the legal `hidden` plays); one the record has that the
camera no longer sees is flagged and its owner asked, as for a card leaving a slot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.game import Game
from rules.kipukas.notation import Play, parse
from tracker.table.mat import EMPTY_SLOT, MatCard, SlotValue, expected_mat, slot_of, where
from tracker.table.reconcile import Proposal, Question


@dataclass
class MatExplanation:
    proposal: Proposal | None = None
    flags: list[str] = field(default_factory=list)


def territory_of_slot(board: BoardMap, slot: str) -> str | None:
    """The territory whose cards lie in `slot` (the first transit territory for `transit`)."""
    for tid in sorted(board.territories, key=lambda t: (board.territories[t].number or 0, t)):
        if slot_of(board, tid) == slot:
            return tid
    return None


def explain_mat(game: Game, board: BoardMap, catalog: Catalog, observed: Mapping[str, SlotValue],
                remembered: Mapping[str, str], shown: Sequence[str], stale: bool = False) -> MatExplanation:
    """The next card action explaining `observed` (slot -> top card), plus flags for what cannot be.

    `remembered`: slot -> the id read face down on top there just before the top turned face up with no
    revealed card arriving in the slot meanwhile (a card turned over shows no QR any more);
    `shown`: cards shown to the front camera and not yet on the mat, newest last. With `stale` (a mat seen
    before the record last changed) only legal plays and reveals are proposed."""
    expected = expected_mat(game.state, board, catalog)
    at = where(expected)
    out = MatExplanation()
    seen_in: dict[str, list[str]] = {}
    for slot, v in observed.items():
        if v.card is not None:
            seen_in.setdefault(v.card, []).append(slot)
    twice = {card for card, slots in seen_in.items() if len(slots) > 1}
    for card in sorted(twice):
        out.flags.append(f"one card is seen in two slots at once ({', '.join(sorted(seen_in[card]))}): "
                         "take the copy that is not in play off the mat, or ask the judge")
    for slot in sorted(observed):
        here = expected.get(slot, [])
        found = _slot(game, board, slot, observed[slot], here, at, remembered, shown, twice, out.flags)
        usable = found is not None and not (stale and (not found.legal or found.question is not None))
        if usable and out.proposal is None:
            out.proposal = found
    return out


def _legal(game: Game, line: str) -> bool:
    return game.is_legal(parse(line))


def _slot(game: Game, board: BoardMap, slot: str, seen: SlotValue, cards: list[MatCard], at: dict[str, MatCard],
          remembered: Mapping[str, str], shown: Sequence[str], twice: set[str], flags: list[str]) -> Proposal | None:
    here = [mc for mc in cards if not mc.hidden]
    found: Proposal | None = None
    if seen.face == "down":
        found = _face_down(game, board, slot, seen, here, at, twice, flags)
    elif seen.revealed:
        found = _face_up(game, board, slot, here, remembered.get(slot), shown, flags)
    elif seen.empty and here:
        found = _left(game, slot, here, flags)
    under = _under(game, board, slot, seen, [mc for mc in cards if mc.hidden], flags)
    return found or under


def _under(game: Game, board: BoardMap, slot: str, seen: SlotValue, hidden: list[MatCard],
           flags: list[str]) -> Proposal | None:
    """A card's end beyond the slot's edge against the cards the record has hidden under the mat there."""
    if seen.under is None or seen.under == bool(hidden):
        return None
    if not seen.under:
        flags.append(f"slot {slot}: the record has {len(hidden)} card(s) hidden under the mat here, the camera "
                     "sees no card's end beyond the mat's edge: slide it back so its end shows, or ask the judge")
        return _gone(game, slot, hidden, "hidden under the mat at slot")
    territory = territory_of_slot(board, slot)
    lines = tuple(str(a) for a in game.legal_actions()
                  if isinstance(a, Play) and a.face == "hidden" and a.territory == territory)
    players = {line.split()[0] for line in lines}
    if len(players) == 1:
        return Proposal(question=Question(players.pop(), f"a card was slid under the mat at slot {slot}: which "
                                                         "card did you play hidden?", lines))
    flags.append(f"slot {slot}: a card lies under the mat that the record does not have; a card goes under "
                 "the mat only when its printed text allows it: take it out, or ask the judge")
    return None


def _face_down(game: Game, board: BoardMap, slot: str, seen: SlotValue, here: list[MatCard],
               at: dict[str, MatCard], twice: set[str], flags: list[str]) -> Proposal | None:
    if seen.card is None:
        if not any(not mc.revealed for mc in here):
            flags.append(f"slot {slot}: a face-down card whose QR code cannot be read: straighten it or show it "
                         "to the front camera")
        return None
    if seen.card in twice:
        return None
    cs = game.state.cards.get(seen.card)
    if cs is None:
        flags.append(f"slot {slot}: a face-down card that is in neither registered deck: take it off the mat, "
                     "or ask the judge")
        return None
    placed = at.get(seen.card)
    if placed is not None:
        if placed.slot != slot:
            flags.append(f"slot {slot}: a card the record has in slot {placed.slot}: put it back, or move its "
                         "soul on the map")
        elif placed.revealed:
            flags.append(f"slot {slot}: a card the record has face up lies face down: turn it face up")
        return None
    territory = territory_of_slot(board, slot)
    if territory is None:
        flags.append(f"slot {slot}: no territory of this map lies in that slot")
        return None
    if game.catalog.card(cs.code).type == "Item":
        return _item(game, slot, cs.id, cs.owner, territory, flags)
    line = f"{cs.owner} play {cs.id} {territory} unrevealed"
    return Proposal(line, legal=_legal(game, line))


def _item(game: Game, slot: str, card: str, owner: str, territory: str, flags: list[str]) -> Proposal | None:
    """An item laid face down in a slot goes with a soul there (#equiping): the one legal equip is taken,
    several are a question to its owner, none is a flag."""
    stands = game.board.stands
    souls = sorted(c.id for c in game.state.cards.values() if c.zone == "play" and c.control == owner
                   and c.at in stands and stands[c.at].territory == territory)
    lines = tuple(line for soul in souls if _legal(game, line := f"{owner} equip {card} {soul}"))
    if len(lines) == 1:
        return Proposal(lines[0])
    if lines:
        return Proposal(question=Question(owner, f"which soul in slot {slot} did you equip the item with?", lines))
    flags.append(f"slot {slot}: an item lies here that no soul of its owner in this territory can equip now: "
                 "take it off the mat, or ask the judge")
    return None


def _face_up(game: Game, board: BoardMap, slot: str, here: list[MatCard], last_down: str | None,
             shown: Sequence[str], flags: list[str]) -> Proposal | None:
    hidden = [mc for mc in here if not mc.revealed]
    flipped = [mc for mc in hidden if mc.card == last_down]
    if flipped:
        line = f"{flipped[0].owner} reveal {flipped[0].card}"
        return Proposal(line, legal=_legal(game, line))
    if any(mc.revealed for mc in here):
        return None
    if hidden:
        candidates = hidden
        lines = [f"{mc.owner} reveal {mc.card}" for mc in candidates]
        legal = [line for line in lines if _legal(game, line)]
        if len(lines) == 1:
            return Proposal(lines[0], legal=bool(legal))
        if len(legal) == 1:
            return Proposal(legal[0])
        owners = {mc.owner for mc in candidates}
        if len(owners) == 1 and legal:
            return Proposal(question=Question(owners.pop(), f"which card did you turn face up in slot {slot}?",
                                              tuple(legal)))
        flags.append(f"slot {slot}: a card turned face up, and the record cannot tell which: reveal it on "
                     "your phone")
        return None
    territory = territory_of_slot(board, slot)
    for card in reversed(shown):
        cs = game.state.cards.get(card)
        if cs is None or territory is None or cs.zone != "hand":  # shown before, and played since
            continue
        line = f"{cs.owner} play {cs.id} {territory} revealed"
        return Proposal(line, legal=_legal(game, line))
    flags.append(f"slot {slot}: a face-up card the record does not have: show it to the front camera first")
    return None


def _left(game: Game, slot: str, here: list[MatCard], flags: list[str]) -> Proposal | None:
    """Taking a card off the mat is the owner's word, never the camera's: a card carried along with an
    illegal move, or knocked off, must not become a discard. The owner is asked; the table stays out of sync
    until the card is back or the answer is in the record."""
    flags.append(f"slot {slot}: the record has {len(here)} card(s) here, the mat shows none: put "
                 f"{'it' if len(here) == 1 else 'them'} back, or ask the judge")
    return _gone(game, slot, here, "of slot")


def _gone(game: Game, slot: str, here: list[MatCard], where: str) -> Proposal | None:
    """The owner says what took the card(s) `here` away (discard, steal), or puts them back."""
    players = sorted(game.state.players)
    lines = [f"{mc.owner} discard {mc.card}" for mc in here]
    lines += [f"{p} steal {mc.card}" for mc in here for p in players if p != mc.owner]
    options = tuple(line for line in lines if _legal(game, line))
    owners = {mc.owner for mc in here}
    if options and len(owners) == 1:
        return Proposal(question=Question(owners.pop(), f"the card(s) {where} {slot} left the mat: if a card effect "
                                                        "took them off, say which; otherwise put them back", options))
    return None


__all__ = ["EMPTY_SLOT", "MatExplanation", "explain_mat", "territory_of_slot"]
