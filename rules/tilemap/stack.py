"""The action stack (seed 004, "Actions", "Action-Stack", "Slow/Fast/Free Actions", "Action Phase"):
declaring an action pays its costs and puts it on the stack; every seat then declares a fast action or
passes; when all have passed the last declared action executes (last in, first out) and every seat may
again respond before the next one executes.

Slow actions (playing a permanent, a unit's move, attack or unmark) only in one's own action phase with
nothing declared; fast actions (spells) and free actions (``convert``: discard 2 cards, gain 1 resource)
at any time. Using a unit selects it; selecting another permanent or playing a card taps the one before
(the book's action-phase loop; "tapped" is a TODO in the book, read as "done for this turn")."""

from __future__ import annotations

import itertools
from dataclasses import replace

from rules.core.engine import Illegal
from rules.core.notation import Act
from rules.tilemap import effects, turns
from rules.tilemap.board import Tile, TileMap, adjacent, name, path_cost
from rules.tilemap.cards import card
from rules.tilemap.state import Declared, Permanent, TileState


def _tile(m: TileMap, text: str) -> Tile:
    try:
        return m.tile(text)
    except ValueError as exc:
        raise Illegal("#tiles", str(exc)) from None


def _slow_ok(s: TileState, a: Act) -> None:
    """#slow_actions: only in one's own action phase, and only with no other action declared."""
    if a.seat != s.active or s.phase != "action":
        raise Illegal("#slow_actions", f"slow actions only in one's own action phase (active {s.active}, "
                                       f"phase {s.phase})")
    if s.stack:
        raise Illegal("#slow_actions", "slow actions only when no other action is declared")


def _own_unit(s: TileState, m: TileMap, a: Act, text: str) -> Permanent:
    perm = s.at(_tile(m, text))
    if perm is None or perm.controller != a.seat:
        raise Illegal("#units", f"{a.seat} controls no permanent on {text}")
    if perm.tapped:
        raise Illegal("#action_phase", f"{perm.code} on {text} is tapped")
    return perm


def _target(s: TileState, m: TileMap, text: str, units_only: bool = False) -> Permanent:
    perm = s.at(_tile(m, text))
    if perm is None:
        raise Illegal("#combat", f"no permanent on {text}")
    if card(perm.code).shroud:
        raise Illegal("#shroud", f"{perm.code} on {text} has shroud: it cannot be targeted")
    if units_only and card(perm.code).type != "unit":
        raise Illegal("#boss", f"{perm.code} on {text} is not a unit (a boss does not count as a unit for "
                               "targets)")
    return perm


def _activate(s: TileState, perm: Permanent, use: str) -> Permanent | None:
    """#state_marks on activation: poison grows (and may destroy), panic and rage run the unit's AI (the
    book's shy/aggressive AI is not in its text: the unit's actions are spent and the players move it as
    the AI says, a judge correcting), paralysis forbids actions except removing a paralysis mark."""
    if s.selected and s.selected != perm.id:
        turns.tap_selected(s)
    s.selected = perm.id
    if perm.mark("paralysis") and use != "unmark":
        raise Illegal("#paralysis", f"{perm.code} on {name(perm.tile)} is paralyzed: it may only spend an action "
                                    "to remove a paralysis mark")
    if not perm.activated:
        perm = replace(perm, activated=True)
        if perm.mark("poison"):
            perm = perm.with_mark("poison", 1)
        s.put(perm)
        effects.poison_check(s, perm)
        if perm.id not in s.permanents:
            return None
        for kind, ai in (("panic", "shy"), ("rage", "aggressive")):
            if perm.mark(kind):
                perm = replace(perm.with_mark(kind, -1), moves=0, attacks=0, tapped=True)
                s.put(perm)
                s.notices += (f"{perm.code} on {name(perm.tile)} is {kind}ed: run the {ai} AI with it (its "
                              "actions are spent)",)
                return None
    return perm


def _spend(perm: Permanent, use: str) -> Permanent:
    if use == "move" and perm.moves > 0:
        return replace(perm, moves=0)
    if use == "attack" and perm.attacks > 0:
        return replace(perm, attacks=0)
    if use == "unmark" and (perm.moves or perm.attacks):
        return replace(perm, moves=0) if perm.moves else replace(perm, attacks=0)
    raise Illegal("#units", f"{perm.code} on {name(perm.tile)} has no {use} action left this turn")


