"""What happens to permanents (seed 004): damage and ward, destruction, state marks, push, and combat
between an attacking unit and the attacked permanent with range and high ground."""

from __future__ import annotations

from dataclasses import replace

from rules.tilemap.board import Tile, TileMap, distance, name
from rules.tilemap.cards import card
from rules.tilemap.state import Permanent, TileState


def attack_range(m: TileMap, perm: Permanent) -> int:
    """#high_ground: +1 range for a unit with ranged combat (range > 1) standing on high ground."""
    info = card(perm.code)
    return info.range + (1 if info.range > 1 and m.kind(perm.tile) == "high" else 0)


def in_reach(m: TileMap, attacker: Permanent, target: Tile) -> bool:
    return card(attacker.code).attack > 0 and distance(attacker.tile, target) <= attack_range(m, attacker)


def destroy(s: TileState, pid: str, why: str) -> None:
    """#permanents: the card goes to its owner's discard pile (a boss only exists on the map); a seat whose
    VIP boss is destroyed is out of the game."""
    perm = s.remove(pid)
    info = card(perm.code)
    s.notices += (f"{perm.owner}'s {perm.code} on {name(perm.tile)} is destroyed ({why})",)
    if info.type == "boss":
        s.players[perm.owner].out = True
        s.notices += (f"{perm.owner} lost its VIP",)
    else:
        s.players[perm.owner].discard[perm.code] += 1
    if s.selected == pid:
        s.selected = None


def deal(s: TileState, pid: str, amount: int, why: str) -> None:
    """Damage, unless warded (#ward: prevented completely, that many ward marks removed); destroyed when the
    damage exceeds its health (#units)."""
    perm = s.permanents.get(pid)
    if perm is None or amount <= 0:
        return
    ward = perm.mark("ward")
    if ward:
        s.put(perm.with_mark("ward", -amount))
        s.notices += (f"{perm.code} on {name(perm.tile)}: {amount} damage prevented by ward",)
        return
    perm = replace(perm, damage=perm.damage + amount)
    s.put(perm)
    if perm.damage > card(perm.code).health:
        destroy(s, pid, f"{perm.damage} damage, health {card(perm.code).health}")


def add_mark(s: TileState, pid: str, kind: str, count: int) -> None:
    perm = s.permanents.get(pid)
    if perm is None:
        return
    perm = perm.with_mark(kind, count)
    s.put(perm)
    poison_check(s, perm)


def poison_check(s: TileState, perm: Permanent) -> None:
    if perm.mark("poison") > card(perm.code).health:
        destroy(s, perm.id, f"{perm.mark('poison')} poison marks, health {card(perm.code).health}")


def push(s: TileState, m: TileMap, pid: str, origin: Tile, steps: int) -> None:
    """#push: `steps` steps in the straight line from `origin` through the permanent's tile; a non-free tile
    stops it (a unit colliding takes 1 damage from the other permanent); a free tile it may not stand on
    destroys it; the map's edge stops it (the book is silent on edges)."""
    perm = s.permanents.get(pid)
    if perm is None:
        return
    dx, dy = perm.tile[0] - origin[0], perm.tile[1] - origin[1]
    step = ((dx > 0) - (dx < 0), (dy > 0) - (dy < 0))
    if step == (0, 0):
        return
    for _ in range(steps):
        nxt = (perm.tile[0] + step[0], perm.tile[1] + step[1])
        if not m.on_map(nxt):
            return
        other = s.at(nxt)
        if other is not None:
            if card(perm.code).type == "unit":
                deal(s, perm.id, 1, f"pushed into {other.code}")
            return
        if not m.allows(nxt, card(perm.code).swimming):
            destroy(s, perm.id, f"pushed onto {m.kind(nxt)} tile {name(nxt)}")
            return
        perm = replace(perm, tile=nxt)
        s.put(perm)


def combat(s: TileState, m: TileMap, attacker_id: str, target_id: str) -> None:
    """#combat: both participants deal damage equal to their attack to each other if possible (each only
    in range of its own attack); then the attacker's push, if it has one and the target survived."""
    a, t = s.permanents.get(attacker_id), s.permanents.get(target_id)
    if a is None or t is None or not in_reach(m, a, t.tile):
        s.notices += ("the attack no longer has a target in range: no effect",)
        return
    back = in_reach(m, t, a.tile)
    deal(s, t.id, card(a.code).attack, f"attacked by {a.code}")
    if back:
        deal(s, a.id, card(t.code).attack, f"struck back by {t.code}")
    if card(a.code).push and t.id in s.permanents and a.id in s.permanents:
        push(s, m, t.id, s.permanents[a.id].tile, card(a.code).push)
