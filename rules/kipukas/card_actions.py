"""Actions the book names beyond moving and fighting: items on souls (#equiping, #items), tunnels dug by
underground dwellers, rogue souls roaming (#rouge), sabotage results (#sabotage) and random territory
selection (#random_territory).

- ``equip ITEM SOUL``: an item from hand goes onto one of your souls in play (a day action, counted as a
  card played this diel roll). Items equipped travel with the soul as one stack (`Ctx.relocate`).
- ``unequip ITEM``: the item is dropped where the soul stands; dropped items belong to the territory.
- ``pass ITEM SOUL``: to another of your souls on the same stand.
- ``pickup ITEM SOUL``: a soul of either player picks up a dropped item in its territory, standing on an
  uncontested stand; the item comes under its controller.
- ``resolve SABOTAGE success|failure``: the printed criteria decided; the card leaves the effect zone.
- ``roll territory N``: a D20 (or D12) for a card that picks a territory at random: N selects the territory
  numbered N when the board has one; otherwise the roll is repeated (#random_territory).
"""

from __future__ import annotations

from rules.kipukas.context import Ctx, Illegal
from rules.kipukas.day import MAX_PLAYED, reach, start_action
from rules.kipukas.notation import Dig, Equip, Imprison, Pass, Pickup, Release, Resolve, Roam, Roll, Unequip
from rules.kipukas.state import CardState, Pending


def _item(c: Ctx, card: str) -> CardState:
    cs = c.card(card)
    if c.info(cs).type != "Item":
        raise Illegal("#items", f"{c.name(cs)} is not an item card")
    return cs


def _soul(c: Ctx, player: str, card: str) -> CardState:
    soul = c.own(player, card, "play")
    if not c.is_soul(soul):
        raise Illegal("#equiping", f"{c.name(soul)} is not a soul; items equip to souls")
    return soul


def _day(c: Ctx, player: str, what: str) -> None:
    if c.s.phase != "day":
        raise Illegal("#equiping", f"items are {what} during the day, as part of the movement phase")
    start_action(c, player)


def equip(c: Ctx, a: Equip) -> None:
    _day(c, a.player, "equipped")
    item = _item(c, a.card)
    c.own(a.player, item.id, "hand")
    soul = _soul(c, a.player, a.target)
    p = c.s.players[a.player]
    if p.played_this_roll >= MAX_PLAYED:
        raise Illegal("#game_setup", f"{a.player} already played {MAX_PLAYED} cards this diel roll")
    c.s.players[a.player] = p.set(played_this_roll=p.played_this_roll + 1)
    c.put(item.set(zone="play", at=soul.at, equipped_to=soul.id, played_turn=c.s.turn))
    c.notice(f"{c.name(item)} is equipped to {c.name(soul)}: apply its printed effect (#equiping)")


def unequip(c: Ctx, a: Unequip) -> None:
    _day(c, a.player, "unequipped")
    item = _item(c, a.card)
    if item.equipped_to is None or c.card(item.equipped_to).control != a.player:
        raise Illegal("#equiping", f"{c.name(item)} is not equipped to one of {a.player}'s souls")
    c.put(item.set(equipped_to=None))
    assert item.at is not None
    c.notice(f"{c.name(item)} is dropped in territory {c.territory_of(item.at)} (#equiping)")


def pass_item(c: Ctx, a: Pass) -> None:
    _day(c, a.player, "passed")
    item = _item(c, a.card)
    holder = c.card(item.equipped_to) if item.equipped_to else None
    if holder is None or holder.control != a.player:
        raise Illegal("#equiping", f"{c.name(item)} is not equipped to one of {a.player}'s souls")
    soul = _soul(c, a.player, a.target)
    if soul.id == holder.id:
        raise Illegal("#equiping", f"{c.name(item)} is already on {c.name(soul)}")
    if soul.at != holder.at:
        raise Illegal("#equiping", f"{c.name(soul)} is on {soul.at}, not on {holder.at} with {c.name(holder)}: "
                                   "equipped items pass between souls on the same stand")
    c.put(item.set(equipped_to=soul.id))


def pickup(c: Ctx, a: Pickup) -> None:
    _day(c, a.player, "picked up")
    item = _item(c, a.card)
    if item.zone != "play" or item.equipped_to is not None or item.at is None:
        raise Illegal("#equiping", f"{c.name(item)} is not a dropped item")
    soul = _soul(c, a.player, a.target)
    assert soul.at is not None
    if c.territory_of(item.at) != c.territory_of(soul.at):
        raise Illegal("#equiping", f"{c.name(item)} lies in territory {c.territory_of(item.at)}, not where "
                                   f"{c.name(soul)} stands")
    if c.enemies_at(soul.at, a.player):
        raise Illegal("#equiping", f"{soul.at} is contested: dropped items are picked up from an uncontested stand")
    c.put(item.set(at=soul.at, equipped_to=soul.id, controller=a.player if item.owner != a.player else None))
    c.notice(f"{c.name(soul)} picks up {c.name(item)} (#equiping)")


