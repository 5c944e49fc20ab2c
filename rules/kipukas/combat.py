"""Combat (#ADRH): KEAL means bouts, final blows, brawls, pressing on, counter-attacks, retreat, contention."""

from __future__ import annotations

from functools import lru_cache

from rules.kipukas.context import Ctx, Illegal, other
from rules.kipukas.day import MAX_SOULS, start_action
from rules.kipukas.fists import Typing, affinity_bonus, brawl, final_blow_modifier, habitat_modifiers, keal_modifier
from rules.kipukas.lifecycle import waste
from rules.kipukas.notation import Attack, Challenge, Grab, Hold, Means, Retreat, Roll, Stop
from rules.kipukas.state import Bout, CardState, Pending


def _combat_pending(c: Ctx, player: str) -> Pending | None:
    first = c.s.pending[0] if c.s.pending else None
    return first if first is not None and first.kind == "combat" and first.player == player else None


def attack(c: Ctx, a: Attack) -> None:
    if c.s.phase != "day":
        raise Illegal("#ADRH", "attacks happen during the day")
    if c.s.bout is not None:
        raise Illegal("#ADRH", "finish the bout in progress first (means and rolls)")
    pend = _combat_pending(c, a.player)
    if pend is None:
        start_action(c, a.player, contention_ok=True)
    cs = c.own(a.player, a.card, "play")
    target = c.card(a.target)
    if (target.owner == a.player and not target.rogue) or target.zone != "play" or not c.is_soul(target):
        raise Illegal("#ADRH", f"{a.target} is not an enemy soul in play")
    why = c.can_attack(cs)
    if why:
        raise Illegal("#combat_lifecycle", why)
    assert cs.at is not None and target.at is not None
    territory = c.territory_of(cs.at)
    if c.territory_of(target.at) != territory:
        raise Illegal("#contention", f"{c.name(target)} is not in territory {territory} with {c.name(cs)}")
    if pend is None:
        due = (a.player, territory) in c.s.contention_due
        if not due:
            raise Illegal("#contention", "attacks start by moving onto an enemy's stand (#movement) or from "
                                         "contention carried over from the previous day")
        c.s.contention_due = c.s.contention_due - {(p, territory) for p in c.s.players}
    else:
        if pend.territory != territory:
            raise Illegal("#contention", f"the fight is in territory {pend.territory}, not {territory}")
        if pend.note == "must-attack" and cs.id not in pend.cards and cs.at != pend.stand:
            raise Illegal("#movement", f"the soul that moved onto {pend.stand} must attack there")
        c.pop()
    if not cs.revealed:
        c.put(cs.set(revealed=True, hidden=False))
    if not target.revealed:
        c.put(target.set(revealed=True, hidden=False))
        c.notice(f"{c.name(target)} is revealed to defend (#card_activation step 5)")
    final = c.downed(target)
    bout = Bout(cs.id, target.id, final)
    fixed = c.s.fixed_means.get((cs.id, target.id))
    if not final and fixed is not None:
        am, dm = fixed
        bout = bout.set(attack_means=am if am in c.available_means(cs) else None,
                        defence_means=dm if dm in c.available_means(target) else None)
    c.s.bout = bout
    if not final and (c.effects(cs).bout_detection or c.effects(target).bout_detection):
        foe = other(a.player) if len(c.s.players) == 2 else target.owner
        c.notice(f"printed effect: {foe if c.effects(cs).bout_detection else a.player} rolls standard "
                 "detection (D20: 1, 2, 3, 4) before this KEAL means bout (#traps)")
    c.notice(f"{c.name(cs)} attacks {c.name(target)}: {'final blow' if final else 'KEAL means bout'}; "
             "apply any printed game effects of both cards")


def means(c: Ctx, a: Means) -> None:
    b = c.s.bout
    if b is None or b.final:
        raise Illegal("#keal_means", "no KEAL means bout is waiting for a means choice")
    if a.card not in (b.attacker, b.defender) or c.card(a.card).owner != a.player:
        raise Illegal("#keal_means", f"{a.card} is not {a.player}'s soul in the bout")
    cs = c.card(a.card)
    field = "attack_means" if a.card == b.attacker else "defence_means"
    if getattr(b, field) is not None:
        raise Illegal("#ce_setup", f"{c.name(cs)}'s KEAL means for this pairing is already chosen for the day")
    if a.index not in c.available_means(cs):
        names = ", ".join(f"{i}={c.info(cs).keal_means[i - 1].name}" for i in c.available_means(cs))
        raise Illegal("#keal_means_DHT", f"{c.name(cs)} has no usable KEAL means {a.index} (usable: {names})")
    c.s.bout = b.set(**{field: a.index})


