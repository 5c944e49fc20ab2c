"""Rebuild a table's game from its record: the state is always a replay of the record.

Row kinds (body keys):
- ``start``: ``decks`` (player -> card ids), ``map``, ``players``, and ``style`` (``name``, ``cycles``,
  ``params``) unless the game is plain domination: the first row of every record;
- ``action``: ``text`` (notation), ``accepted``, ``rule``, ``message``: an input and the verdict it got;
- ``board``: ``observed`` (stand -> token text): a new stable board seen by the overhead camera;
- ``mat``: ``slots`` (slot -> ``{"face", "card"}``): a new stable mat seen by the overhead camera; ``card`` is
  the physical id read from a face-down card's QR (judges only: players never receive mat rows);
- ``shown``: ``card``, ``known``: a card shown to the front camera;
- ``question``: ``player``, ``text``, ``options``: an ambiguity put to a player;
- ``undo``: ``reason``, ``undid``: a judge took back the last accepted action;
- ``correct``: ``target`` (seq of an action row), ``text`` (its replacement, empty to strike it),
  ``reason``: a judge's correction. Replay applies corrections retroactively, so later rows are
  re-decided on the corrected state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rules.board_map import BoardMap
from rules.game import Game
from tracker.errors import RecordError
from tracker.record.store import Row
from tracker.table.board import EMPTY, StandValue
from tracker.table.mat import SlotValue

SHOWN_KEPT = 8  # cards shown to the front camera that a face-up card on the mat may be


@dataclass
class Replayed:
    game: Game
    observed: dict[str, StandValue] = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)  # rows whose stored verdict replay does not reproduce
    start: dict[str, Any] = field(default_factory=dict)
    rejected: dict[str, int] = field(default_factory=dict)  # action -> accepted actions when it was rejected
    questions: list[dict[str, Any]] = field(default_factory=list)  # bodies of question rows
    mat: dict[str, SlotValue] = field(default_factory=dict)
    shown: list[str] = field(default_factory=list)  # cards shown to the front camera, newest last


def parse_token(text: str) -> StandValue:
    """Inverse of `StandValue.text()`: ``empty``, ``red capital``, ``blue soul x2``."""
    if text == "empty":
        return EMPTY
    words = text.split()
    count = int(words[2][1:]) if len(words) == 3 else 1
    return StandValue(words[1], words[0], count)


def board_body(observed: dict[str, StandValue]) -> dict[str, str]:
    return {s: v.text() for s, v in sorted(observed.items())}


def style_arguments(style: Any) -> dict[str, Any]:
    """`Game.new` keyword arguments from a start row's ``style`` (absent in records of domination games)."""
    if not style:
        return {}
    return {"style": str(style["name"]), "cycles": style.get("cycles"), **dict(style.get("params") or {})}


def mat_body(mat: dict[str, SlotValue]) -> dict[str, dict[str, str | None]]:
    return {s: v.body() for s, v in sorted(mat.items())}


def replay(rows: Iterable[Row], board: BoardMap, upto: int | None = None) -> Replayed:
    """The game after every row up to and including `upto` (all rows when None)."""
    rows = [r for r in rows if upto is None or r.seq <= upto]
    if not rows or rows[0].kind != "start":
        raise RecordError("the record does not begin with a start row")
    start = rows[0].body
    corrections = {int(r.body["target"]): str(r.body.get("text", "")) for r in rows if r.kind == "correct"}
    out = Replayed(Game.new(start["decks"], board, **style_arguments(start.get("style"))), start=dict(start))
    for row in rows[1:]:
        if row.kind == "action":
            text = corrections.get(row.seq, row.body["text"])
            if not text:
                continue
            verdict = out.game.apply(text)
            if not verdict.accepted:
                out.rejected[text] = len(out.game.history)
            if row.seq not in corrections and verdict.accepted != row.body.get("accepted"):
                then = "accepted" if row.body.get("accepted") else "rejected"
                now = "accepts" if verdict.accepted else "rejects"
                out.mismatches.append(f"row {row.seq}: {text!r} was {then} when recorded, replay {now} it")
        elif row.kind == "board":
            out.observed = {s: parse_token(t) for s, t in row.body["observed"].items()}
        elif row.kind == "mat":
            out.mat = {slot: SlotValue(str(v["face"]), v.get("card")) for slot, v in row.body["slots"].items()}
        elif row.kind == "shown":
            out.shown = [*[c for c in out.shown if c != row.body["card"]], str(row.body["card"])][-SHOWN_KEPT:]
        elif row.kind == "question":
            out.questions.append(row.body)
        elif row.kind == "undo" and out.game.history:
            out.game.undo()
    return out
