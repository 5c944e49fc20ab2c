"""Turn advancement (#diel_cycle, #day, #night, #storm), claims (#claiming_territories), prisoners (#prison)
and the end of the game (#win, #discarding_runout forced peace)."""

from __future__ import annotations

from typing import cast

from rules.kipukas.captive import captive_end
from rules.kipukas.context import Ctx, Illegal, other
from rules.kipukas.lifecycle import waste
from rules.kipukas.notation import End, Initiative, Peace, Roll
from rules.kipukas.scoring import fixed_end
from rules.kipukas.state import CardState, CardTable, Pending
from rules.kipukas.style_ends import special_end
from rules.kipukas.styles import Style
from rules.kipukas.territory_effects import between_turns

PREDETERMINED = {1: "day", 2: "night", 3: "day"}
MAX_PRISONERS = 3
# Empty sets shared instead of rebuilt: every action's undo record keeps the state's sets, and each new
# equal one is one more object for the garbage collector to walk for the rest of the game.
_NO_SEATS: frozenset[str] = frozenset()
_NO_DUE: frozenset[tuple[str, str]] = frozenset()


def start_turn(c: Ctx, kind: str) -> None:
    s = c.s
    if c.style.score == "hill" and _hill_held(c):
        return
    between_turns(c)
    s.turn += 1
    s.phase = kind
    s.passed = None
    s.done = _NO_SEATS
    s.acted = _NO_SEATS
    s.origin = None
    for name, p in s.players.items():
        if p.played_this_roll or p.night_done:  # an equal record needs no rebuilding
            s.players[name] = p.set(played_this_roll=0, night_done=_NO_SEATS)
    if kind == "day":
        s.fixed_means.clear()  # in place: its writes are journaled for undo (rules.kipukas.journal)
        table = cast(CardTable, s.cards)
        for cs in table.zone("play") + table.zone("prison") + table.zone("discard"):  # where day marks can be
            if cs.moved or cs.swim_tried or cs.exhausted or cs.swimming:
                in_water = cs.at is not None and c.board.territories[c.territory_of(cs.at)].geography == "water"
                c.put(cs.set(moved=0, swim_tried=False, exhausted=False, swimming=cs.swimming and in_water))
        sides: dict[str, set[str]] = {}
        where = c.board.stand_territory
        souls = c.souls_in_play()
        for cs in souls:
            if cs.at:
                sides.setdefault(where[cs.at], set()).add(cs.owner)
        s.contention_due = frozenset((p, t) for t, owners in sides.items()
                                     for p in owners if any(q in c.foes(p) for q in owners))
        for cs in souls:
            if cs.rogue:
                c.notice(f"{cs.owner}: roll a D6 per step for rogue {c.name(cs)} before the turn (#rouge)")
    else:
        s.contention_due = _NO_DUE
    for name, p in s.players.items():
        if p.effect_due is not None and s.turn >= p.effect_due and s.count("effect", name):
            c.notice(f"{name}: the default-effect card is due: play it now (#personal_effects)")
    s.active = s.initiative
    if kind == "storm":
        _storm(c)


def _hill_held(c: Ctx) -> bool:
    """King of the hill: at the end of each diel cycle, who holds the hill and since when; the holder wins
    once it has held the hill for `style.hold` cycles (#playstyleoptions)."""
    hill = c.style.hill
    if hill is None or c.s.turn < 1:
        return False
    claim = c.s.claims.get(hill)
    holder = claim[0] if claim else None
    if holder is None:
        c.s.hill = None
        return False
    if c.s.hill is None or c.s.hill[0] != holder:
        c.s.hill = (holder, c.s.turn)
    held = c.s.turn - c.s.hill[1] + 1
    if held >= c.style.hold:
        c.s.result = f"{holder} wins: held the hill, territory {hill}, for {held} diel cycles (King of the hill)"
        c.s.phase = "over"
        c.s.active = None
        return True
    return False