def _modified(c: Ctx, cs: CardState) -> bool:
    """A printed roll modifier applies (#roll_modifiers): the soul's own text, an item it carries, or a
    terrain feature staked in its territory. Then the players give the modified total as =N."""
    if c.effects(cs).roll_totals:
        return True
    if cs.at is None:
        return False
    territory = c.territory_of(cs.at)
    for x in c.s.play.values():
        if x.equipped_to == cs.id:
            return True
        if x.at and c.info(x).type == "TerrainFeature" and x.revealed and c.territory_of(x.at) == territory:
            return True
    return False


def total(c: Ctx, cs: CardState, value: str) -> int:
    spec = c.info(cs).die
    if spec is not None and spec.covered and not spec.dice:
        if value != f"={spec.base}":
            raise Illegal("#attack", f"{c.name(cs)} rolls a fixed {spec.raw}: give ={spec.base}")
        return spec.base
    if value.startswith("=") and (spec is None or not spec.covered) and value[1:].isdigit():
        return int(value[1:])  # a die with no grammar takes the total, modified or not: no need to ask which
    if value.startswith("=") and _modified(c, cs):
        if not value[1:].isdigit():
            raise Illegal("#roll_modifiers", f"a roll total is =N, not {value!r}")
        return int(value[1:])
    if value.startswith("="):
        if spec is not None and spec.covered:
            raise Illegal("#attack", f"{c.name(cs)} rolls {spec.raw}: give the faces (e.g. 4,5), not a total")
        if not value[1:].isdigit():
            raise Illegal("#attack", f"a roll total is =N, not {value!r}")
        return int(value[1:])
    if spec is None or not spec.covered:
        raw = spec.raw if spec else ""
        raise Illegal("#attack", f"{c.name(cs)}'s die field {raw!r} has no dice grammar: give the total as =N")
    try:
        faces = [int(f) for f in value.split(",")]
        return spec.total(faces)
    except ValueError as exc:
        raise Illegal("#attack", f"{c.name(cs)} rolls {spec.raw}: {exc}") from None


def roll(c: Ctx, a: Roll) -> None:
    b = c.s.bout
    if b is None:
        raise Illegal("#ADRH", "no bout is waiting for a roll")
    if not b.final and (b.attack_means is None or b.defence_means is None):
        raise Illegal("#ce_setup", "both players choose their KEAL means (in secret) before rolling")
    side = b.attacker if a.what == "attack" else b.defender
    cs = c.card(side)
    if cs.owner != a.player:
        raise Illegal("#ADRH", f"the {a.what} roll is {cs.owner}'s")
    field = "attack_roll" if a.what == "attack" else "defence_roll"
    if getattr(b, field) is not None:
        raise Illegal("#ADRH", f"the {a.what} roll of this round is already in")
    b = b.set(**{field: total(c, cs, a.value)})
    c.s.bout = b
    if b.attack_roll is not None and b.defence_roll is not None:
        _resolve(c, b)


def _modifiers(c: Ctx, b: Bout) -> tuple[int, int, int]:
    att, dfn = c.card(b.attacker), c.card(b.defender)
    ai, di = c.info(att), c.info(dfn)
    assert dfn.at is not None and ai.habitat and di.habitat and ai.gene and di.gene
    geography = c.board.territories[c.territory_of(dfn.at)].geography
    ha, hd, _ = _habitat(ai.habitat, di.habitat, geography)
    am = _affinity(ai.gene, c.s.players[att.owner].affinity) + ha
    dm = _affinity(di.gene, c.s.players[dfn.owner].affinity) + hd
    if b.final:
        t = _final(ai.gene, di.gene, ai.motive, di.motive)
        return am + t.attack, dm + t.defence, t.best_of
    assert b.attack_means is not None and b.defence_means is not None
    t = _keal(ai.keal_means[b.attack_means - 1].adaptations, di.keal_means[b.defence_means - 1].adaptations)
    return am + t.attack, dm, 1


# The typing chart, motives and habitats are static: each pairing is worked out once per process.
_habitat = lru_cache(maxsize=4096)(habitat_modifiers)
_affinity = lru_cache(maxsize=4096)(affinity_bonus)
_final = lru_cache(maxsize=4096)(final_blow_modifier)


@lru_cache(maxsize=8192)
def _keal(attacker: tuple[str, ...], defender: tuple[str, ...]) -> Typing:
    return keal_modifier(attacker, defender)


