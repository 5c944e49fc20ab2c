"""Day actions (#day): play a card, reveal or move a soul; swimming, traps and the card activation sequence."""

from __future__ import annotations

from collections import deque

from rules.kipukas.captive import captive_play, captive_reveal
from rules.kipukas.context import Ctx, Illegal, other
from rules.kipukas.notation import Move, Play, Reveal, Roll, Swim, Trap
from rules.kipukas.routes import entered, route_cost, tunnel_pairs
from rules.kipukas.state import CardState, Pending
from rules.kipukas.turns import require_turn

MAX_SOULS = 3
MAX_PLAYED = 3
DETECTION = range(1, 5)  # standard detection: a D20 showing 1, 2, 3 or 4 (#traps)
DAY_CARD_TYPES = ("Character", "Species", "TerrainFeature", "Trap")
HIDDEN_CARD_TYPES = (*DAY_CARD_TYPES, "Item")  # "hidden items (from card effects) played under the mat" (#items)


def start_action(c: Ctx, player: str, *, contention_ok: bool = False) -> None:
    require_turn(c, player)
    if not contention_ok and c.s.contention_due:
        due = sorted(t for p, t in c.s.contention_due if p == player)
        if due:
            raise Illegal("#day", f"{player} must first deal with the contention in territory {due[0]}: "
                                  "attack or retreat")
    c.s.origin = player


def _count_play(c: Ctx, player: str, rule: str) -> None:
    p = c.s.players[player]
    if p.played_this_roll >= MAX_PLAYED:
        raise Illegal(rule, f"{player} already played {MAX_PLAYED} cards this diel roll")
    c.s.players[player] = p.set(played_this_roll=p.played_this_roll + 1)


def playable(c: Ctx, player: str, card_id: str) -> CardState:
    """A card in hand, or the default-effect card once it is due (#personal_effects)."""
    cs = c.card(card_id)
    if cs.owner == player and cs.zone == "effect":
        due = c.s.players[player].effect_due
        if due is None or c.info(cs).type == "PersonalEffect":
            raise Illegal("#personal_effects", f"{c.name(cs)} is a personal effect: it is not played on the map")
        if c.s.turn < due:
            raise Illegal("#personal_effects", f"the default-effect card is played in diel cycle {due}, "
                                               f"this is cycle {c.s.turn}")
        c.s.players[player] = c.s.players[player].set(effect_due=None)
        return cs
    return c.own(player, card_id, "hand")


def play(c: Ctx, a: Play) -> None:
    if c.s.phase != "day":
        raise Illegal("#day", "terrain features, traps and souls are played during the day")
    start_action(c, a.player)
    cs = playable(c, a.player, a.card)
    info = c.info(cs)
    hidden = a.face == "hidden"
    if hidden and not c.effects(cs).hidden_placement:
        raise Illegal("#placement_how", f"{c.name(cs)} cannot be played hidden: a card goes under the mat only when "
                                        "its printed text allows it (special circumstances); a judge can allow it "
                                        f"with 'judge effect {cs.id} hidden_placement on'")
    if info.type not in (HIDDEN_CARD_TYPES if hidden else DAY_CARD_TYPES):
        raise Illegal("#day", f"{c.name(cs)} is a {info.type} card; during the day you play terrain features, "
                              "traps and souls")
    stand = c.territory_stand(a.territory)
    if not c.controls(a.player, a.territory):
        raise Illegal("#day", f"{a.player} does not control territory {a.territory}; cards are played on a "
                              "territory you control")
    captive_play(c, a, cs)
    _count_play(c, a.player, "#game_setup")
    revealed = a.face == "revealed"
    if info.type == "Item":
        # a hidden item lies dropped in the territory, under the mat; it stays hidden from a new claim holder
        c.put(cs.set(zone="play", at=stand, revealed=False, hidden=True, played_turn=c.s.turn))
        return
    if info.is_soul:
        if info.habitat != "DigitalCloud" and c.occupying(a.territory, a.player) >= MAX_SOULS:
            raise Illegal("#maps", f"{a.player} already has {MAX_SOULS} souls in territory {a.territory}")
        c.put(cs.set(zone="play", at=stand, revealed=revealed, hidden=hidden,
                     injuries=tuple(0 for _ in info.keal_means), played_turn=c.s.turn, played_revealed=revealed,
                     arrived_turn=c.s.turn))
        if info.type == "Species" and info.tameability:
            c.push(Pending("tame", a.player, a.territory, (cs.id,), value=info.tameability))
        if info.die is not None and not info.die.covered:
            c.notice(f"{c.name(cs)} rolls {info.die.raw!r}: players give its roll totals as =N")
        return
    if info.type == "TerrainFeature":
        for old in list(c.s.cards.values()):
            if (old.zone == "play" and old.at == stand and c.info(old).type == "TerrainFeature"):
                c.put(old.set(zone="discard", at=None, controller=None))
                c.notice(f"{c.name(old)} is replaced by the new terrain feature (#terrain_features)")
    c.put(cs.set(zone="play", at=stand, revealed=revealed, hidden=hidden, played_turn=c.s.turn,
                 played_revealed=revealed))
    section = "#traps" if info.type == "Trap" else "#terrain_features"
    c.notice(f"{c.name(cs)}: apply its printed placement and effect text ({section})")