def _storm(c: Ctx) -> None:
    """Every soul outside a capital or base camp loses a KEAL means; downed ones are wasted (#storm)."""
    damage: list[Pending] = []
    for cs in sorted(c.souls_in_play(), key=lambda x: x.id):
        assert cs.at is not None
        stand = c.board.stand(cs.at)
        sheltered = stand.kind == "territory" and stand.territory in c.s.claims
        if sheltered:
            continue
        if c.downed(cs):
            waste(c, cs.id, "caught downed in the storm (#storm)")
        else:
            damage.append(Pending("damage", cs.owner, c.territory_of(cs.at), (cs.id,), note="#storm"))
    c.s.pending = (*c.s.pending, *damage)
    c.s.active = None
    if not c.s.pending:
        c.s.phase = "diel"


def roll_diel(c: Ctx, a: Roll) -> None:
    if c.s.phase != "diel":
        raise Illegal("#diel_cycle", "the diel die is rolled only when both players have finished the turn"
                      if c.s.phase in ("day", "night", "storm") else f"not now: the game is in its {c.s.phase} phase")
    if c.s.pending:
        raise Illegal("#diel_cycle", f"the rules first need an answer from {c.s.pending[0].player}: see the prompts")
    if a.value not in ("day", "night", "storm"):
        raise Illegal("#diel_cycle", f"the diel die shows day, night or storm, not {a.value!r}")
    start_turn(c, a.value)


def initiative(c: Ctx, a: Initiative) -> None:
    require_turn(c, a.player)
    if c.s.passed is not None:
        raise Illegal("#diel_cycle", f"{c.s.passed} already took initiative; {a.player} says 'end' to end the turn")
    c.s.initiative = a.player
    c.s.passed = a.player
    c.s.active = c.next_seat(a.player)


def end(c: Ctx, a: End) -> None:
    require_turn(c, a.player)
    if c.s.passed is None or c.s.passed == a.player:
        raise Illegal("#diel_cycle", "the turn ends once the other player has called initiative; "
                                     "to stop acting, take initiative")
    if len(c.s.players) > 2:  # more seats: the others act on until every seat has ended (docs/rules-engine.md)
        c.s.done = c.s.done | {a.player}
        if len(c.s.done) + 1 < len(c.s.players):
            c.s.active = c.next_seat(a.player)
            return
        c.s.done = _NO_SEATS
    end_turn(c)


def require_turn(c: Ctx, player: str) -> None:
    s = c.s
    if s.phase not in ("day", "night"):
        raise Illegal("#diel_cycle", f"not now: the game is in its {s.phase} phase")
    if s.pending or s.bout:
        first = s.pending[0] if s.pending else None
        who = first.player if first else "the players"
        raise Illegal("#diel_cycle", f"the rules first need an answer from {who}: see the prompts")
    if s.active != player:
        raise Illegal("#diel_cycle", f"it is {s.active}'s action, not {player}'s")
    if s.passed == player:
        raise Illegal("#diel_cycle", f"{player} took initiative and takes no more actions this turn")


def end_turn(c: Ctx) -> None:
    if c.s.phase == "day":
        _imprison_loiterers(c)
    if c.style.cycles is not None and c.s.turn >= c.style.cycles:
        c.s.phase = "diel"  # no further diel roll: `finish` scores the fixed end (rules.scoring)
        c.s.active = None
        return
    if c.s.turn in PREDETERMINED and c.s.turn + 1 in PREDETERMINED:
        start_turn(c, PREDETERMINED[c.s.turn + 1])
    else:
        c.s.phase = "diel"
        c.s.active = None


