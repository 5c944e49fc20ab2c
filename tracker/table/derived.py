"""The state derived from a record, one row at a time, and its snapshots.

`Derived` is what a replay builds (the game, the board last seen, open questions, the undo stack) and
what the live table keeps: both advance with `Derived.step`, so a snapshot of the live table equals a
replay of the record up to that row (tests check every snapshot against a full replay).

Memory does not grow with the record: the game keeps the previous states of its last `HISTORY_KEPT`
accepted actions (quick undos), and the undo stack the rows of the last `UNDO_DEPTH`; an undo reaching
behind the kept states rebuilds the state from the nearest snapshot (`before`).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rules.core.errors import RulesError
from rules.kipukas.board_map import BoardMap
from rules.kipukas.game import Game
from rules.kipukas.notation import Action, parse
from rules.kipukas.state import GameState
from rules.kipukas.styles import Style
from rules.kipukas.styles import style as play_style
from tracker.errors import RecordError
from tracker.record.store import Row
from tracker.table.board import EMPTY, StandValue
from tracker.table.mat import SlotValue
from tracker.table.state_codec import decode_state, encode

UNDO_DEPTH = 500      # accepted actions a judge's undo can reach back (corrections reach anywhere)
HISTORY_KEPT = 32     # previous states kept in memory
PREV_KEPT = 8         # previous states a snapshot keeps (undos just after a restart need no replay)
QUESTIONS_KEPT = 20   # open questions a snapshot keeps
SNAPSHOT_EVERY = 25   # rows between snapshots: a state at any row replays at most this many rows
SHOWN_KEPT = 8        # cards shown to the front camera that a face-up card on the mat may be
FORMAT = 5        # 4: the states as JSON text each, decoded when needed; 5: the mat's slots as row bodies
READABLE = (3, 4, 5)

Before = Callable[[int], GameState]  # the game state after a given row (an undo reaching far back)


def style_arguments(style: Any) -> dict[str, Any]:
    """`Game.new` keyword arguments from a start row's ``style`` (absent in records of domination games)."""
    if not style:
        return {}
    return {"style": str(style["name"]), "cycles": style.get("cycles"), **dict(style.get("params") or {})}


def game_style(start: Mapping[str, Any]) -> Style:
    """The play style a start row names (domination when it names none)."""
    args = style_arguments(start.get("style"))
    name = args.pop("style", "domination")
    return play_style(name, **args)


@lru_cache(maxsize=4096)
def parsed(text: str) -> Action:
    """`rules.kipukas.notation.parse`, remembered: a long record repeats the same few hundred lines."""
    return parse(text)


