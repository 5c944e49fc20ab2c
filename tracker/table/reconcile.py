"""Explain the difference between the stable board and the record as game actions, one at a time.

The table loop asks `propose` for the next action that explains what the camera sees, records it with the
rules' verdict, and asks again, until the board matches the record or nothing more can be explained.
Only changes the rules can attribute become actions: claim tokens placed during set-up, and soul tokens
that left one stand and arrived on another (or left / entered a base camp, where no token is shown).
A soul token that only *appears* (a soul leaving its camp shows no token leaving) is weaker evidence: the
overhead reader reads a die in a player's colour as that player's soul, so such a move is recorded from the
camera only when the mat shows the soul's card going to the slot of the territory it moved into (#movement);
otherwise it is a one-tap question to the owner, and the stand awaits that confirmation. A token appearing
that no legal move out of a camp explains is an unknown object, never a rejected move in the owner's name;
so is a soul token on a territory's stand, where no soul token ever stands.
Readings the rules say are impossible are not turned into moves when a legal explanation exists; when a
single explanation exists and it is illegal, it is proposed anyway so the rules' rejection is recorded
and the table goes out of sync. A claim token outside set-up is the exception: nothing in play places one
(a soul's claim is explained by its move), and a die in a player's colour can look like one to the
overhead reader, so one that no legal action explains is an unknown object on its stand, not a claim to
reject in that player's name (issue 13); nor is a capital or camp read on a movement stand, where none ever
stands. Ambiguities become a question to the player who can resolve them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.game import Game
from rules.kipukas.notation import parse
from tracker.table.board import EMPTY, StandValue
from tracker.table.expected import expected_board
from tracker.table.mat import SlotValue, expected_mat, slot_of

CLAIM_VERB = {"capital": "capital", "basecamp": "camp"}  # token kind -> notation verb
SETUP_PHASES = ("affinity", "rolloff", "capitals", "camps")


@dataclass(frozen=True, slots=True)
class Question:
    """An ambiguity only a player can resolve; the answer is one of `options` (notation lines)."""

    player: str
    text: str
    options: tuple[str, ...]
    # (stand, what the board showed there) the question rests on: it stands only while the board still shows
    # them (a die taken away withdraws the question its reading raised)
    seen: tuple[tuple[str, str], ...] = ()

    def stands(self, observed: Mapping[str, StandValue]) -> bool:
        """Whether the board `observed` still shows what the question rests on."""
        return all(observed.get(stand, EMPTY).visible().text() == text for stand, text in self.seen)


@dataclass(frozen=True, slots=True)
class Proposal:
    action: str | None = None  # a notation line to submit
    legal: bool = True  # False: the only explanation, which the rules will reject
    question: Question | None = None
    # stands holding what reads as a claim token that no legal action explains (outside set-up, or on a
    # movement stand): objects the rules cannot attribute, named on the pages, never anyone's action
    unknown: tuple[str, ...] = ()
    # stands where a soul token appeared that only a move out of a base camp explains, and the mat did not
    # show its card moving: the move waits for its owner's answer to `question`, never recorded from this
    unconfirmed: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MatSeen:
    """The stable mat as last seen, and the catalogue that says which cards lie on it: a second view of a
    soul's move (its card goes to the slot of the territory it moved into)."""

    slots: Mapping[str, SlotValue]
    catalog: Catalog


