"""Candidate actions for `Game.legal_actions()`; the game keeps those its rules accept.

Dice are sampled rather than enumerated when a roll has many outcomes (a D20-D6-D6 has 720), and draws
are offered as a few windows over the deck, so the list stays short while random self-play still sees
every kind of result.
"""

from __future__ import annotations

import itertools

from rules.kipukas.adaptations import ADAPTATIONS
from rules.kipukas.captive import captive_reveals
from rules.kipukas.context import Ctx
from rules.kipukas.day import reach
from rules.kipukas.legal_items import day_candidates, free_candidates
from rules.kipukas.made import make
from rules.kipukas.notation import (
    Action,
    Affinity,
    Attack,
    Bottom,
    Camp,
    Capital,
    Challenge,
    Craft,
    DefaultEffect,
    Draw,
    End,
    Grab,
    Heal,
    Hold,
    Initiative,
    Injure,
    Means,
    Move,
    Peace,
    Personal,
    Play,
    Retreat,
    Reveal,
    Roll,
    Sabotage,
    Stop,
    Swim,
    Tame,
    Trap,
)
from rules.kipukas.state import CardState

PLAYERS = ("red", "blue")


def _faces(dice: tuple[int, ...]) -> list[str]:
    per_die = [list(range(1, d + 1)) if d <= 6 else sorted({1, 4, 5, d // 2, d - 3, d}) for d in dice]
    combos = list(itertools.product(*per_die))
    if len(combos) > 40:
        combos = combos[:: max(1, len(combos) // 40)]
    return [",".join(map(str, combo)) for combo in combos]


DIEL_FACES = ("day", "night", "storm")
_D20 = tuple(str(v) for v in range(1, 21))
_2D6 = tuple(_faces((6, 6)))  # every face pair of an escape roll (36), built once


def _windows(ids: list[str], n: int) -> list[tuple[str, ...]]:
    if n <= 0 or len(ids) < n:
        return []
    around = ids + ids[:n]  # a window may wrap past the end of the deck
    return [tuple(around[i:i + n]) for i in range(0, len(ids), max(1, len(ids) // 8))]


def _drawable(c: Ctx, player: str) -> list[str]:
    bottom = c.s.bottom.get(player, ())
    unknown = [x.id for x in c.s.in_zone("deck", player) if x.id not in bottom]
    return unknown or list(bottom[:1]) + list(bottom[1:])


def candidates(c: Ctx, free: bool = False) -> list[Action]:
    """Every action `Game.legal_actions` may offer now (a superset: the game keeps those its rules accept).
    `free` adds the free actions of `rules.legal_items.free_candidates` (printed card text)."""
    s = c.s
    out: list[Action] = []
    if s.phase == "affinity":
        out += [Affinity(p, a) for p in s.players if s.players[p].affinity is None for a in ADAPTATIONS]
    elif s.phase == "rolloff":
        out += [Roll(p, "d6", str(v)) for p in s.players for v in range(1, 7)]
    elif s.phase in ("capitals", "camps") and s.active:
        kind = Capital if s.phase == "capitals" else Camp
        out += [kind(s.active, t) for t in c.holdable() if t not in s.claims]
    elif s.phase == "effects":
        for p in s.players:
            out.append(Personal(p, "none"))
            out += [Personal(p, x.id) for x in s.in_zone("aside", p)]
            out += [DefaultEffect(p, x.id) for x in s.in_zone("deck", p)[:3]]
    elif s.phase == "draw":
        for p in s.players:
            ids = _drawable(c, p)
            out += [Draw(p, w) for w in _windows(ids, min(3, len(ids)))]
    elif s.phase == "diel":
        holder = s.initiative or "red"
        out += [make(Roll, holder, "diel", v) for v in DIEL_FACES]
    elif s.phase == "peace":
        out += [Peace(p.player, v) for p in s.pending for v in ("keep", "reserves")]
    if s.bout is not None:
        out += _bout(c)
    elif s.pending:
        out += _pending(c)
    elif s.phase == "day" and s.active:
        out += _day(c, s.active)
    elif s.phase == "night" and s.active:
        out += _night(c, s.active)
    return out + free_candidates(c) if free else out


def _bout(c: Ctx) -> list[Action]:
    b = c.s.bout
    assert b is not None
    att, dfn = c.card(b.attacker), c.card(b.defender)
    out: list[Action] = []
    if not b.final and (b.attack_means is None or b.defence_means is None):
        out += [Means(att.owner, att.id, i) for i in c.available_means(att)]
        out += [Means(dfn.owner, dfn.id, i) for i in c.available_means(dfn)]
        return out
    for cs, what in ((att, "attack"), (dfn, "defence")):
        die = c.info(cs).die
        if die is not None and die.covered:
            out += [Roll(cs.owner, what, f) for f in _faces(die.dice)] if die.dice else [Roll(cs.owner, what,
                                                                                              f"={die.base}")]
        else:
            out += [Roll(cs.owner, what, f"={n}") for n in range(1, 13, 2)]
    return out


def _pending(c: Ctx) -> list[Action]:
    pend = c.s.pending[0]
    p = pend.player
    out: list[Action] = []
    if pend.kind == "trap-roll":
        out += _dice(p, "d20")
    elif pend.kind == "trap":
        out += [Trap(q.player, q.cards[0], o) for q in c.s.pending if q.kind == "trap" for o in ("sprung", "idle")]
    elif pend.kind == "combat":
        mine = [x for x in c.souls_in(pend.territory, p) if c.can_attack(x) is None]
        theirs = c.enemies_in(pend.territory, p)
        out += [Attack(p, a.id, d.id) for a in mine for d in theirs]
        out += [Stop(p)]
        if pend.note == "respond":
            out += _retreats(c, p, pend.territory)
    elif pend.kind == "challenge":
        out += [Challenge(p, "release"), Challenge(p, "challenge")]
    elif pend.kind == "escape":
        if not pend.value:
            out += _dice(p, "escape")
        if not pend.chase:
            for foe in c.foes(p):
                out += _dice(foe, "chase")
    elif pend.kind in ("damage", "heal"):
        for q in c.s.pending:
            if q.kind == "damage":
                cs = c.card(q.cards[0])
                out += [make(Injure, q.player, cs.id, i) for i in c.available_means(cs)]
            elif q.kind == "heal":
                cs = c.card(q.cards[0])
                out += [make(Heal, q.player, cs.id, i + 1) for i, n in enumerate(cs.injuries) if n]
    elif pend.kind == "grab":
        out += [Grab(p, pend.cards[0], x.id) for x in c.souls_in(pend.territory, p) if not c.downed(x)]
    elif pend.kind == "tame":
        out += [make(Tame, p, pend.cards[0], o) for o in ("tamed", "rogue")]
    return out


_FACES = {"d20": _D20, "escape": _2D6, "chase": _D20}  # the prompted dice offered with every face
_DICE: dict[tuple[str, str], tuple[Roll, ...]] = {}  # (player, die) -> a roll of each face, built once


def _dice(player: str, what: str) -> tuple[Roll, ...]:
    """``make(Roll, player, what, face)`` for every face of the die `what` (`_FACES`): one table per player and
    die, since the faces never change (a trap roll offers twenty, a retreat's escape thirty-six)."""
    rolls = _DICE.get((player, what))
    if rolls is None:
        rolls = _DICE[(player, what)] = tuple(make(Roll, player, what, f) for f in _FACES[what])
    return rolls


def _retreats(c: Ctx, player: str, territory: str) -> list[Action]:
    out: list[Action] = []
    for cs in c.souls_in(territory, player):
        if (c.downed(cs) and not c.effects(cs).moves_downed) or not cs.at or not c.info(cs).movement:
            continue
        for stand in sorted(reach(c, cs, cs.at, c.info(cs).movement or 0))[:4]:
            out.append(Retreat(player, (cs.id,), stand))
    return out


def _moves(c: Ctx, cs: CardState) -> list[Action]:
    if not cs.at or not cs.revealed:
        return []
    rng = c.movement_range(cs) or 0
    if rng - cs.moved <= 0:
        return []
    return [Move(cs.owner, cs.id, (cs.at, goal)) for goal in sorted(reach(c, cs, cs.at, rng - cs.moved))
            if goal != cs.at]


def _day(c: Ctx, p: str) -> list[Action]:
    out: list[Action] = []
    due = sorted(t for q, t in c.s.contention_due if q == p)
    if due:
        t = due[0]
        able = [x for x in c.souls_in(t, p) if c.can_attack(x) is None]
        out += [Attack(p, a.id, d.id) for a in able for d in c.enemies_in(t, p)]
        out += [*_retreats(c, p, t), Hold(p, t)]
        return out + day_candidates(c, p)
    out += [Initiative(p), End(p)]
    mine = [t for t in c.holdable() if c.controls(p, t)]
    cards = c.s.in_zone("hand", p) + [x for x in c.s.in_zone("effect", p) if c.info(x).type != "PersonalEffect"]
    for card in cards:
        for t in mine:
            out += [Play(p, card.id, t, face) for face in ("revealed", "unrevealed")]
            if c.effects(card).hidden_placement:
                out.append(Play(p, card.id, t, "hidden"))
    for soul in c.souls_in_play(p):
        cs = soul
        if not cs.revealed:
            out.append(Reveal(p, cs.id))
        out += _moves(c, cs)
        if cs.at and not cs.swim_tried and any(_water(c, cs.at, n) for n in c.board.neighbours(cs.at)):
            out.append(Swim(p, cs.id, (2,) if c.info(cs).habitat == "Nomad" else (2, 2)))
            out.append(Swim(p, cs.id, (5,) if c.info(cs).habitat == "Nomad" else (3, 5)))
    return out + captive_reveals(c, p) + day_candidates(c, p)


def _water(c: Ctx, a: str, b: str) -> bool:
    path = c.board.path_between(a, b)
    return path is not None and path.water


def _night(c: Ctx, p: str) -> list[Action]:
    out: list[Action] = [Initiative(p), End(p), Bottom(p)]
    hand = len(c.s.in_zone("hand", p))
    ids = _drawable(c, p)
    out += [Draw(p, w) for w in _windows(ids, min(3 - hand, len(ids)))]
    items = [x.id for x in c.s.in_zone("hand", p) if c.info(x).type == "Item"]
    targets = [x.id for x in c.souls_in_play(p)] + [t for t in c.holdable() if c.controls(p, t)]
    for n in (2, 3):
        for combo in itertools.combinations(items, n):
            out += [Craft(p, combo, t) for t in targets]
    out += [Sabotage(p, x.id) for x in c.s.in_zone("hand", p) if c.info(x).type == "Sabotage"]
    return out