def _resolve(c: Ctx, b: Bout) -> None:
    att, dfn = c.card(b.attacker), c.card(b.defender)
    am, dm, best_of = _modifiers(c, b)
    assert b.attack_roll is not None and b.defence_roll is not None
    a_total, d_total = b.attack_roll + am, b.defence_roll + dm
    if a_total != d_total:
        won = a_total > d_total
    else:
        verdict = brawl(c.info(att).brawl or "", c.info(dfn).brawl or "")
        won = verdict > 0
        c.notice(f"tie at {a_total}: brawl {c.info(att).brawl} vs {c.info(dfn).brawl}, "
                 f"{'attacker' if won else 'defender'} wins (#brawl)")
    c.notice(f"{'final blow' if b.final else 'bout'}: attack {b.attack_roll}{am:+d}={a_total} vs defence "
             f"{b.defence_roll}{dm:+d}={d_total}: {'attacker' if won else 'defender'} wins")
    if not b.final and not b.grab:
        c.s.fixed_means[(att.id, dfn.id)] = (b.attack_means or 0, b.defence_means or 0)
    if b.grab:
        _grab_over(c, b, won)
        return
    if b.final and best_of == 3:
        rounds = (*b.rounds, 1 if won else -1)
        if rounds.count(1) < 2 and rounds.count(-1) < 2:
            c.s.bout = b.set(attack_roll=None, defence_roll=None, rounds=rounds)
            c.notice("best 2 out of 3: roll the next round (#motivation)")
            return
        won = rounds.count(1) >= 2
    c.s.bout = None
    territory = c.territory_of(dfn.at or "")
    if not won:
        if not b.final and c.effects(att).wasted_on_lost_bout:
            waste(c, att.id, "lost a KEAL means bout: its printed effect wastes it (#card_variations)")
            _after_waste(c, dfn.owner, territory)
            return
        c.put(att.set(exhausted=True))
        c.push(Pending("combat", dfn.owner, territory, note="respond"), front=True)
        return
    if b.final:
        waste(c, dfn.id, f"lost the final blow to {c.name(att)} (#final_blow)")
        _after_waste(c, att.owner, territory)
        return
    means_i = (b.defence_means or 1) - 1
    injuries = tuple(n + 1 if i == means_i else n for i, n in enumerate(dfn.injuries))
    c.put(dfn.set(injuries=injuries))
    if c.downed(c.card(dfn.id)):
        c.notice(f"{c.name(dfn)} is downed: it cannot attack, its movement is reduced, a final blow can waste it")
    c.push(Pending("combat", att.owner, territory, note="press"), front=True)


def grab(c: Ctx, a: Grab) -> None:
    """#items: each player with a soul able to fight names one in the territory to grab the dropped item; a
    KEAL means bout between the two follows (the first named attacks); the victor equips the item, the loser
    takes KEAL means damage. With only one side able, its soul takes the item."""
    first = c.s.pending[0] if c.s.pending else None
    if first is None or first.kind != "grab" or first.player != a.player or first.cards != (a.card,):
        raise Illegal("#items", f"no grab for {a.card} is due from {a.player}")
    soul = c.own(a.player, a.target, "play")
    if not c.is_soul(soul) or soul.at is None or c.territory_of(soul.at) != first.territory:
        raise Illegal("#items", f"{a.target} is not a soul of {a.player}'s in territory {first.territory}")
    if c.downed(soul):
        raise Illegal("#items", f"{c.name(soul)} is downed: send a soul with KEAL means left")
    c.pop()
    nxt = c.s.pending[0] if c.s.pending else None
    if nxt is not None and nxt.kind == "grab" and nxt.cards == first.cards and not first.note:
        c.s.pending = (nxt.set(note=soul.id), *c.s.pending[1:])  # the other player names theirs next
        return
    if first.note:
        c.s.bout = Bout(first.note, soul.id, False, grab=a.card)
        c.notice(f"grab bout for {a.card}: {c.name(c.card(first.note))} against {c.name(soul)} (#items)")
        return
    item = c.card(a.card)
    c.put(item.set(at=soul.at, equipped_to=soul.id, controller=a.player if item.owner != a.player else None))
    c.notice(f"{c.name(soul)} grabs {c.name(item)}: no enemy soul able to fight contests it (#items)")


def _grab_over(c: Ctx, b: Bout, won: bool) -> None:
    winner, loser = (b.attacker, b.defender) if won else (b.defender, b.attacker)
    w, lo = c.card(winner), c.card(loser)
    item = c.card(b.grab)
    c.put(item.set(at=w.at, equipped_to=w.id, controller=w.owner if item.owner != w.owner else None))
    c.s.bout = None
    c.push(Pending("damage", lo.owner, c.territory_of(lo.at or ""), (lo.id,), note="#items"), front=True)
    c.notice(f"{c.name(w)} grabs {c.name(item)}; {c.name(lo)} takes KEAL means damage (#items)")