def _imprison_loiterers(c: Ctx) -> None:
    """A soul left in the opponent's capital after a day on which it could have left is taken prisoner."""
    for territory, (holder, kind) in c.s.claims.items():
        if kind != "capital":
            continue
        stand = c.territory_stand(territory)
        for cs in c.enemies_at(stand, holder):
            prisoners = [x for x in c.s.cards.values() if x.zone == "prison" and x.at == stand]
            if cs.arrived_turn < c.s.turn and len(prisoners) < MAX_PRISONERS:
                for item in [x for x in c.s.play.values() if x.equipped_to == cs.id]:
                    c.put(item.set(equipped_to=None))  # dropped where the soul was taken (#items)
                c.put(cs.set(zone="prison", moved=0, swimming=False))
                c.forget(cs.id)
                c.notice(f"{c.name(cs)} loitered in {holder}'s capital and is taken prisoner (#prison)")


def finish(c: Ctx) -> None:
    """After an action and everything it triggered: claims, the end of the game, whose action is next."""
    s = c.s
    if s.contention_due:  # contention relieved since the day began (a soul left or was wasted) is not due
        s.contention_due = frozenset(d for d in s.contention_due if c.contested(d[1]))
    if s.pending or s.bout or s.phase in ("over", "peace"):
        return
    settle_claims(c)
    if _check_end(c):
        return
    phase = s.phase
    if (phase == "day" or phase == "night") and s.origin is not None:
        mover = s.origin
        s.origin = None
        if mover not in s.acted:  # an equal set needs no rebuilding (each one is kept in an undo record)
            s.acted = s.acted | {mover}
        if s.passed is None and len(s.players) == 2:
            s.active = other(mover)
        elif s.passed is None or len(s.players) > 2:
            s.active = c.next_seat(mover)
    if phase == "storm" and not s.pending:
        s.phase = phase = "diel"
    if phase == "diel" and c.style.cycles is not None and s.turn >= c.style.cycles:
        fixed_end(c)


def settle_claims(c: Ctx) -> None:
    """Claims (#claiming_territories), liberation (#prison) and control of features and dropped items
    (#contention), looked at only in territories where a card arrived, left or changed since the last
    settlement (the card table's `touched` stands) — plus every capital once any claim has changed, since
    the capital rule depends on claims elsewhere. Territories are visited in sorted order, as one pass."""
    table: CardTable = c.s.cards  # type: ignore[assignment]  # a CardTable (GameState.__post_init__)
    claims = c.s.claims
    stale = table.settled != claims  # claims changed outside a settlement (set-up, a judge): look everywhere
    if not stale and not table.touched:
        return  # nothing arrived, left or changed since the last settlement
    board, where = c.board, c.board.stand_territory
    touched = set(board.holdable) if stale else {where[st] for st in table.touched if st in where}
    table.touched = set()
    if not touched:
        return
    changed = False  # a claim changed in this pass: capitals are looked at from then on (#maps)
    capitals: set[str] = set()
    souls, info, homes, on = c.catalog.soul_codes, c.catalog.cards, board.home_stand, table.at_stand()
    stands_of = board.territory_stands
    play_order: dict[str, int] | None = None
    holdable = board.holdable
    visit = [t for t in holdable if t in touched]  # in map order; capitals join once a claim changed (below)
    i = 0
    while i < len(visit):
        territory = visit[i]
        i += 1
        # The territory's cards, from the card table's stand index: who has souls here, the souls on its
        # territory stand, and its terrain features and unequipped items.
        present: set[str] = set()
        here: list[CardState] = []
        loose: list[CardState] = []
        home_id = homes.get(territory)
        for st in stands_of.get(territory, ()):
            cards = on.get(st)
            if not cards:
                continue
            for cs in cards.values():
                if cs.code in souls:
                    present.add(cs.owner)
                    if st == home_id:
                        here.append(cs)
                elif cs.equipped_to is None and info[cs.code].type in _LOOSE:
                    loose.append(cs)
        if here:
            # `_claim` changes nothing while only the holder's souls stand there (the common case): not called then
            held = claims.get(territory)
            mixed = held is None
            if not mixed:
                keeper = held[0]  # type: ignore[index]
                for x in here:
                    if x.owner != keeper:
                        mixed = True
                        break
            if mixed and _claim(c, territory, here, present) and not changed:
                changed = True
                capitals = {t for t, (_, kind) in claims.items() if kind == "capital"}
                # from here on, the capitals are visited too, in map order with the touched territories left
                visit[i:] = [t for t in holdable[holdable.index(territory) + 1:] if t in touched or t in capitals]
        if not loose:
            continue
        holder = claims.get(territory)
        if holder is not None and present.isdisjoint(c.foes(holder[0])):
            taker = holder[0]
            # "hidden items ... played under the mat remain hidden from the new owner" (#crafting); the others
            # not yet the holder's pass to them, in table order as notices read (usually none: they already are)
            passing = [cs for cs in loose
                       if (cs.controller or cs.owner) != taker and not (cs.hidden and not cs.revealed)]
            if len(passing) > 1:
                if play_order is None:
                    play_order = {k: i for i, k in enumerate(c.s.play)}
                order = play_order
                passing.sort(key=lambda x: order[x.id])
            for cs in passing:
                c.put(cs.set(controller=taker if cs.owner != taker else None, revealed=True))
                c.notice(f"{taker} takes control of {c.name(cs)} (#contention)")
    if changed:  # a capital may fall on the next settlement (#maps): look at capitals then
        for t, (_, kind) in claims.items():
            home = board.territory_stand(t)
            if kind == "capital" and home is not None:
                table.touched.add(home.id)
    if stale or changed:  # a claim changed in this pass only through `_claim` (which sets `changed`)
        table.settled = dict(claims)