def reveal(c: Ctx, a: Reveal) -> None:
    if c.s.phase != "day":
        raise Illegal("#day", "souls are revealed during the day")
    start_action(c, a.player)
    if a.card in c.style.captives:
        captive_reveal(c, a)
        return
    cs = c.own(a.player, a.card, "play")
    if not c.is_soul(cs):
        raise Illegal("#day", f"{c.name(cs)} is not a soul; its card says when it is revealed")
    if cs.revealed:
        raise Illegal("#day", f"{c.name(cs)} is already revealed")
    c.put(cs.set(revealed=True, hidden=False))


def reach(c: Ctx, cs: CardState, start: str, limit: int, *, ignore_enemies: bool = False,
          enemies: frozenset[str] | None = None) -> dict[str, int]:
    """Stands reachable from `start` in at most `limit` lines, with their distance, for soul `cs`.

    Enemy souls waiting on movement stands cannot be passed (heavens dwellers fly over them); water lines
    need an aquatic soul, a flyer, or a soul that has swum this day; underground dwellers may use tunnels.
    The answer depends only on those, so it is kept in the map's `reach_cache` (a search costs ~20 lookups);
    callers never change the dict they get, which lists the stands in sorted order. `enemies` (the stands
    of the opponent's revealed souls on movement stands) saves a generator that asks for many souls the scan.
    """
    info = c.info(cs)
    board = c.board
    flyer = info.habitat == "Heavens"
    water_ok = flyer or info.habitat == "Water" or cs.swimming
    if flyer or ignore_enemies or c.effects(cs).through_enemies:
        blocked = _NO_STANDS
    elif enemies is not None:
        blocked = enemies
    else:
        blocked = blocking(c, cs.owner)
    pairs = tuple(tunnel_pairs(c)) if info.habitat == "Underground" else ()
    key = (start, limit, water_ok, blocked, pairs)
    cache = board.reach_cache
    found = cache.get(key)
    if found is not None:
        return found
    tunnels: dict[str, set[str]] = {}
    for ta, tb in pairs:
        tunnels.setdefault(ta, set()).add(tb)
        tunnels.setdefault(tb, set()).add(ta)
    adj, water = board.sorted_adj, board.water_edges
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if seen[here] >= limit or (here in blocked and here != start):
            continue
        nexts = tuple(sorted(set(adj[here]) | tunnels[here])) if here in tunnels else adj[here]
        for nxt in nexts:
            if nxt in seen:
                continue
            if not water_ok and (here, nxt) in water:
                continue
            seen[nxt] = seen[here] + 1
            queue.append(nxt)
    if len(cache) >= _REACH_LIMIT:
        cache.clear()
    ordered = cache[key] = dict(sorted(seen.items()))
    return ordered


def blocking(c: Ctx, player: str) -> frozenset[str]:
    """Movement stands holding a revealed soul of a foe of `player`: `player` cannot pass them (#movement)."""
    stands = c.board.stands
    return frozenset(e.at for e in c.enemy_souls(player) if e.revealed and e.at and stands[e.at].kind == "movement")


_REACH_LIMIT = 1 << 15
_NO_STANDS: frozenset[str] = frozenset()


