"""Explain the difference between the stable board and the record as game actions, one at a time.

The table loop asks `propose` for the next action that explains what the camera sees, records it with the
rules' verdict, and asks again, until the board matches the record or nothing more can be explained.
Only changes the rules can attribute become actions: claim tokens placed during set-up, and soul tokens
that left one stand and arrived on another (or left / entered a base camp, where no token is shown).
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
from dataclasses import dataclass

from rules.kipukas.board_map import BoardMap
from rules.kipukas.game import Game
from rules.kipukas.notation import parse
from tracker.table.board import EMPTY, StandValue
from tracker.table.expected import expected_board

CLAIM_VERB = {"capital": "capital", "basecamp": "camp"}  # token kind -> notation verb
SETUP_PHASES = ("affinity", "rolloff", "capitals", "camps")


@dataclass(frozen=True, slots=True)
class Question:
    """An ambiguity only a player can resolve; the answer is one of `options` (notation lines)."""

    player: str
    text: str
    options: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Proposal:
    action: str | None = None  # a notation line to submit
    legal: bool = True  # False: the only explanation, which the rules will reject
    question: Question | None = None
    # stands holding what reads as a claim token that no legal action explains (outside set-up, or on a
    # movement stand): objects the rules cannot attribute, named on the pages, never anyone's action
    unknown: tuple[str, ...] = ()


def propose(game: Game, board: BoardMap, observed: Mapping[str, StandValue], stale: bool = False) -> Proposal | None:
    """The next action explaining `observed`. With ``stale`` (a board seen before the record last changed,
    e.g. before a phone declared a move the camera has not seen yet) only legal actions that explain a
    token *present* on the board are proposed: never a rejection, a question, or a token's absence."""
    expected = expected_board(game.state, board)
    diff = {s for s, v in observed.items() if v.visible() != expected.get(s, EMPTY).visible()}
    if not diff:
        return None
    if game.state.phase in SETUP_PHASES:
        found = _claim(game, board, observed, diff) or _soul_move(game, board, observed, expected, diff, stale)
    else:
        found = _soul_move(game, board, observed, expected, diff, stale) or _claim(game, board, observed, diff)
    # a capital or camp never stands on a movement stand: what reads as one there is no one's piece either
    misplaced = [s for s in sorted(diff) if observed[s].kind in CLAIM_VERB and board.stands[s].kind != "territory"]
    if misplaced and (found is None or found.unknown):
        found = Proposal(unknown=tuple(sorted({*misplaced, *(found.unknown if found else ())})))
    if stale and found is not None and (not found.legal or found.question is not None):
        return None
    return found


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
               diff: set[str], stale: bool = False) -> Proposal | None:
    state = game.state
    owners = sorted({v.owner for s in diff for v in (observed[s], expected.get(s, EMPTY)) if v.owner},
                    key=lambda p: (p != state.active, p))
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
        candidates = pairs + (leaving_camp if len(appeared) > len(vanished) else []) \
            + (entering_camp if len(vanished) > len(appeared) else [])
        legal = list(dict.fromkeys(line for line in candidates if _legal(game, line)))
        if legal:
            if _consistent(legal):
                return Proposal(legal[0])
            return Proposal(question=Question(owner, f"Which move did {owner} make?", tuple(legal)))
        only = pairs if pairs else (candidates if len(candidates) == 1 else [])
        if len(only) == 1:
            return Proposal(only[0], legal=False)
    return None


def _consistent(lines: list[str]) -> bool:
    """True when the legal moves involve distinct souls and distinct goals: they can all have happened
    (two quick moves in one stable change), so taking them one by one loses nothing."""
    cards = [line.split()[2] for line in lines]
    goals = [line.split()[3].split("-")[1] for line in lines]
    return len(set(cards)) == len(cards) and len(set(goals)) == len(goals)
