"""JSON views of a table for the pages. `public_view` is what anyone at the table may see: unrevealed
cards appear only as face-down cards, hands only as counts, and card ids that are not public are
redacted from the record's text. Per-player and judge projections build on it."""

from __future__ import annotations

import re
from typing import Any

from rules.board_map import BoardMap
from rules.catalog import Catalog
from rules.state import CardState, GameState
from tracker.table import Entry, Table

LOG_LIMIT = 200
PUBLIC_ZONES = ("discard", "prison")


def is_public(card: CardState) -> bool:
    return (card.zone == "play" and card.revealed) or card.zone in PUBLIC_ZONES


def redactor(state: GameState, visible: set[str]) -> Any:
    hidden = sorted((cid for cid in state.cards if cid not in visible), key=len, reverse=True)
    if not hidden:
        return lambda text: text
    pattern = re.compile(r"(?<![A-Za-z0-9_#-])(" + "|".join(re.escape(h) for h in hidden) + r")(?![A-Za-z0-9_#-])")
    return lambda text: pattern.sub("a card", text)


def map_json(board: BoardMap) -> dict[str, Any]:
    corners = board.texture.get("board_px", [[0, 0], [1, 0], [1, 1], [0, 1]])
    return {
        "name": board.name,
        "size_mm": list(board.size_mm),
        "board_px": [corners[0][0], corners[0][1], corners[2][0], corners[2][1]],
        "stands": [{"id": s.id, "kind": s.kind, "territory": s.territory, "x": s.pos_mm[0], "y": s.pos_mm[1]}
                   for s in board.stands.values()],
        "paths": [[p.a, p.b] for p in board.paths],
    }


def _tokens(values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s: {"kind": v.kind, "owner": v.owner, "count": v.count} for s, v in values.items() if not v.empty}


def _entry(e: Entry, redact: Any) -> dict[str, Any]:
    return {"seq": e.seq, "time": e.ts, "source": e.source, "kind": e.kind, "action": redact(e.text),
            "accepted": e.accepted, "rule": e.rule, "message": redact(e.message)}


def public_view(table: Table, version: int, catalog: Catalog | None = None) -> dict[str, Any]:
    catalog = catalog or Catalog.packaged()
    s = table.game.state
    visible = {cid for cid, c in s.cards.items() if is_public(c)}
    redact = redactor(s, visible)
    cards = []
    for c in sorted(s.cards.values(), key=lambda c: c.id):
        if c.zone != "play":
            continue
        if c.revealed:
            info = catalog.card(c.code)
            cards.append({"id": c.id, "title": info.title, "type": info.type, "owner": c.control, "at": c.at,
                          "revealed": True, "movement": info.movement, "injuries": list(c.injuries)})
        else:
            cards.append({"owner": c.control, "at": c.at, "revealed": False})
    entries = [e for e in table.entries() if e.kind in ("action", "undo", "correct", "question")][-LOG_LIMIT:]
    diffs = table.differences()
    return {
        "version": version,
        "seq": table.record.last_seq,
        "players": list(table.start.get("players", [])),
        "map": map_json(table.board),
        "phase": s.phase, "turn": s.turn, "active": s.active, "initiative": s.initiative, "result": s.result,
        "stands": _tokens(table.expected()),
        "observed": _tokens(table.observed),
        "in_sync": not diffs,
        "differences": diffs,
        "cards": cards,
        "hands": {p: len(s.in_zone("hand", p)) for p in s.players},
        "decks": {p: len(s.in_zone("deck", p)) for p in s.players},
        "discard": [c.id for c in s.in_zone("discard")],
        "prompts": [{"player": p.player, "rule": p.rule, "text": redact(p.text)} for p in table.game.prompts()],
        "questions": [{"player": q.player, "text": q.text, "options": list(q.options)} for q in table.questions],
        "log": [_entry(e, redact) for e in entries],
        "warnings": list(table.warnings),
    }