_LOOSE = ("TerrainFeature", "Item")  # the cards a territory's holder takes control of (#contention)


def _claim(c: Ctx, territory: str, here: list[CardState], present: set[str]) -> bool:
    """A player with a soul on the territory stand and no enemy soul on it claims the territory; `present`
    (who has souls in the territory) gains the owners of liberated prisoners."""
    owners = {s.owner for s in here}
    held = c.s.claims.get(territory)
    if held is not None and len(owners) == 1 and held[0] in owners:
        return False  # only the holder's souls stand there: nothing changes (the common case)
    stand = c.territory_stand(territory)
    claimed = False
    for player in c.s.players:
        if player not in owners:
            continue
        foes = c.foes(player)
        mine = [s for s in here if s.owner == player and c.info(s).habitat != "DigitalCloud" and not s.rogue]
        if not mine or any(s.owner in foes for s in here):
            continue
        claim = c.s.claims.get(territory)
        if claim is not None and (claim[0] == player or claim[0] not in foes):
            continue  # already theirs, or an ally's (Band together: allies never take each other's territory)
        if claim is not None and claim[1] == "capital" and not c.style.claims_matter:
            continue  # Highest body count: capitals cannot be taken
        if claim is not None and claim[1] == "capital":
            missing = [t for t in c.board.holdable if t != territory and not c.controls(player, t)]
            if missing:
                continue  # #maps: a capital falls only once its taker holds every other territory
        c.s.claims[territory] = (player, "camp")
        claimed = True
        c.notice(f"{player} claims territory {territory} (#claiming_territories)")
        table: CardTable = c.s.cards  # type: ignore[assignment]  # a CardTable (GameState.__post_init__)
        jailed = [x for x in c.s.cards.values() if x.zone == "prison" and x.at == stand] if table.any_in("prison") \
            else ()  # the pass over every card only when some card is in prison
        for prisoner in jailed:
            if prisoner.owner == player:
                c.put(prisoner.set(zone="play", arrived_turn=c.s.turn))
                present.add(player)
                c.notice(f"{c.name(prisoner)} is liberated (#prison)")
    return claimed


def _over(c: Ctx, result: str) -> bool:
    c.s.result = result
    c.s.phase = "over"
    c.s.active = None
    return True