def propose(game: Game, board: BoardMap, observed: Mapping[str, StandValue], stale: bool = False,
            mat: MatSeen | None = None) -> Proposal | None:
    """The next action explaining `observed`. With ``stale`` (a board seen before the record last changed,
    e.g. before a phone declared a move the camera has not seen yet) only legal actions that explain a
    token *present* on the board are proposed: never a rejection, a question, or a token's absence.
    `mat`: the stable mat, which can confirm a soul's move out of its camp."""
    expected = expected_board(game.state, board)
    diff = {s for s, v in observed.items() if v.visible() != expected.get(s, EMPTY).visible()}
    if not diff:
        return None
    if game.state.phase in SETUP_PHASES:
        found = _claim(game, board, observed, diff) or _soul_move(game, board, observed, expected, diff, stale, mat)
    else:
        found = _soul_move(game, board, observed, expected, diff, stale, mat)
        if found is None or found.action is None:
            found = _with_unknown(found, _claim(game, board, observed, diff))
    # a capital or camp never stands on a movement stand, nor a soul token on a territory's stand (#movement:
    # a soul in a camp shows none): what reads as one there is no one's piece either
    misplaced = [s for s in sorted(diff) if (board.stands[s].kind != "territory" and observed[s].kind in CLAIM_VERB)
                 or (board.stands[s].kind == "territory" and observed[s].kind == "soul"
                     and expected.get(s, EMPTY).empty)]
    if misplaced and (found is None or found.action is None):
        found = replace(found or Proposal(), unknown=tuple(sorted({*misplaced, *(found.unknown if found else ())})))
    if stale and found is not None and (not found.legal or found.question is not None):
        if found.action is not None or not (found.unknown or found.unconfirmed):
            return None
        if not found.unconfirmed:  # still named on the pages; a token present may still be asked about
            found = replace(found, question=None)
    return found


def _with_unknown(found: Proposal | None, other: Proposal | None) -> Proposal | None:
    """`found` (no action) joined with a second explanation: its action if it has one, else its unknown stands."""
    if found is None or other is None:
        return found or other
    if other.action is not None:
        return other
    return replace(found, unknown=tuple(sorted({*found.unknown, *other.unknown})))


def _legal(game: Game, line: str) -> bool:
    return game.is_legal(parse(line))


def _claim(game: Game, board: BoardMap, observed: Mapping[str, StandValue], diff: set[str]) -> Proposal | None:
    """A claim token on an unclaimed territory: a set-up placement. Outside set-up the rules reject it
    (base camps then follow from souls claiming territories), so what reads as one there is an unknown
    object on its stand, not that player's illegal claim."""
    stands = [s for s in sorted(diff) if (v := observed[s]).kind in CLAIM_VERB and v.owner
              and board.stands[s].kind == "territory" and board.stands[s].territory not in game.state.claims]
    lines = [f"{observed[s].owner} {CLAIM_VERB[observed[s].kind]} {board.stands[s].territory}" for s in stands]
    for line in lines:
        if _legal(game, line):
            return Proposal(line)
    if not lines:
        return None
    return Proposal(lines[0], legal=False) if game.state.phase in SETUP_PHASES else Proposal(unknown=tuple(stands))


def _tokens(value: StandValue, owner: str) -> int:
    """Whether `owner` has soul tokens on the stand (a stack looks like one token from above)."""
    return 1 if value.kind == "soul" and value.owner == owner else 0