@dataclass
class Derived:
    game: Game
    start: dict[str, Any] = field(default_factory=dict)
    seq: int = 0                         # the last row applied
    observed: dict[str, StandValue] = field(default_factory=dict)
    stack: list[int] = field(default_factory=list)  # rows of the accepted actions an undo may take back
    depth: int = 0                       # accepted actions not undone
    rejected: dict[str, int] = field(default_factory=dict)  # action -> depth when it was rejected
    questions: list[dict[str, Any]] = field(default_factory=list)  # bodies of question rows
    mismatches: list[str] = field(default_factory=list)  # rows whose stored verdict replay does not reproduce
    prev: list[Any] = field(default_factory=list)  # states below `game.history` (from a snapshot), see `kept_state`
    mat: dict[str, SlotValue] = field(default_factory=dict)  # the mat last seen
    shown: list[str] = field(default_factory=list)  # cards shown to the front camera, newest last

    # --- one row --------------------------------------------------------------------------------------------
    def step(self, row: Row, corrections: Mapping[int, str], before: Before,
             parse_token: Callable[[str], StandValue]) -> None:
        if row.kind == "action":
            text = corrections.get(row.seq, row.body["text"])
            if row.body.get("refused") and row.seq not in corrections:
                text = ""  # refused before the rules saw it (a probe of cards the seat may not know)
            if text:
                verdict = self.game.apply(parsed(text))
                self.recorded(row.seq, text, verdict.accepted)
                if row.seq not in corrections and verdict.accepted != row.body.get("accepted"):
                    then = "accepted" if row.body.get("accepted") else "rejected"
                    now = "accepts" if verdict.accepted else "rejects"
                    self.mismatches = [*self.mismatches[-19:],
                                       f"row {row.seq}: {text!r} was {then} when recorded, replay {now} it"]
        elif row.kind == "board":
            self.observed = {s: parse_token(t) for s, t in row.body["observed"].items()}
        elif row.kind == "mat":
            self.mat = {slot: SlotValue.of(v) for slot, v in row.body["slots"].items()}
        elif row.kind == "shown":
            self.shown = [*[c for c in self.shown if c != row.body["card"]], str(row.body["card"])][-SHOWN_KEPT:]
        elif row.kind == "question":
            self.questions = [*self.questions[-(QUESTIONS_KEPT * 5):], dict(row.body)]
        elif row.kind == "undo":
            self.undone(before)
        self.seq = row.seq

    def recorded(self, seq: int, text: str, accepted: bool) -> None:
        """An action was applied to `game` (accepted or not) and recorded at row `seq`."""
        if accepted:
            self.stack = [*self.stack[-(UNDO_DEPTH - 1):], seq]
            self.depth += 1
            if len(self.game.history) + len(self.prev) > HISTORY_KEPT:
                del self.prev[:len(self.game.history) + len(self.prev) - HISTORY_KEPT]
                if len(self.game.history) > HISTORY_KEPT:
                    del self.game.history[:-HISTORY_KEPT]
        else:
            self.rejected[text] = self.depth

    def undone(self, before: Before) -> None:
        """Take back the last accepted action (nothing when the stack is empty)."""
        if not self.stack:
            return
        seq = self.stack.pop()
        self.depth -= 1
        if self.game.history:
            self.game.undo()
        elif self.prev:
            self.game.state = kept_state(self.prev.pop())
        else:
            self.game.state = before(seq - 1)

    def forked(self) -> Derived:
        """A copy that can step on without changing this one (states are replaced, never changed)."""
        game = Game(self.game.state, self.game.board, self.game.catalog, self.game.style)
        game.history = list(self.game.history)
        return Derived(game, dict(self.start), self.seq, dict(self.observed), list(self.stack), self.depth,
                       dict(self.rejected), list(self.questions), list(self.mismatches), list(self.prev),
                       dict(self.mat), list(self.shown))

    # --- snapshots ------------------------------------------------------------------------------------------
    def open_questions(self) -> list[dict[str, Any]]:
        """Question bodies with at least one option the rules still allow, and whose board (``seen``: a soul
        token no one was seen moving) the camera still shows (the last few)."""
        out = []
        for q in self.questions:
            if any(self.observed.get(s, EMPTY).visible().text() != t for s, t in dict(q.get("seen") or {}).items()):
                continue
            try:
                if any(self.game.is_legal(parsed(o)) for o in q["options"]):
                    out.append(q)
            except RulesError:
                continue
        return out[-QUESTIONS_KEPT:]

    def to_json(self) -> str:
        """The snapshot as canonical JSON (`to_bytes` compresses it for the store)."""
        return json.dumps({
            "format": FORMAT, "seq": self.seq, "start": self.start, "state": state_text(self.game.state),
            "observed": {s: [v.kind, v.owner, v.count] for s, v in sorted(self.observed.items())},
            "stack": self.stack, "depth": self.depth,
            "rejected": {t: d for t, d in sorted(self.rejected.items()) if d == self.depth},
            "questions": self.open_questions(), "mismatches": self.mismatches,
            "history": [kept_text(st) for st in [*self.prev, *(st for _, st in self.game.history)][-PREV_KEPT:]],
            "mat": {s: v.body() for s, v in sorted(self.mat.items())}, "shown": self.shown,
        }, sort_keys=True, separators=(",", ":"))

    def to_bytes(self) -> bytes:
        return zlib.compress(self.to_json().encode("utf-8"), 6)

    @classmethod
    def from_bytes(cls, blob: bytes, board: BoardMap) -> Derived:
        try:
            text = zlib.decompress(blob).decode("utf-8")
        except (zlib.error, UnicodeDecodeError) as exc:
            raise RecordError(f"malformed snapshot ({exc})") from exc
        return cls.from_json(text, board)

    @classmethod
    def from_json(cls, text: str, board: BoardMap) -> Derived:
        data = json.loads(text)
        if data.get("format") not in READABLE:
            raise RecordError(f"snapshot format {data.get('format')!r} is not one of {READABLE}")
        game = Game(kept_state(data["state"]), board, style=game_style(data["start"]))
        observed = {str(s): StandValue(str(k), o if o is None else str(o), int(c))
                    for s, (k, o, c) in data["observed"].items()}
        mat = {str(s): SlotValue.of(v if isinstance(v, dict) else {"face": v[0], "card": v[1]})
               for s, v in data["mat"].items()}
        return cls(game, dict(data["start"]), int(data["seq"]), observed, [int(s) for s in data["stack"]],
                   int(data["depth"]), {str(t): int(d) for t, d in data["rejected"].items()},
                   list(data["questions"]), [str(m) for m in data["mismatches"]], list(data["history"]),
                   mat, [str(c) for c in data["shown"]])

    def comparable(self) -> dict[str, Any]:
        """What a snapshot must agree on with a full replay of the same rows (tests, `log verify`)."""
        return json.loads(self.to_json())  # type: ignore[no-any-return]


def state_text(state: GameState) -> str:
    """A state as canonical JSON text (sorted keys): equal states, equal text."""
    return json.dumps(encode(state), sort_keys=True, separators=(",", ":"))


def kept_text(kept: Any) -> str:
    """A kept state (see `kept_state`) as canonical JSON text."""
    if isinstance(kept, GameState):
        return state_text(kept)
    if isinstance(kept, str):
        return kept
    return json.dumps(kept, sort_keys=True, separators=(",", ":"))


def kept_state(kept: Any) -> GameState:
    """A state a snapshot kept: JSON text (format 4: parsed only when an undo reaches it, so reading a
    snapshot costs one state, not nine), an encoded object (format 3) or a state already decoded."""
    if isinstance(kept, GameState):
        return kept
    if isinstance(kept, str):
        return _state_of_text(kept)
    return decode_state(kept)


@lru_cache(maxsize=64)
def _state_of_text(text: str) -> GameState:
    """Remembered: states are replaced, never changed, and a judge scrubbing back and forth meets the same
    snapshot's states again."""
    try:
        return decode_state(json.loads(text))
    except ValueError as exc:
        raise RecordError(f"malformed snapshot state ({exc})") from exc


Replayed = Derived  # the name replay's callers knew