def dig(c: Ctx, a: Dig) -> None:
    """A tunnel between the soul's stand and `a.stand` (another territory, within the movement it has left
    today); digging uses the rest of its movement. The tunnel stays for every underground dweller."""
    if c.s.phase != "day":
        raise Illegal("#habitat_effects", "tunnels are dug during the day")
    start_action(c, a.player)
    soul = _soul(c, a.player, a.card)
    if c.info(soul).habitat != "Underground":
        raise Illegal("#habitat_effects", f"{c.name(soul)} is not an underground dweller: only they dig tunnels")
    assert soul.at is not None
    if a.stand not in c.board.stands or c.territory_of(a.stand) == c.territory_of(soul.at):
        raise Illegal("#habitat_effects", f"a tunnel connects territories: {a.stand} is not a stand in another "
                                          "territory")
    left = (c.movement_range(soul) or 0) - soul.moved
    if left <= 0 or a.stand not in reach(c, soul, soul.at, left, ignore_enemies=True):
        raise Illegal("#habitat_effects", f"{a.stand} is beyond what {c.name(soul)} can travel today ({left} left)")
    pair = (soul.at, a.stand)
    if pair in c.s.tunnels or pair[::-1] in c.s.tunnels:
        raise Illegal("#habitat_effects", f"a tunnel {soul.at}-{a.stand} is already dug")
    c.s.tunnels = (*c.s.tunnels, pair)
    c.put(soul.set(moved=soul.moved + left))
    c.notice(f"{c.name(soul)} digs a tunnel {soul.at}-{a.stand} for underground dwellers (#habitat_effects)")


def roam(c: Ctx, a: Roam) -> None:
    """#rouge: "Each day, before either player's turn, you must roll for the rouge species' movement. Assign the
    paths connected to its current movement/territory stand, numbers 1-6. Roll a D6, then move the species
    along the appropriate path. Repeat until it has moved its entire Movement Range. Movement is the
    responsibility of the of the person whom originally played the rouge." One line per `roam`."""
    cs = c.own(a.player, a.card, "play")
    if not cs.rogue:
        raise Illegal("#rouge", f"{c.name(cs)} is not rogue; {a.player} moves it with 'move'")
    if c.s.phase != "day" or c.s.acted or c.s.passed is not None or c.s.pending or c.s.bout:
        raise Illegal("#rouge", "rogue souls roam at the start of the day, before either player's turn")
    assert cs.at is not None
    if a.stand not in c.board.neighbours(cs.at):
        raise Illegal("#rouge", f"{a.stand} is not at the end of a path from {cs.at}")
    rng = c.movement_range(cs) or 0
    if cs.moved >= rng:
        raise Illegal("#rouge", f"{c.name(cs)} has moved its whole movement range ({rng}) today")
    here = c.territory_of(cs.at)
    c.relocate(cs, a.stand, moved=cs.moved + 1, arrived_turn=c.s.turn)
    there = c.territory_of(a.stand)
    if there != here and c.foes_unrevealed(a.player, there):
        c.push(Pending("trap-roll", a.player, there, (cs.id,), a.stand))
    others = [x for x in c.souls_in(there) if x.id != cs.id]
    if there != here and others:
        c.notice(f"rogue {c.name(cs)} enters occupied territory {there}: it must attack every soul there, of both "
                 "players, until it loses once (#rouge)")


def imprison(c: Ctx, a: Imprison) -> None:
    """#prison: "under the effect of certain cards, souls can be taken prisoner. In this state the souls
    resides in the basecamp/capital in the territory where the prison is located ... Territories can support a
    max of 3 prisoners." The player whose card imprisons names the soul and one of their base camps/capitals."""
    cs = c.card(a.card)
    if cs.zone != "play" or not c.is_soul(cs) or cs.owner == a.player:
        raise Illegal("#prison", f"{a.card} is not an enemy soul in play")
    if not c.controls(a.player, a.territory):
        raise Illegal("#prison", f"prisoners are held in a base camp or capital: {a.player} does not hold "
                                 f"territory {a.territory}")
    stand = c.territory_stand(a.territory)
    if sum(1 for x in c.s.cards.values() if x.zone == "prison" and x.at == stand) >= 3:
        raise Illegal("#prison", f"territory {a.territory} already holds 3 prisoners")
    for item in [x for x in c.s.play.values() if x.equipped_to == cs.id]:
        c.put(item.set(equipped_to=None))
    c.put(cs.set(zone="prison", at=stand, moved=0, swimming=False))
    c.forget(cs.id)
    c.notice(f"{c.name(cs)} is taken prisoner in territory {a.territory} by a card effect (#prison)")


def release(c: Ctx, a: Release) -> None:
    """The printed release conditions are met: the prisoner returns to play on its prison's stand (#prison)."""
    cs = c.own(a.player, a.card, "prison")
    c.put(cs.set(zone="play", arrived_turn=c.s.turn))
    c.notice(f"{c.name(cs)} is released from prison (#prison)")


def resolve(c: Ctx, a: Resolve) -> None:
    cs = c.own(a.player, a.card, "effect")
    if c.info(cs).type != "Sabotage":
        raise Illegal("#sabotage", f"{c.name(cs)} is not a sabotage card")
    if c.s.phase not in ("day", "night", "storm"):
        raise Illegal("#sabotage", f"not now: the game is in its {c.s.phase} phase")
    c.put(cs.set(zone="discard", at=None))
    part = "successful sabotage result" if a.outcome == "success" else "failure consequence"
    c.notice(f"{c.name(cs)}: apply its printed {part}; the card is discarded (#sabotage)")


def territory_roll(c: Ctx, a: Roll) -> None:
    if not a.value.isdigit() or not 1 <= int(a.value) <= 20:
        raise Illegal("#random_territory", f"roll a D20 (or a D12) for a random territory: 1 to 20, not {a.value!r}")
    n = int(a.value)
    numbered = {t.number: t.id for t in c.board.territories.values() if t.number is not None}
    if n in numbered:
        c.notice(f"D20 {n}: territory {numbered[n]} is selected (#random_territory)")
    else:
        c.notice(f"D20 {n} is above the highest territory number {max(numbered)}: roll again (#random_territory)")