def _soul_move(game: Game, board: BoardMap, observed: Mapping[str, StandValue], expected: dict[str, StandValue],
               diff: set[str], stale: bool = False, mat: MatSeen | None = None) -> Proposal | None:
    """A seen move (a token left one stand and arrived at another, or left for a camp) is recorded; a token
    that only appeared (a move out of a camp) is recorded when the mat shows its card moving, else asked
    of its owner; one no legal move out of a camp explains is an unknown object."""
    state = game.state
    owners = sorted({v.owner for s in diff for v in (observed[s], expected.get(s, EMPTY)) if v.owner},
                    key=lambda p: (p != state.active, p))
    weak: Proposal | None = None  # an appearance no one was seen making: only if nothing else explains more
    for owner in owners:
        vanished: list[str] = []
        appeared: list[str] = []
        for stand in sorted(diff):
            if board.stands[stand].kind != "movement":
                continue
            delta = _tokens(observed[stand], owner) - _tokens(expected.get(stand, EMPTY), owner)
            (appeared if delta > 0 else vanished).extend([stand] * abs(delta))
        if not appeared and (stale or not vanished):
            continue
        souls_at: dict[str, list[str]] = {s: [] for s in board.stands}
        for card in sorted(state.cards.values(), key=lambda c: c.id):
            if card.zone == "play" and card.at in souls_at and card.control == owner and card.revealed:
                souls_at[card.at].append(card.id)
        pairs = [f"{owner} move {card} {v}-{a}" for v in vanished for a in appeared for card in souls_at[v]]
        leaving_camp = [f"{owner} move {card} {t}-{a}" for a in appeared for t, st in board.stands.items()
                        if st.kind == "territory" for card in souls_at[t]]
        entering_camp = [f"{owner} move {card} {v}-{t}" for v in vanished for t, st in board.stands.items()
                         if st.kind == "territory" for card in souls_at[v]]
        exits = leaving_camp if len(appeared) > len(vanished) else []
        seen = pairs + (entering_camp if len(vanished) > len(appeared) else [])
        legal = list(dict.fromkeys(line for line in seen if _legal(game, line)))
        legal_exits = list(dict.fromkeys(line for line in exits if _legal(game, line)))
        shown = [line for line in legal_exits if _moved_on_mat(game, board, mat, line)]
        if legal or shown:
            legal = legal or shown
            if _consistent(legal):
                return Proposal(legal[0])
            return Proposal(question=Question(owner, f"Which move did {owner} make?", tuple(legal)))
        if legal_exits:
            stands = tuple(sorted({line.split()[3].split("-")[1] for line in legal_exits}))
            weak = _weaker(weak, Proposal(question=Question(
                owner, f"a {owner} soul token appeared on {', '.join(stands)} that no one was seen moving: did "
                f"{owner} move a soul out of its base camp? Tap the move; if it is not a soul, take the object away",
                tuple(legal_exits), tuple((s, observed[s].visible().text()) for s in stands)), unconfirmed=stands,
                unknown=tuple(sorted(set(appeared) - set(stands)))))
            continue
        if pairs:
            if len(pairs) == 1:
                return Proposal(pairs[0], legal=False)
            continue
        shown_illegal = [line for line in exits if _moved_on_mat(game, board, mat, line)]
        if len(shown_illegal) == 1:  # its card was moved too: the owner's move, which the rules reject
            return Proposal(shown_illegal[0], legal=False)
        if len(appeared) > len(vanished):
            weak = _weaker(weak, Proposal(unknown=tuple(sorted(set(appeared)))))
            continue
        if len(seen) == 1:
            return Proposal(seen[0], legal=False)
    return weak


def _weaker(found: Proposal | None, more: Proposal) -> Proposal:
    """Two owners' appearances no one was seen making, as one: the first question, every stand named."""
    if found is None:
        return more
    return Proposal(question=found.question or more.question, unknown=tuple(sorted({*found.unknown, *more.unknown})),
                    unconfirmed=tuple(sorted({*found.unconfirmed, *more.unconfirmed})))


def _moved_on_mat(game: Game, board: BoardMap, mat: MatSeen | None, line: str) -> bool:
    """Whether the mat shows the card of a move out of a camp going where the move takes it (#movement: "the
    card is placed on the mat slot with the same number as the territory moved into"): the goal's slot shows
    a face-up card where the record has none face up, and the camp's slot is empty when the card was alone
    there. A die on a stand moves no card; a move within one territory leaves the card where it was."""
    if mat is None or not mat.slots:
        return False
    _, _, card, path = line.split()
    origin, goal = path.split("-")
    src = slot_of(board, board.stands[origin].territory)
    dst = slot_of(board, board.stands[goal].territory)
    if src == dst:
        return False
    expected = expected_mat(game.state, board, mat.catalog)
    arrived = mat.slots.get(dst)
    if arrived is None or not arrived.revealed or any(mc.revealed for mc in expected.get(dst, []) if not mc.hidden):
        return False
    left = mat.slots.get(src)
    alone = [mc.card for mc in expected.get(src, []) if not mc.hidden] == [card]
    return not alone or (left is not None and left.empty)


def _consistent(lines: list[str]) -> bool:
    """True when the legal moves involve distinct souls and distinct goals: they can all have happened
    (two quick moves in one stable change), so taking them one by one loses nothing."""
    cards = [line.split()[2] for line in lines]
    goals = [line.split()[3].split("-")[1] for line in lines]
    return len(set(cards)) == len(cards) and len(set(goals)) == len(goals)
