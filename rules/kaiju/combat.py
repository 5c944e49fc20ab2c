"""Combat (seed 003, "Combat Flow", "Damage Fury & KO", "Rage Attacks", "Key Terms"): face-down cards,
reveal and payment (stats first, energy tokens for the rest, POWER caps the tokens per combat), bluffs,
damage against toughness, counter attacks, fury, KO and glory, combo and knockdown, passing, the end of
combat and its draws."""

from __future__ import annotations

from dataclasses import replace

from rules.core.engine import Illegal
from rules.core.notation import Act
from rules.kaiju import flow
from rules.kaiju.cards import Character, CombatCard, KaijuCatalog
from rules.kaiju.state import CityCard, Combat, KaijuState, Member, Side

RAGE_DAMAGE, RAGE_DRAW, RAGE_ENERGY = 2, 3, 5
LEADS = ("attack", "technique")
ANSWERS = ("defense", "technique", "counter")


def with_side(c: Combat, name: str, side: Side) -> Combat:
    return replace(c, attacker=side) if name == "attacker" else replace(c, defender=side)


def sides(c: Combat) -> tuple[str, str]:
    """(side with initiative, side without) as field names of `Combat`."""
    return ("attacker", "defender") if c.initiative == "attacker" else ("defender", "attacker")


def side_of(c: Combat, seat: str) -> str | None:
    if c.attacker.seat == seat:
        return "attacker"
    if c.defender.seat == seat:
        return "defender"
    return None


def fighter(s: KaijuState, side: Side) -> Character:
    if side.city:
        return next(x for x in s.city if x.id == side.fighter).stats
    m = s.players[side.seat].members[side.fighter]
    return m.stats


def to_play(s: KaijuState) -> str | None:
    """The seat whose combat card (or pass) the exchange waits for."""
    c = s.combat
    if c is None or s.knockdown or s.refills:
        return None
    lead, answer = sides(c)
    first: Side = getattr(c, lead)
    return first.seat if not first.played else getattr(c, answer).seat