def declare(s: TileState, m: TileMap, a: Act) -> None:
    """Check and pay for the declaration of `a`, then put it on the stack (or, for panic and rage, run
    the trigger instead)."""
    speed = "fast"
    if a.verb == "play":
        _slow_ok(s, a)
        info = card(a.args[0])
        p = s.players[a.seat]
        if p.hand[info.code] <= 0:
            raise Illegal("#actions", f"{info.code} is not in {a.seat}'s hand")
        if not info.permanent or info.play is None:
            raise Illegal("#actions", f"{info.code} is not a permanent that can be played (spells are cast)")
        tile = _tile(m, a.args[1])
        if tile not in m.spawn.get(a.seat, ()) or s.at(tile) is not None or not m.allows(tile, info.swimming):
            raise Illegal("#permanents", f"{a.args[1]} is not an available spawn tile of {a.seat} for {info.code}")
        if p.resource < info.play:
            raise Illegal("#actions", f"{info.code} costs {info.play} to play, {a.seat} has {p.resource}")
        p.resource -= info.play
        turns.take(p.hand, info.code)
        turns.tap_selected(s)
        speed = "slow"
    elif a.verb in ("move", "attack", "unmark"):
        _slow_ok(s, a)
        where = a.args[0].split("-")[0]
        perm = _own_unit(s, m, a, where)
        _check_unit_action(s, m, perm, a)
        done = _activate(s, perm, a.verb)
        if done is None:
            return
        s.put(_spend(done, a.verb))
        speed = "slow"
    elif a.verb in ("cast", "push"):
        info = card(a.args[0])
        p = s.players[a.seat]
        if p.hand[info.code] <= 0 or info.type != "spell":
            raise Illegal("#fast_actions", f"{info.code} is not a spell in {a.seat}'s hand")
        if (info.effect == "push") != (a.verb == "push"):
            raise Illegal("#fast_actions", f"{info.code} is {'' if info.effect == 'push' else 'not '}a push spell: "
                                           f"use '{'push' if info.effect == 'push' else 'cast'}'")
        target = _target(s, m, a.args[1], info.units_only)
        if a.verb == "push" and _tile(m, a.args[2]) == target.tile:
            raise Illegal("#push", "a push needs an originating tile other than the pushed permanent's")
        if info.play is None or p.resource < info.play:
            raise Illegal("#actions", f"{info.code} costs {info.play} to play, {a.seat} has {p.resource}")
        p.resource -= info.play
        turns.take(p.hand, info.code)
    elif a.verb == "convert":
        p = s.players[a.seat]
        need = {c: a.args.count(c) for c in a.args}
        if any(p.hand[c] < n for c, n in need.items()):
            raise Illegal("#cards", f"{a.seat} does not hold {' and '.join(a.args)}")
        for c in a.args:
            turns.take(p.hand, c)
            p.discard[c] += 1
        speed = "free"
    s.stack = (*s.stack, Declared(a, speed))
    s.priority = tuple(s.in_game())


def _check_unit_action(s: TileState, m: TileMap, perm: Permanent, a: Act) -> None:
    info = card(perm.code)
    if a.verb == "move":
        tiles = [_tile(m, t) for t in a.args[0].split("-")]
        if len(tiles) < 2 or not all(adjacent(x, y) for x, y in itertools.pairwise(tiles)):
            raise Illegal("#step", f"{a.args[0]} is not a path of steps between adjacent tiles")
        if path_cost(tiles) > info.movement:
            raise Illegal("#movement", f"{a.args[0]} costs {path_cost(tiles)} steps, {perm.code} moves {info.movement}")
        for t in tiles[1:]:
            if s.at(t) is not None or not m.allows(t, info.swimming):
                raise Illegal("#movement", f"{name(t)} is not a free tile {perm.code} may stand on")
    elif a.verb == "attack":
        target = _target(s, m, a.args[1])
        if target.id == perm.id or not effects.in_reach(m, perm, target.tile):
            raise Illegal("#combat", f"{a.args[1]} is not in the attack range ({effects.attack_range(m, perm)}) of "
                                     f"{perm.code} on {a.args[0]}")
    elif not perm.mark("paralysis"):
        raise Illegal("#paralysis", f"{perm.code} on {a.args[0]} carries no paralysis mark")


def pass_priority(s: TileState, m: TileMap, a: Act) -> None:
    if not s.stack or a.seat not in s.priority:
        raise Illegal("#action_stack", f"nothing waits for {a.seat}'s pass")
    s.priority = tuple(x for x in s.priority if x != a.seat)
    if not s.priority:
        top = s.stack[-1]
        s.stack = s.stack[:-1]
        execute(s, m, top.act)
        s.priority = tuple(s.in_game()) if s.stack else ()


def execute(s: TileState, m: TileMap, a: Act) -> None:
    """The atomic execution of a declared action (its targets re-checked: gone or out of range, no effect)."""
    p = s.players[a.seat]
    if a.verb == "play":
        tile = m.tile(a.args[1])
        if s.at(tile) is not None:
            p.discard[a.args[0]] += 1
            s.notices += (f"{name(tile)} is no longer free: {a.args[0]} goes to the discard pile",)
            return
        s.serial += 1
        s.put(Permanent(f"{a.args[0]}-{s.serial}", a.args[0], a.seat, a.seat, tile))
    elif a.verb == "move":
        tiles = [m.tile(t) for t in a.args[0].split("-")]
        perm = s.at(tiles[0])
        if perm is None or any(s.at(t) is not None for t in tiles[1:]):
            s.notices += (f"the move {a.args[0]} is blocked now: no effect",)
            return
        s.put(replace(perm, tile=tiles[-1]))
    elif a.verb == "attack":
        attacker, target = s.at(m.tile(a.args[0])), s.at(m.tile(a.args[1]))
        if attacker is None or target is None:
            s.notices += ("the attack lost its attacker or target: no effect",)
            return
        effects.combat(s, m, attacker.id, target.id)
    elif a.verb == "unmark":
        perm = s.at(m.tile(a.args[0]))
        if perm is not None:
            s.put(perm.with_mark("paralysis", -1))
    elif a.verb in ("cast", "push"):
        info = card(a.args[0])
        p.discard[info.code] += 1
        target = s.at(m.tile(a.args[1]))
        if target is None:
            s.notices += (f"{info.code}: its target is gone, no effect",)
        elif info.effect == "damage":
            effects.deal(s, target.id, info.amount, info.code)
        elif info.effect == "push":
            effects.push(s, m, target.id, m.tile(a.args[2]), info.amount)
        else:
            assert info.effect is not None
            effects.add_mark(s, target.id, info.effect, info.amount)
    elif a.verb == "convert":
        p.resource += 1