def move(c: Ctx, a: Move) -> None:
    if c.s.phase != "day":
        raise Illegal("#movement", "souls move during the day")
    first = c.s.pending[0] if c.s.pending else None
    reinforcing = first is not None and first.kind == "combat" and first.player == a.player \
        and first.note == "respond" and c.s.bout is None
    if reinforcing:
        assert first is not None
        if c.territory_of(a.path[1]) != first.territory:
            raise Illegal("#retreat", f"while the fight in territory {first.territory} waits, souls move only to "
                                      "reinforce it")
        if a.path[0] in c.board.stands and c.contested(c.territory_of(a.path[0])):
            raise Illegal("#retreat", "reinforcements come from uncontended territory")
        c.s.origin = c.s.origin or a.player
    else:
        start_action(c, a.player)
    cs = c.own(a.player, a.card, "play")
    start, goal = a.path
    if not c.is_soul(cs):
        raise Illegal("#movement", f"{c.name(cs)} is not a soul; souls move cards, not the other way round")
    if cs.at != start:
        raise Illegal("#movement", f"{c.name(cs)} is on {cs.at}, not on {start}")
    if goal not in c.board.stands:
        raise Illegal("#movement", f"{goal} is not a stand of map {c.board.name!r}")
    if cs.rogue:
        raise Illegal("#rouge", f"{c.name(cs)} is rogue; it moves by the D6 roll, not by its owner")
    if not cs.revealed:
        raise Illegal("#movement", f"{c.name(cs)} is unrevealed; reveal it to move it")
    if cs.played_turn == c.s.turn and not cs.played_revealed:
        raise Illegal("#summoning_sickness", f"{c.name(cs)} was played unrevealed today and cannot move until "
                                             "tomorrow; souls played revealed may move at once")
    rng = c.movement_range(cs)
    if not rng:
        raise Illegal("#moving_downed_souls", f"{c.name(cs)} has movement 0 and cannot be moved")
    if c.needs_escort(cs):
        raise Illegal("#moving_downed_souls", f"{c.name(cs)} is downed with movement 1: it moves only with an "
                                              "escort (retreat with a soul that has KEAL means left)")
    left = rng - cs.moved
    if left <= 0:
        raise Illegal("#movement", f"{c.name(cs)} already used its movement range of {rng} today")
    if a.via:
        cost = route_cost(c, cs, [start, *a.via, goal], left)
    else:
        seen = reach(c, cs, start, left)
        cost = seen.get(goal, 0)
    if not a.via and (goal == start or goal not in seen):
        if goal == start:
            raise Illegal("#movement", f"{c.name(cs)} is already on {goal}")
        if goal in reach(c, cs, start, left, ignore_enemies=True):
            raise Illegal("#movement", f"{c.name(cs)} cannot go {start}-{goal}: the way passes an enemy waiting on "
                                       "a movement stand")
        if goal in reach(c, cs.set(swimming=True), start, left):
            raise Illegal("#movement", f"{c.name(cs)} cannot go {start}-{goal}: the way crosses water; swim first "
                                       "(2D6 showing 2 and 2, #geography)")
        raise Illegal("#movement", f"{c.name(cs)} cannot reach {goal} from {start} with {left} movement left")
    target = c.territory_of(goal)
    if target != c.territory_of(start) and c.info(cs).habitat != "DigitalCloud" \
            and c.occupying(target, a.player) >= MAX_SOULS:
        raise Illegal("#maps", f"{a.player} already has {MAX_SOULS} souls in territory {target}")
    enemies_there = c.enemies_at(goal, a.player)
    if enemies_there and c.can_attack(cs) is not None:
        raise Illegal("#movement", f"{goal} holds an enemy that must be attacked, and {c.can_attack(cs)}")
    still_water = c.board.territories[target].transit and c.board.territories[target].geography == "water"
    c.relocate(cs, goal, moved=cs.moved + cost, arrived_turn=c.s.turn, swimming=cs.swimming and still_water)
    passed = entered(c, [start, *a.via, goal]) if a.via else ([target] if target != c.territory_of(start) else [])
    trapped = [t for t in passed if c.foes_unrevealed(a.player, t)] if not reinforcing else []
    if trapped:
        c.push(*(Pending("trap-roll", a.player, t, (cs.id,), goal) for t in trapped))
    elif reinforcing:
        c.notice(f"{c.name(cs)} reinforces territory {target} without rolling to enter (#retreat)")
    if enemies_there:
        c.push(Pending("combat", a.player, target, (cs.id,), goal, note="must-attack"))