def card(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    """#combat_flow 2: play a combat card face down (the side with initiative first)."""
    c = _combat_turn(s, a)
    info = cat.combat_card(a.args[0])
    flow.take(s.players[a.seat].combat_hand, info.code, f"{a.seat}'s combat hand")
    name = side_of(c, a.seat)
    assert name is not None
    s.combat = with_side(c, name, replace(getattr(c, name), card=info.code, played=True))
    if name == sides(c)[1]:
        resolve(s, cat)


def pass_combat(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    """#combat_flow 2: without a card the initiative passes (both passing in succession ends the combat);
    the side without initiative that passes suffers the full attack."""
    c = _combat_turn(s, a)
    lead, _ = sides(c)
    if getattr(c, lead).seat == a.seat:
        c = replace(c, initiative="defender" if c.initiative == "attacker" else "attacker", passes=c.passes + 1)
        s.combat = c
        if c.passes >= 2:
            end(s, cat)
        return
    name = side_of(c, a.seat)
    assert name is not None
    s.combat = with_side(c, name, replace(getattr(c, name), card=None, played=True))
    resolve(s, cat)


def _combat_turn(s: KaijuState, a: Act) -> Combat:
    if s.combat is None or to_play(s) != a.seat:
        raise Illegal("#combat_flow", f"no combat waits for {a.seat}'s card (waiting for {to_play(s) or 'nobody'})")
    return s.combat


def _pay(s: KaijuState, side: Side, info: CombatCard) -> tuple[Side, bool]:
    """#combat_flow 3: FEROCITY and AGILITY from the fighter's stats not yet spent this combat, the rest and
    all POWER from energy tokens, at most POWER tokens per combat (no limit after a rage attack). Returns
    the side after paying and whether it could pay (a card it cannot pay for is a bluff and costs nothing)."""
    stats = fighter(s, side)
    free_f, free_a = max(0, stats.ferocity - side.spent_ferocity), max(0, stats.agility - side.spent_agility)
    need = info.power + max(0, info.ferocity - free_f) + max(0, info.agility - free_a)
    pool = s.players[side.seat].energy
    cap = pool if side.raged else min(pool, max(0, stats.power - side.spent_energy))
    if need > cap:
        return side, False
    s.players[side.seat].energy -= need
    return replace(side, spent_ferocity=side.spent_ferocity + min(info.ferocity, free_f),
                   spent_agility=side.spent_agility + min(info.agility, free_a),
                   spent_energy=side.spent_energy + need), True


def resolve(s: KaijuState, cat: KaijuCatalog) -> None:
    """#combat_flow 3-5: reveal, pay, resolve damage and effects, pass the initiative."""
    c = s.combat
    assert c is not None
    lead_name, answer_name = sides(c)
    lead, answer = getattr(c, lead_name), getattr(c, answer_name)
    cards: dict[str, CombatCard | None] = {}
    state: dict[str, str] = {}  # "none", "illegal", "bluff", "paid"
    new: dict[str, Side] = {}
    for name, side, kinds in ((lead_name, lead, LEADS), (answer_name, answer, ANSWERS)):
        info = cat.combat_card(side.card) if side.card else None
        cards[name] = info
        if info is None:
            state[name] = "none"
        elif info.kind not in kinds:
            state[name] = "illegal"
            s.players[side.seat].combat_discard[info.code] += 1
            s.notices += (f"{side.seat}'s {info.name} is the wrong card type here: discarded without effect",)
        else:
            side, paid = _pay(s, side, info)
            state[name] = "paid" if paid else "bluff"
            side = replace(side, stack=(*side.stack, info.code))
            if not paid:
                s.notices += (f"{side.seat} cannot pay for {info.name}: a BLUFF",)
        new[name] = replace(side, card=None, played=False)

    def works(name: str, other: str) -> bool:
        return state[name] == "paid" or (state[name] == "bluff" and state[other] in ("bluff", "none", "illegal"))

    lead_ok, answer_ok = works(lead_name, answer_name), works(answer_name, lead_name)
    lead_card, answer_card = cards[lead_name], cards[answer_name]
    s.combat = replace(c, attacker=new["attacker"], defender=new["defender"], passes=0)
    knocked: list[str] = []
    if lead_ok and lead_card is not None:
        tough = answer_card.toughness if answer_ok and answer_card is not None else 0
        knocked += damage(s, cat, new[answer_name], lead_card.damage - tough, lead.seat)
        if "knockdown" in lead_card.keywords and s.players[answer.seat].combat_hand.total():
            s.knockdown = answer.seat
    if answer_ok and answer_card is not None and answer_card.kind == "counter":
        tough = lead_card.toughness if lead_ok and lead_card is not None else 0
        knocked += damage(s, cat, new[lead_name], answer_card.damage - tough, answer.seat)
    combo = lead_ok and lead_card is not None and "combo" in lead_card.keywords
    if not combo:
        s.combat = replace(s.combat, initiative=answer_name)
    if knocked:
        end(s, cat)


def damage(s: KaijuState, cat: KaijuCatalog, side: Side, amount: int, by: str) -> list[str]:
    """#damage_fury_ko: damage tokens, one fury for the damaged character's team, KO at FORTITUDE plus the
    team's fortitude bonus (5 glory for a kaiju, the printed glory otherwise, to who dealt the final blow).
    Returns the fighters knocked out."""
    if amount <= 0:
        return []
    winner = s.players[by]
    if side.city:
        cc = next(x for x in s.city if x.id == side.fighter)
        cc = CityCard(cc.id, cc.code, cc.owner, cc.stats, cc.damage + amount)
        if cc.damage >= cc.stats.fortitude:
            s.city = tuple(x for x in s.city if x.id != cc.id)
            winner.glory_cards = (*winner.glory_cards, (cc.code, cc.stats.glory))
            s.notices += (f"{cc.stats.name} is destroyed: {cc.stats.glory} glory to {by}",)
            return [cc.id]
        s.city = tuple(cc if x.id == cc.id else x for x in s.city)
        return []
    p = s.players[side.seat]
    m = p.members[side.fighter]
    m = Member(m.id, m.stats, m.damage + amount, m.scar)
    p.fury += 1
    bonus = cat.team(p.team).fortitude_bonus
    if m.damage >= m.stats.fortitude + bonus:
        del p.members[m.id]
        if p.active == m.id:
            p.active = None
        winner.glory_cards = (*winner.glory_cards, (m.stats.code, m.stats.glory))
        s.notices += (f"{side.seat}'s {m.stats.name} is knocked out: {m.stats.glory} glory to {by}",)
        return [m.id]
    p.members[m.id] = m
    return []


def rage(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    """#rage_attacks: at the start of combat or between attacks, with the team's fury at its threshold."""
    c = s.combat
    name = side_of(c, a.seat) if c is not None else None
    if c is None or name is None or c.attacker.played or c.defender.played or s.knockdown or s.refills:
        raise Illegal("#rage_attacks", f"{a.seat} may rage only in its own combat, at its start or between attacks")
    p = s.players[a.seat]
    side: Side = getattr(c, name)
    if side.city:
        raise Illegal("#rage_attacks", "a city card has no team and no rage attack")
    need = cat.team(p.team).fury
    if p.fury < need:
        raise Illegal("#rage_attacks", f"{a.seat}'s team has {p.fury} fury, {need} are needed")
    p.fury = 0
    p.energy += RAGE_ENERGY
    s.combat = c = with_side(c, name, replace(side, raged=True))
    other: Side = c.defender if name == "attacker" else c.attacker
    flow.owe(s, a.seat, "combat", p.combat_hand.total() + RAGE_DRAW, False)
    if damage(s, cat, other, RAGE_DAMAGE, a.seat):
        end(s, cat)


def end(s: KaijuState, cat: KaijuCatalog) -> None:
    """#combat_flow 6: played cards to their discard piles; both players may discard and draw back up to 5;
    the survivors may take a scar."""
    c = s.combat
    assert c is not None
    survivors = []
    for side in (c.attacker, c.defender):
        p = s.players[side.seat]
        for code in side.stack:
            p.combat_discard[code] += 1
        if side.card:
            p.combat_discard[side.card] += 1
        if not side.city and side.fighter in p.members:
            survivors.append((side.seat, side.fighter))
    s.combat = None
    s.knockdown = None
    s.scar_window = tuple(survivors)
    s.action_open = True
    for seat in dict.fromkeys((c.attacker.seat, c.defender.seat)):
        if s.players[seat].members:
            flow.owe(s, seat, "combat", flow.HAND, True)


def scar(s: KaijuState, cat: KaijuCatalog, a: Act) -> None:
    """#playing_planning_cards: a scar is played at the end of a combat onto a character who fought and
    survived it; one scar per character."""
    code, seat, member = a.args
    info = cat.planning_card(code)
    if info.kind != "scar" or (seat, member) not in s.scar_window:
        raise Illegal("#playing_planning_cards", f"{code} onto {seat} {member}: a scar card goes onto a character "
                                                 "that fought and survived the combat just ended")
    target = s.players[seat].members[member]
    if target.scar:
        raise Illegal("#playing_planning_cards", f"{member} already carries the scar {target.scar}")
    flow.take(s.players[a.seat].planning_hand, code, f"{a.seat}'s planning hand")
    stats = replace(target.stats, fortitude=target.stats.fortitude + info.fortitude)
    s.players[seat].members[member] = Member(target.id, stats, target.damage, code)
    if info.text:
        s.notices += (f"{info.name}: {info.text}",)
