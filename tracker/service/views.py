"""JSON views of a table, one projection per viewer (`view_for`): what each one may know, nothing more.

- A player sees the public board, their own cards by name (hand, face-down cards in play, effects), the
  opponent's face-down cards only as face-down cards on their stands and the opponent's hand as a count,
  their own secret KEAL means choice, and the opponent's only once both have chosen.
- A spectator sees the public board (optionally delayed: the view is rebuilt from the record as it
  stood some minutes ago, see `Scene.of_record`).
- A judge sees everything: hands, decks, the full record including the camera's board readings, and
  the canonical state text.

Card ids and titles a viewer must not know are redacted from the record's text, the prompts and the
questions ("a card"); secret means choices read "(secret)". `public_view` is the spectator's view.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.game import Game
from rules.kipukas.state import CardState, GameState
from tracker.record.snapshots import SnapshotStore, snapshot_path
from tracker.record.store import GameRecord
from tracker.service.choices import choices_for
from tracker.service.seats import JUDGE, SPECTATOR, Viewer
from tracker.service.sync_help import sync_help
from tracker.table.board import StandValue
from tracker.table.cards import explain_mat
from tracker.table.derived import Derived
from tracker.table.expected import differences, expected_board
from tracker.table.reconcile import Question
from tracker.table.replay import parse_token, replay_record
from tracker.table.table import Entry, Table

SCENE_TAIL = 120  # record entries a rebuilt scene keeps (its log tail and the secrets still open)
LOG_TAIL = 40  # entries a state carries; a connection gets the whole record once, as a `log` message
PUBLIC_ZONES = ("discard", "prison")
PLAYER_KINDS = ("action", "undo", "correct", "question", "dice")  # "flag" rows (anti-cheat) are judges' only
MEANS = re.compile(r"^(?P<player>\S+) means (?P<card>\S+) (?P<index>\S+)")
Redact = Callable[[str], str]
ANY_CARD_ID = re.compile(r"(?<![A-Za-z0-9_#-])[A-Za-z0-9_-]{4}#[0-9]{1,8}(?![A-Za-z0-9_#-])")


def is_public(card: CardState) -> bool:
    return (card.zone == "play" and card.revealed) or card.zone in PUBLIC_ZONES


def knows(viewer: Viewer, card: CardState) -> bool:
    """Whether `viewer` may know which card this is (not just that a card is there)."""
    return viewer.role == "judge" or is_public(card) or (viewer.seat is not None and card.owner == viewer.seat)


@lru_cache(maxsize=256)
def _pattern(hidden: tuple[str, ...]) -> re.Pattern[str] | None:
    if not hidden:
        return None
    alternatives = "|".join(re.escape(h) for h in sorted(set(hidden), key=len, reverse=True))
    return re.compile(r"(?<![A-Za-z0-9_#-])(" + alternatives + r")(?![A-Za-z0-9_#-])")


def redactor(state: GameState, visible: set[str], catalog: Catalog | None = None) -> Redact:
    """Replace the ids (and, with a catalog, the titles) of cards not in `visible` by "a card". A title
    shared with a visible card is left alone; "Title (ID)" of a hidden card goes as a whole."""
    hidden_ids = [cid for cid in state.cards if cid not in visible]
    parts: list[str] = []
    if catalog is not None:
        shown = {catalog.card(state.cards[c].code).title for c in visible if c in state.cards}
        for cid in hidden_ids:
            title = catalog.card(state.cards[cid].code).title
            parts.append(f"{title} ({cid})")
            if title not in shown:
                parts.append(title)
    pattern = _pattern(tuple(parts + hidden_ids))

    def unknown(m: re.Match[str]) -> str:
        return m[0] if m[0] in visible else "a card"

    # Ids not in the game are redacted too: otherwise the redaction itself tells which ids exist.
    if pattern is None:
        return lambda text: ANY_CARD_ID.sub(unknown, text)
    return lambda text: ANY_CARD_ID.sub(unknown, pattern.sub("a card", text))


def secret_means(entries: Iterable[Entry], waiting: str | None = None) -> dict[int, str]:
    """Rows holding a KEAL means choice that is still secret, with the player it is secret to (empty
    for a judge's correction: secret to all but judges). A choice stops being secret once both sides
    have chosen: the other side's choice is accepted after it, or any other action is accepted after it
    (the other side's means was fixed, the bout moved on). Rejected and undone choices stay secret.
    `waiting`: the player whose choice the current bout holds while it waits for the other side's; their
    latest accepted choice stays secret whatever the rows say."""
    secret: dict[int, str] = {}
    open_rows: dict[str, list[int]] = {}
    chosen: dict[str, list[int]] = {}  # accepted, not undone, choices per player

    def reveal(keep: str | None = None) -> None:
        for q in list(open_rows):
            if q != keep:
                for seq in open_rows.pop(q):
                    secret.pop(seq, None)

    for e in entries:
        m = MEANS.match(e.text)
        if e.kind == "correct":
            if " means " in e.text:
                secret[e.seq] = ""
            continue
        if e.kind == "undo" and m is not None:
            secret[e.seq] = m.group("player")
            for stack in (open_rows, chosen):
                if stack.get(m.group("player")):
                    stack[m.group("player")].pop()
            continue
        if e.kind != "action":
            continue
        if m is None:
            if e.accepted:
                reveal()
            continue
        who = m.group("player")
        secret[e.seq] = who
        if e.accepted:
            chosen.setdefault(who, []).append(e.seq)
            if any(rows for q, rows in open_rows.items() if q != who):
                reveal()
                secret.pop(e.seq, None)
            else:
                open_rows.setdefault(who, []).append(e.seq)
    if waiting is not None and chosen.get(waiting):
        secret[chosen[waiting][-1]] = waiting
    return secret


def waiting_means(state: GameState) -> str | None:
    """The player whose means choice the bout holds while it waits for the other side's, if any."""
    b = state.bout
    if b is None or b.final or (b.attack_means is None) == (b.defence_means is None):
        return None
    card = state.cards.get(b.attacker if b.attack_means is not None else b.defender)
    return card.owner if card is not None else None


@dataclass
class Scene:
    """Everything a view is built from: the live table, or the table rebuilt at an earlier row."""

    game: Game
    board: BoardMap
    observed: dict[str, StandValue]
    entries: list[Entry]
    seq: int
    start: dict[str, Any]
    questions: list[Question] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    alerts: list[tuple[str, str, str]] = field(default_factory=list)
    derived: Derived | None = None  # what a later delayed scene can step forward from
    mat_flags: list[str] = field(default_factory=list)

    @classmethod
    def of_table(cls, table: Table, entries: list[Entry] | None = None) -> Scene:
        """The live table (hold `table.lock`). `entries` may be passed in when the caller caches them."""
        return cls(table.game, table.board, dict(table.observed), entries if entries is not None else table.entries(),
                   table.record.last_seq, dict(table.start), list(table.questions), list(table.warnings),
                   list(table.alerts), mat_flags=list(table.mat_flags))

    @classmethod
    def of_record(cls, table: Table, upto: int, earlier: Scene | None = None) -> Scene:
        """The table as it stood after row `upto`, through the table's own read-only connections (a
        delayed spectator view): the table's lock is not held. Stepped forward from `earlier` when no
        correction came in between (the delayed row moves on a row or two at a time), otherwise rebuilt
        from the nearest snapshot."""
        record = GameRecord(table.record.path, readonly=True)
        snaps = SnapshotStore(snapshot_path(table.record.path), readonly=True) if table.snapshots else None
        try:
            base = earlier.derived if earlier is not None and earlier.seq <= upto else None
            rows = list(record.rows(after=base.seq, upto=upto)) if base is not None else []
            if base is not None and upto - base.seq <= SCENE_TAIL and all(r.kind != "correct" for r in rows):
                done = base.forked()
                for row in rows:
                    done.step(row, {}, lambda seq: replay_record(record, table.board, upto=seq, snapshots=snaps,
                                                                 corrections_upto=upto).game.state, parse_token)
                kept = [e for e in earlier.entries if e.seq > upto - SCENE_TAIL] if earlier else []
                entries = kept + [Entry.of(r) for r in rows]
            else:
                done = replay_record(record, table.board, upto=upto, snapshots=snaps)
                entries = [Entry.of(r) for r in record.rows(after=max(0, upto - SCENE_TAIL), upto=upto)]
        finally:
            record.close()
            if snaps is not None:
                snaps.close()
        flags = explain_mat(done.game, table.board, table.catalog, done.mat, {}, done.shown).flags
        return cls(done.game, table.board, done.observed, entries, upto, done.start, derived=done, mat_flags=flags)


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


def _tokens(values: dict[str, StandValue]) -> dict[str, dict[str, Any]]:
    return {s: {"kind": v.kind, "owner": v.owner, "count": v.count} for s, v in values.items() if not v.empty}


def _card(c: CardState, board: BoardMap, catalog: Catalog, named: bool) -> dict[str, Any]:
    stand = board.stands.get(c.at) if c.at else None
    out: dict[str, Any] = {"owner": c.control, "at": c.at, "territory": stand.territory if stand else None,
                           "zone": c.zone, "revealed": c.revealed, "hidden": c.hidden and not c.revealed}
    if not named:
        return out
    info = catalog.card(c.code)
    out.update({"id": c.id, "title": info.title, "type": info.type, "movement": info.movement,
                "injuries": list(c.injuries), "exhausted": c.exhausted, "tolerance": info.tolerance,
                "means": [{"name": m.name, "tolerates": m.count,
                           "injuries": c.injuries[i] if i < len(c.injuries) else 0}
                          for i, m in enumerate(info.keal_means)]})
    return out


CARD_ID = re.compile(r"(?<![A-Za-z0-9_#-])([A-Za-z0-9_-]{4}(?:#[0-9]{1,8})?)(?![A-Za-z0-9_#-])")


def named(text: str, names: dict[str, str]) -> str:
    """`text` with every card id in `names` followed by the card's title: ``HMPU#0004 (Hilbert...)``."""
    if not names:
        return text
    return CARD_ID.sub(lambda m: f"{m.group(1)} ({names[m.group(1)]})" if m.group(1) in names else m.group(1), text)


def card_names(state: GameState, visible: set[str], catalog: Catalog) -> dict[str, str]:
    return {cid: catalog.card(c.code).title for cid, c in state.cards.items() if cid in visible}


def _entry(e: Entry, redact: Redact, secret: dict[int, str], viewer: Viewer,
           names: dict[str, str] | None = None) -> dict[str, Any]:
    action, message = redact(e.text), redact(e.message)
    owner = secret.get(e.seq)
    if owner is not None and viewer.role != "judge" and owner != viewer.seat:
        m = MEANS.match(e.text)
        action = f"{m.group('player')} means {redact(m.group('card'))} (secret)" if m else "a judge's correction"
        message = "(secret until both sides have chosen)" if e.kind == "action" else ""
    return {"seq": e.seq, "time": e.ts, "source": e.source, "kind": e.kind, "action": action,
            "label": named(action, names or {}), "accepted": e.accepted, "rule": e.rule, "message": message}


def _bout(state: GameState, viewer: Viewer) -> dict[str, Any] | None:
    b = state.bout
    if b is None:
        return None
    both = b.attack_means is not None and b.defence_means is not None
    out: dict[str, Any] = {"attacker": b.attacker, "defender": b.defender, "final": b.final,
                           "attack_roll": b.attack_roll, "defence_roll": b.defence_roll, "rounds": list(b.rounds)}
    for side, card_id, chosen in (("attack", b.attacker, b.attack_means), ("defence", b.defender, b.defence_means)):
        card = state.cards.get(card_id)
        mine = viewer.role == "judge" or (card is not None and card.owner == viewer.seat)
        out[f"{side}_chosen"] = chosen is not None
        out[f"{side}_means"] = chosen if (mine or both) else None
    return out


def view_for(table: Table | None, viewer: Viewer, version: int = 0, *, scene: Scene | None = None,
             catalog: Catalog | None = None) -> dict[str, Any]:
    """The state as `viewer` may see it (JSON-ready). Pass `scene` to project an earlier state or a
    cached entry list; otherwise the live `table` is read (hold its lock for a consistent view)."""
    if scene is None:
        assert table is not None, "view_for needs a table or a scene"
        scene = Scene.of_table(table)
    catalog = catalog or Catalog.packaged()
    s = scene.game.state
    judge = viewer.role == "judge"
    visible = {cid for cid, c in s.cards.items() if knows(viewer, c)}
    redact: Redact = (lambda text: text) if judge else redactor(s, visible, catalog)
    secret = {} if judge else secret_means(scene.entries, waiting_means(s))
    cards = [_card(c, scene.board, catalog, c.id in visible) for c in sorted(s.cards.values(), key=lambda c: c.id)
             if c.zone == "play"]
    names = card_names(s, visible, catalog)
    kinds = None if judge else PLAYER_KINDS
    entries = [e for e in scene.entries if kinds is None or e.kind in kinds][-LOG_TAIL:]
    expected = expected_board(s, scene.board)
    diffs = (differences(expected, scene.observed) if scene.observed else []) + scene.mat_flags
    prompts = [{"player": p.player, "rule": p.rule, "text": redact(p.text), "blocking": p.blocking,
                "mine": judge or p.player == viewer.seat} for p in scene.game.prompts()]
    questions = [{"player": q.player, "text": redact(q.text), "options": [redact(o) for o in q.options],
                  "mine": judge or q.player == viewer.seat} for q in scene.questions]
    view: dict[str, Any] = {
        "version": version, "seq": scene.seq, "role": viewer.role, "seat": viewer.seat,
        "players": list(scene.start.get("players", [])),
        "map": map_json(scene.board),
        "phase": s.phase, "turn": s.turn, "active": s.active, "initiative": s.initiative, "result": s.result,
        "claims": {t: {"owner": o, "kind": k} for t, (o, k) in sorted(s.claims.items())},
        "stands": _tokens(expected), "observed": _tokens(scene.observed), "camera_seen": bool(scene.observed),
        "in_sync": not diffs, "differences": diffs,
        "sync_help": sync_help(s, expected, scene.observed, scene.entries, names) if diffs else [],
        "cards": cards,
        "hands": {p: len(s.in_zone("hand", p)) for p in s.players},
        "decks": {p: len(s.in_zone("deck", p)) for p in s.players},
        "discard": [c.id for c in s.in_zone("discard")],
        "prison": [c.id for c in s.in_zone("prison")],
        "bout": _bout(s, viewer),
        "prompts": prompts, "questions": questions,
        "log": [_entry(e, redact, secret, viewer, names) for e in entries],
        "warnings": list(scene.warnings),
        "alerts": [{"severity": sev, "message": msg} for sev, msg, _ in scene.alerts],
        "names": names,
    }
    if viewer.seat is not None:
        view["choices"] = choices_for(scene.game, viewer.seat, visible, catalog)
        view["hand"] = [_card(c, scene.board, catalog, True) for c in s.in_zone("hand", viewer.seat)]
        view["effects"] = [_card(c, scene.board, catalog, True) for c in s.in_zone("effect", viewer.seat)]
    if judge:
        view["hand_cards"] = {p: [_card(c, scene.board, catalog, True) for c in s.in_zone("hand", p)]
                              for p in s.players}
        view["deck_cards"] = {p: [c.id for c in s.in_zone("deck", p)] for p in s.players}
        view["state_text"] = scene.game.to_text()
        view["decks_at_start"] = scene.start.get("decks", {})
    return view


def entries_for(entries: list[Entry], state: GameState, viewer: Viewer, after: int,
                catalog: Catalog | None = None) -> list[dict[str, Any]]:
    """Every record entry after row `after` as `viewer` may see it (reconnection: nothing lost)."""
    catalog = catalog or Catalog.packaged()
    judge = viewer.role == "judge"
    visible = {cid for cid, c in state.cards.items() if knows(viewer, c)}
    redact: Redact = (lambda text: text) if judge else redactor(state, visible, catalog)
    secret = {} if judge else secret_means(entries, waiting_means(state))
    names = card_names(state, visible, catalog)
    return [_entry(e, redact, secret, viewer, names) for e in entries
            if e.seq > after and (judge or e.kind in PLAYER_KINDS)]


def public_view(table: Table, version: int, catalog: Catalog | None = None) -> dict[str, Any]:
    """What anyone at the table may see: the spectator's (undelayed) view."""
    return view_for(table, SPECTATOR, version, catalog=catalog)


__all__ = ["JUDGE", "SPECTATOR", "Scene", "entries_for", "public_view", "view_for"]