def swim(c: Ctx, a: Swim) -> None:
    """A swim attempt: 2D6 showing 2 and 2, nomads a D6 showing 1 or 2; once per soul per day (#geography)."""
    if c.s.phase != "day":
        raise Illegal("#geography", "souls swim during the day")
    require_turn(c, a.player)
    cs = c.own(a.player, a.card, "play")
    info = c.info(cs)
    if info.habitat in ("Water", "Heavens"):
        raise Illegal("#habitat_effects", f"{c.name(cs)} needs no swim roll ({info.habitat} dweller)")
    if cs.swim_tried:
        raise Illegal("#geography", f"{c.name(cs)} already tried to swim today")
    if cs.at is None or not any((p := c.board.path_between(cs.at, n)) is not None and p.water
                                for n in c.board.neighbours(cs.at)):
        raise Illegal("#geography", f"{c.name(cs)} is on {cs.at}: no path from there leads to water")
    nomad = info.habitat == "Nomad"
    want = 1 if nomad else 2
    if len(a.faces) != want or not all(1 <= f <= 6 for f in a.faces):
        raise Illegal("#habitat_effects", f"{c.name(cs)} swims with {'a D6' if nomad else '2 D6'}: give "
                                          f"{want} face(s) from 1 to 6")
    ok = a.faces[0] in (1, 2) if nomad else tuple(a.faces) == (2, 2)
    c.put(cs.set(swim_tried=True, swimming=ok))
    c.notice(f"{c.name(cs)} {'swims' if ok else 'fails to swim'} (#geography)")


def trap_roll(c: Ctx, a: Roll) -> None:
    first = c.s.pending[0] if c.s.pending else None
    if first is None or first.kind != "trap-roll" or first.player != a.player:
        raise Illegal("#card_activation", "no trap activation/detection roll is due from " + a.player)
    if not a.value.isdigit() or not 1 <= int(a.value) <= 20:
        raise Illegal("#traps", f"a D20 shows 1 to 20, not {a.value!r}")
    roll = int(a.value)
    c.pop()
    two = len(c.s.players) == 2
    mover = c.s.cards.get(first.cards[0]) if first.cards else None
    detection = c.effects(mover).detection if mover is not None else tuple(DETECTION)
    detected = roll in detection
    asks: list[Pending] = []
    for cs in c.foes_unrevealed(a.player, first.territory):
        kind = c.info(cs).type
        owner = cs.owner
        if kind == "Trap":  # more seats: the note names who detected it, since the finder may take it over
            asks.append(Pending("trap", owner, first.territory, (cs.id,), value=roll,
                                note=("detected" if two else f"detected-by-{a.player}") if detected else ""))
        elif kind == "TerrainFeature":
            c.notice(f"{owner}: {c.name(cs)} applies its printed effect if the roll {roll} activates it "
                     "(#card_activation step 2)")
    if detected:
        faces = "standard detection" if detection == tuple(DETECTION) else f"detection on {detection} (printed)"
        c.notice(f"D20 {roll}: {faces} of unsprung traps in territory {first.territory} (#traps)")
    c.push(*asks, front=True)


def trap(c: Ctx, a: Trap) -> None:
    match = [p for p in c.s.pending if p.kind == "trap" and p.player == a.player and p.cards == (a.card,)]
    if not match or c.s.pending[0].kind != "trap":
        raise Illegal("#traps", f"no answer about trap {a.card} is due from {a.player}")
    c.s.pending = tuple(p for p in c.s.pending if p is not match[0])
    cs = c.card(a.card)
    if a.outcome == "sprung":
        c.put(cs.set(revealed=True, hidden=False))
        c.notice(f"{c.name(cs)} is sprung: apply its printed effect to the enemy on top of the stack (#traps)")
    elif match[0].note.startswith("detected"):
        finder = match[0].note.removeprefix("detected-by-") if match[0].note != "detected" else other(a.player)
        if c.controls(finder, match[0].territory):
            c.put(cs.set(controller=finder))
            c.notice(f"{c.name(cs)} is detected in territory {match[0].territory}, which {finder} holds: "
                     f"{finder} takes control of the trap instead of disabling it (#contention)")
        else:
            c.put(cs.set(zone="discard", at=None, controller=None))
            c.notice(f"{c.name(cs)} is detected and removed from play (#traps)")