def _after_waste(c: Ctx, winner: str, territory: str) -> None:
    answer = c.responder(winner, territory)
    if answer is not None:
        grabs = tuple(p for p in c.s.pending if p.kind == "grab")  # a dropped item is grabbed first (#items)
        rest = tuple(p for p in c.s.pending if p.kind != "grab")
        c.s.pending = (*grabs, Pending("combat", answer, territory, note="respond"), *rest)
    else:
        _combat_over(c, territory)


def _combat_over(c: Ctx, territory: str) -> None:
    c.s.contention_due = c.s.contention_due - {(p, territory) for p in c.s.players}


def stop(c: Ctx, a: Stop) -> None:
    pend = _combat_pending(c, a.player)
    if pend is None or pend.note == "must-attack":
        raise Illegal("#ADRH", f"{a.player} has no attack to stop" if pend is None else
                      "the soul that moved onto an enemy must attack at least once (#movement)")
    c.pop()
    answer = c.responder(a.player, pend.territory) if pend.note == "press" else None
    if answer is not None:
        c.push(Pending("combat", answer, pend.territory, note="respond"), front=True)
    else:
        _combat_over(c, pend.territory)


def hold(c: Ctx, a: Hold) -> None:
    """Carried-over contention with no soul able to attack there: leave it for today (#day)."""
    start_action(c, a.player, contention_ok=True)
    if (a.player, a.territory) not in c.s.contention_due:
        raise Illegal("#day", f"{a.player} has no carried-over contention in territory {a.territory}")
    able = [s for s in c.souls_in(a.territory, a.player) if c.can_attack(s) is None]
    if able:
        raise Illegal("#day", f"{c.name(able[0])} can attack in territory {a.territory}: attack or retreat")
    c.s.contention_due = c.s.contention_due - {(a.player, a.territory)}
    c.s.origin = None  # dealing with contention is not the day's action


def retreat(c: Ctx, a: Retreat) -> None:
    pend = _combat_pending(c, a.player)
    if pend is None or pend.note != "respond":
        start_action(c, a.player, contention_ok=True)
    souls = [c.own(a.player, card, "play") for card in a.cards]
    if len(set(a.cards)) != len(a.cards) or not souls:
        raise Illegal("#retreat", "name each retreating soul once")
    territories = {c.territory_of(s.at or "") for s in souls}
    if len(territories) != 1:
        raise Illegal("#retreat", "a group retreats from one territory")
    territory = territories.pop()
    if pend is not None and pend.note == "respond":
        if pend.territory != territory:
            raise Illegal("#retreat", f"the fight is in territory {pend.territory}")
    elif (a.player, territory) not in c.s.contention_due:
        raise Illegal("#retreat", f"there is no contention for {a.player} to retreat from in territory {territory}")
    escorts = [s for s in souls if not c.downed(s) or c.effects(s).moves_downed]
    if not escorts:
        raise Illegal("#retreat", "downed souls retreat only under escort of a soul with KEAL means left")
    ranges = [c.info(s).movement or 0 for s in escorts]
    slowest = min(ranges)
    if slowest <= 0:
        raise Illegal("#retreat", "a soul with movement 0 cannot retreat")
    if a.stand not in c.board.stands:
        raise Illegal("#retreat", f"{a.stand} is not a stand of map {c.board.name!r}")
    from rules.kipukas.day import reach
    seen = reach(c, escorts[ranges.index(slowest)], souls[0].at or "", slowest)
    if a.stand not in seen or a.stand == souls[0].at:
        raise Illegal("#retreat", f"{a.stand} is not within {slowest} (the slowest range in the group) of "
                                  f"{souls[0].at}")
    if c.territory_of(a.stand) == territory:
        raise Illegal("#retreat", f"{a.stand} is in territory {territory}: a retreat leaves the contested territory")
    if c.enemies_at(a.stand, a.player):
        raise Illegal("#retreat", f"{a.stand} holds enemy souls; retreat to a safe stand")
    _retreat_destination(c, a.player, territory, a.stand, seen)
    for s in souls:
        if s.rogue:
            raise Illegal("#rouge", f"{c.name(s)} is rogue: its owner does not control it")
    dest = c.territory_of(a.stand)
    arriving = sum(1 for s in souls if c.info(s).habitat != "DigitalCloud")
    if c.occupying(dest, a.player) + arriving > MAX_SOULS:
        raise Illegal("#maps", f"{a.player} would have more than {MAX_SOULS} souls in territory {dest}")
    if pend is not None and pend.note == "respond":
        c.pop()
    else:
        c.s.contention_due = c.s.contention_due - {(a.player, territory)}
    chaser = c.responder(a.player, territory) or (other(a.player) if len(c.s.players) == 2 else c.foes(a.player)[0])
    c.push(Pending("challenge", chaser, territory, a.cards, a.stand), front=True)


