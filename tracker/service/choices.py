"""What a seat may do now, shaped for tapping: number pads for the dice that are due, a picker for the
cards to draw, and every other allowed action as a path of choices (verb, then card, then where), each
choice labelled by name. Built from `Game.legal_actions()`, so a phone offers exactly what the rules
accept; the server still checks every action sent.

An action that names a card this seat may not know (an opponent's face-down card) names it by where
it stands instead (``@M7``, "face-down card on M7"), so the phone never learns which card it is;
`resolve` turns that back into the card's id when the action comes in. Where two unknown cards share a
stand the action is left out (the judge or the advanced notation field can still send it).
"""

from __future__ import annotations

from typing import Any

from rules.core.errors import RulesError
from rules.kipukas.catalog import Catalog
from rules.kipukas.game import Game
from rules.kipukas.notation import Action, parse
from rules.kipukas.state import GameState

VERBS = {  # verb -> what its button says
    "affinity": "Declare affinity", "roll": "Roll", "capital": "Place capital", "camp": "Place camp",
    "personal": "Personal effect", "default": "Default effect", "draw": "Draw", "initiative": "Take initiative",
    "end": "End turn", "play": "Play a card", "reveal": "Reveal", "move": "Move", "attack": "Attack",
    "retreat": "Retreat", "means": "KEAL means", "stop": "Stop", "trap": "Trap", "tame": "Tame", "heal": "Heal",
    "swim": "Swim", "craft": "Craft", "sabotage": "Sabotage", "bottom": "Put on the bottom", "peace": "Peace",
    "hold": "Hold", "challenge": "Challenge", "injure": "Injure",
    "equip": "Equip an item", "unequip": "Drop an item", "pass": "Pass an item", "pickup": "Pick up an item",
    "grab": "Grab the dropped item", "dig": "Dig a tunnel", "roam": "Roam (rogue)",
    "resolve": "Resolve sabotage", "imprison": "Take prisoner (card effect)", "release": "Release prisoner",
    "discard": "Discard (card effect)", "steal": "Steal (card effect)", "bs": "Call BS",
    "concede": "Concede reasonability",
}


def card_label(card_id: str, state_code: str, catalog: Catalog) -> dict[str, Any]:
    info = catalog.card(state_code)
    return {"id": card_id, "title": info.title, "type": info.type,
            "means": [{"name": m.name, "tolerates": m.count} for m in info.keal_means]}


def _unknown_at(state: GameState, seat: str, stand: str) -> list[str]:
    return [c.id for c in state.cards.values()
            if c.at == stand and c.zone == "play" and not c.revealed and c.owner != seat]


def _by_stand(state: GameState, seat: str, card: str, hidden: set[str]) -> str | None:
    """``@STAND`` for a hidden card alone among the unknown cards of its stand, else None."""
    if card not in hidden:
        return card
    at = state.cards[card].at
    return f"@{at}" if at and _unknown_at(state, seat, at) == [card] else None


def resolve(game: Game, seat: str, text: str) -> str:
    """`text` with each ``@STAND`` replaced by the one face-down card of another player on that stand."""
    if "@" not in text:
        return text

    def card(token: str) -> str:
        if not token.startswith("@"):
            return token
        found = _unknown_at(game.state, seat, token[1:])
        return found[0] if len(found) == 1 else token

    return " ".join(",".join(card(t) for t in word.split(",")) for word in text.split())


def _candidates(game: Game, seat: str) -> list[Action]:
    legal = [a for a in game.legal_actions(free=True) if a.player == seat]
    if game.state.phase == "diel":  # either player may roll it; the engine offers it to one
        legal += [a for a in (parse(f"{seat} roll diel {v}") for v in ("day", "night", "storm"))
                  if a not in legal and game.is_legal(a)]
    if any(a.to_text().split()[1] == "default" for a in legal):  # the engine samples three: offer the deck
        for c in game.state.in_zone("deck", seat):
            try:
                extra = parse(f"{seat} default {c.id}")
            except RulesError:
                continue
            if extra not in legal and game.is_legal(extra):
                legal.append(extra)
    return legal


def choices_for(game: Game, seat: str, visible: set[str], catalog: Catalog) -> dict[str, Any]:
    """The tap-ready choices of `seat` now (see the module docstring)."""
    state = game.state
    hidden = {cid for cid in state.cards if cid not in visible}
    pads: dict[str, list[int]] = {}
    totals: dict[str, int] = {}
    draws: set[int] = set()
    paths: list[list[str]] = []
    targets: set[str] = set()
    stand_names: dict[str, str] = {}
    for action in _candidates(game, seat):
        words = action.to_text().split()
        shown = [[_by_stand(state, seat, t, hidden) for t in word.split(",")] for word in words[2:]]
        if any(t is None for word in shown for t in word):
            continue  # names an unknown card that cannot be told by its stand
        words = words[:2] + [",".join(t for t in word if t is not None) for word in shown]
        stand_names.update({t: f"face-down card on {t[1:]}" for w in words[2:] for t in w.split(",")
                            if t.startswith("@")})
        verb = words[1]
        if verb == "roll" and words[2] != "diel" and words[3].startswith("=") and words[3][1:].isdigit():
            key = " ".join(words[:3])
            totals[key] = max(totals.get(key, 0), int(words[3][1:]))
            continue
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
        "dice": [{"prefix": p, "dice": [6 if s <= 6 else s for s in sizes]} for p, sizes in sorted(pads.items())]
                + [{"prefix": p, "dice": [top], "total": True} for p, top in sorted(totals.items()) if p not in pads],
        "draw": {"counts": sorted(draws), "deck": deck} if draws else None,
        "paths": paths,
        "verbs": {v: VERBS.get(v, v) for v in sorted({p[0] for p in paths})},
        "names": {**{w: names[w] for p in paths for w in p if w in names}, **stand_names},
        "targets": sorted(targets),
    }