def _check_end(c: Ctx) -> bool:
    """Whether the game ended with the last action (then `c.s` says how): #win, a style's limit or special
    end (`_style_end`), or forced peace (#discarding_runout). Runs after every action: the checks no style
    of this game asks for are not looked at."""
    style = c.style
    holdable = c.board.holdable
    claims = c.s.claims
    sole = None  # the one player holding every territory, if one does (#win needs every territory claimed)
    if style.claims_matter and len(claims) >= len(holdable) and holdable:
        first = claims.get(holdable[0])
        sole = first[0] if first is not None else None
        if sole is not None:
            for t in holdable:
                claim = claims.get(t)
                if claim is None or claim[0] != sole:
                    sole = None
                    break
    if sole is not None or style.limit is not None:
        for player in c.s.players:
            if sole is not None and player == sole:
                if player == style.third:
                    return _over(c, f"{player}, the third party, dominates the kipuka: every player loses "
                                    f"({style.title})")
                return _over(c, f"{player} wins: holds every base camp and capital (#win)")
            if style.limit is not None and c.s.players[player].lost >= style.limit:
                return _over(c, f"{other(player)} wins: {player} lost {c.s.players[player].lost} souls, the limit "
                                f"of {style.limit} ({style.title})")
    if (style.marked is not None or style.captives or style.score == "body-count") and _style_end(c, style):
        return True
    table: CardTable = c.s.cards  # type: ignore[assignment]  # a CardTable (GameState.__post_init__)
    if c.s.turn and not table.any_in("deck") and not table.any_in("hand") and not c.souls_in_play():
        c.s.phase = "peace"
        c.s.active = None
        c.s.pending = tuple(Pending("peace", p) for p in c.s.players)
        return True
    return False


def _style_end(c: Ctx, style: Style) -> bool:
    """The ends of the styles with a marked territory, captives or a body count (#playstyleoptions)."""
    if style.score == "marked" and style.marked and style.marked in c.s.claims and c.s.turn:
        winner = c.s.claims[style.marked][0]
        if c.s.claims[style.marked][1] == "camp":
            return _over(c, f"{winner} wins: claimed the marked territory {style.marked} first ({style.title})")
    if style.marked is not None or style.captives:
        special = special_end(c) if style.marked is not None else captive_end(c)
        if special is not None:
            return _over(c, special)
    if style.score == "body-count" and c.s.turn:
        out = [p for p in ("red", "blue") if not c.s.in_zone("deck", p) and not c.s.in_zone("hand", p)]
        if out:
            defeated = {p: c.s.players[other(p)].lost for p in ("red", "blue")}
            if defeated["red"] == defeated["blue"]:
                return _over(c, f"tie: {defeated['red']} souls defeated each when {out[0]} ran out of cards "
                                f"({style.title})")
            best = max(defeated, key=lambda p: defeated[p])
            return _over(c, f"{best} wins: defeated {defeated[best]} souls to {defeated[other(best)]} when "
                            f"{out[0]} ran out of cards ({style.title})")
    return False


def peace(c: Ctx, a: Peace) -> None:
    if c.s.phase != "peace":
        raise Illegal("#discarding_runout", "forced peace is held only when no souls are left and no cards remain")
    mine = [p for p in c.s.pending if p.player == a.player]
    if not mine:
        raise Illegal("#discarding_runout", f"{a.player} already chose")
    c.s.pending = tuple(p for p in c.s.pending if p.player != a.player)
    c.s.players[a.player] = c.s.players[a.player].set(peace=a.choice)
    if c.s.pending:
        return
    choices = {p.peace for p in c.s.players.values()}
    if choices == {"keep"}:
        held = {p: sum(1 for o, _ in c.s.claims.values() if o == p) for p in c.s.players}
        top = max(held.values())
        best = [p for p in held if held[p] == top]
        if len(best) > 1:
            c.s.result = f"tie: forced peace kept with {top} territories each (#discarding_runout)"
        else:
            rest = ", ".join(str(held[p]) for p in held if p != best[0])
            c.s.result = f"{best[0]} wins: forced peace kept, {top} territories to {rest} (#discarding_runout)"
    else:
        c.s.result = "reserves called: a new game with the same or new decks (#discarding_runout)"
    c.s.phase = "over"