def _retreat_destination(c: Ctx, player: str, territory: str, stand: str, seen: dict[str, int]) -> None:
    """#retreat: the party goes to the nearest base camp or movement stand in territory the player controls;
    or, by a successful retreat, into another contested territory nearby (to join that fight)."""
    dest = c.territory_of(stand)
    if dest != territory and c.contested(dest):
        return
    if not c.controls(player, dest):
        raise Illegal("#retreat", f"{stand} is in territory {dest}, which {player} does not control: a retreat "
                                  f"ends on the nearest stand in territory {player} controls")
    enemies = {e.at for e in c.enemy_souls(player)}
    safe = [d for st, d in seen.items() if st not in enemies and c.territory_of(st) != territory
            and c.controls(player, c.territory_of(st))]
    if seen[stand] > min(safe):
        raise Illegal("#retreat", f"{stand} is {seen[stand]} away, but a stand in territory {player} controls is "
                                  f"{min(safe)} away: a retreat ends on the nearest one")


def challenge(c: Ctx, a: Challenge) -> None:
    first = c.s.pending[0] if c.s.pending else None
    if first is None or first.kind != "challenge" or first.player != a.player:
        raise Illegal("#retreat", f"no retreat is waiting for {a.player} to challenge or release")
    c.pop()
    if a.answer == "release":
        _retreat_done(c, first, True)
    else:
        c.push(first.set(kind="escape", player=_runner(c, first)), front=True)


def escape_roll(c: Ctx, a: Roll) -> None:
    """The retreating side rolls 2D6 ('escape'), the challenger a D20 ('chase'); the escapee must win."""
    first = c.s.pending[0] if c.s.pending else None
    if first is None or first.kind != "escape":
        raise Illegal("#retreat", "no challenged retreat is waiting for a roll")
    runner = first.player
    if (a.what == "escape") != (a.player == runner):
        raise Illegal("#retreat", f"{runner} rolls 'escape' (2D6), {_chaser(c, runner)} rolls 'chase' (D20)")
    parts = a.value.split(",")
    if a.what == "escape":
        if len(parts) != 2 or not all(p.isdigit() and 1 <= int(p) <= 6 for p in parts):
            raise Illegal("#retreat", f"the escape roll is 2 D6 like 3,4, not {a.value!r}")
        if first.value:
            raise Illegal("#retreat", "the escape roll is already in")
        first = first.set(value=int(parts[0]) + int(parts[1]))
    else:
        if len(parts) != 1 or not parts[0].isdigit() or not 1 <= int(parts[0]) <= 20:
            raise Illegal("#retreat", f"the chase roll is a D20 (1 to 20), not {a.value!r}")
        if first.chase:
            raise Illegal("#retreat", "the chase roll is already in")
        first = first.set(chase=int(parts[0]))
    if first.value and first.chase:
        c.pop()
        escaped = first.value > first.chase
        c.notice(f"retreat: escape {first.value} vs chase {first.chase}: {'escaped' if escaped else 'caught'}")
        _retreat_done(c, first, escaped)
    else:
        c.s.pending = (first, *c.s.pending[1:])


def _retreat_done(c: Ctx, pend: Pending, escaped: bool) -> None:
    runner = _runner(c, pend) if pend.kind == "challenge" else pend.player
    for card in pend.cards:
        cs = c.card(card)
        if escaped:
            c.relocate(cs, pend.stand, arrived_turn=c.s.turn, moved=cs.moved + 1)
        else:
            c.put(cs.set(exhausted=True))
    if c.souls_in(pend.territory, runner) and c.responder(runner, pend.territory) is not None:
        c.push(Pending("combat", runner, pend.territory, note="respond"), front=True)
    else:
        _combat_over(c, pend.territory)


def _runner(c: Ctx, pend: Pending) -> str:
    """Whose souls a waiting retreat challenge is about (two seats: the challenger's opponent)."""
    if len(c.s.players) == 2:
        return other(pend.player)
    return c.card(pend.cards[0]).owner


def _chaser(c: Ctx, runner: str) -> str:
    """Who rolls the chase D20 against `runner` (two seats: the opponent)."""
    return other(runner) if len(c.s.players) == 2 else ", ".join(c.foes(runner))
