"""What a seat may do now, shaped for tapping: number pads for the dice that are due, a picker for the
cards to draw, and every other allowed action as a path of choices (verb, then card, then where), each
choice labelled by name. Built from `Game.legal_actions()`, so a phone offers exactly what the rules
accept; the server still checks every action sent.

An action that names a card this seat may not know (an opponent's face-down card) is left out: offering
it would tell its identity. Such actions stay possible through the judge or the advanced notation field.
"""

from __future__ import annotations

from typing import Any

from rules.catalog import Catalog
from rules.game import Game

VERBS = {  # verb -> what its button says
    "affinity": "Declare affinity", "roll": "Roll", "capital": "Place capital", "camp": "Place camp",
    "personal": "Personal effect", "default": "Default effect", "draw": "Draw", "initiative": "Take initiative",
    "end": "End turn", "play": "Play a card", "reveal": "Reveal", "move": "Move", "attack": "Attack",
    "retreat": "Retreat", "means": "KEAL means", "stop": "Stop", "trap": "Trap", "tame": "Tame", "heal": "Heal",
    "swim": "Swim", "craft": "Craft", "sabotage": "Sabotage", "bottom": "Put on the bottom", "peace": "Peace",
    "hold": "Hold", "challenge": "Challenge", "injure": "Injure",
}


def card_label(card_id: str, state_code: str, catalog: Catalog) -> dict[str, Any]:
    info = catalog.card(state_code)
    return {"id": card_id, "title": info.title, "type": info.type,
            "means": [{"name": m.name, "tolerates": m.count} for m in info.keal_means]}


def choices_for(game: Game, seat: str, visible: set[str], catalog: Catalog) -> dict[str, Any]:
    """The tap-ready choices of `seat` now (see the module docstring)."""
    state = game.state
    hidden = {cid for cid in state.cards if cid not in visible}
    pads: dict[str, list[int]] = {}
    draws: set[int] = set()
    paths: list[list[str]] = []
    targets: set[str] = set()
    for action in game.legal_actions():
        if action.player != seat:
            continue
        words = action.to_text().split()
        parts = {p for word in words[2:] for p in (word, *word.split(","), *word.split("-"))}
        if parts & hidden:
            continue
        verb = words[1]
        if verb == "roll" and words[2] != "diel" and not words[3].startswith("="):
            faces = [int(f) for f in words[3].split(",") if f.isdigit()]
            sizes = pads.setdefault(" ".join(words[:3]), [0] * len(faces))
            for i, face in enumerate(faces[:len(sizes)]):
                sizes[i] = max(sizes[i], face)
            continue
        if verb == "draw":
            draws.add(len(words[2].split(",")))
            continue
        if verb == "move":
            targets.add(words[-1].split("-")[-1])
        paths.append(words[1:])
    names = {cid: catalog.card(c.code).title for cid, c in state.cards.items() if cid in visible}
    deck = [card_label(c.id, c.code, catalog) for c in state.in_zone("deck", seat)]
    return {
        "seat": seat,
        "dice": [{"prefix": p, "dice": [6 if s <= 6 else s for s in sizes]} for p, sizes in sorted(pads.items())],
        "draw": {"counts": sorted(draws), "deck": deck} if draws else None,
        "paths": paths,
        "verbs": {v: VERBS.get(v, v) for v in sorted({p[0] for p in paths})},
        "names": {w: names[w] for p in paths for w in p if w in names},
        "targets": sorted(targets),
    }
