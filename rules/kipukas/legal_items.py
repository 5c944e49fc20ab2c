"""Legal actions for the verbs of `rules.card_actions` and the start of the day (#equiping, #items,
#habitat_effects tunnels, healers, #rouge roaming, #taming attempts), and the free actions printed card
text or a dispute calls for (discard, steal, imprison, release, resolve, roll territory, #BS).

Two views of each verb, kept side by side so they cannot drift apart unnoticed:
- `*_candidates`: a generous superset for `rules.legal.candidates` (the reference definition: the game
  trial-applies each one);
- `day_extras` / `free_actions`: exactly the ones the handlers accept, generated directly, in the same order
  (`tests/test_legal_direct.py` compares the two over thousands of positions).
"""

from __future__ import annotations

from collections.abc import Mapping, Set

from rules.kipukas.card_table import CardTable
from rules.kipukas.context import Ctx
from rules.kipukas.day import MAX_PLAYED, reach
from rules.kipukas.made import MADE_LIMIT, make
from rules.kipukas.notation import (
    JUDGE,
    Action,
    Award,
    Dig,
    Discard,
    Equip,
    Heal,
    Imprison,
    Pass,
    Pickup,
    Release,
    Resolve,
    Roam,
    Roll,
    Steal,
    Tame,
    Unequip,
)
from rules.kipukas.setup_phase import HAND_SIZE
from rules.kipukas.state import CardState
from rules.kipukas.style_ends import huntable

MAX_PRISONERS = 3
FREE_PHASES = ("day", "night", "storm")  # discard and resolve (rules.night, rules.card_actions)


def _items_in_play(c: Ctx) -> list[CardState]:
    cards = c.catalog.cards
    return [x for x in c.s.play.values() if cards[x.code].type == "Item"]


def _rogues(c: Ctx) -> list[CardState]:
    souls = c.catalog.soul_codes
    return [x for x in c.s.play.values() if x.rogue and x.at is not None and x.code in souls]


_NONE: Mapping[str, CardState] = {}
_NO_COUNTS: Mapping[str, int] = {}


class Scan:
    """What the cards in play tell day generation for player `p` (`scan`). A plain slotted class: a dataclass
    with five default factories cost a fifth of the pass it records. `occupied`, `enemy_at` and `blocking` are
    live views of the card table's counts: read them before the next card write."""

    __slots__ = ("blocking", "diggers", "enemy_at", "healers", "items", "mine", "occupied", "own", "rogues", "stands")

    def __init__(self) -> None:
        self.own: list[CardState] = []           # p's souls in play, in table order
        self.mine: list[CardState] = []          # those of them p controls (the others went rogue or were taken)
        self.occupied: Mapping[str, int] = _NO_COUNTS  # territory -> p's souls counting to the limit
        self.stands: Mapping[str, int] = _NO_COUNTS    # stand -> p's souls there
        self.enemy_at: Set[str] = frozenset()    # stands with an enemy soul
        self.blocking: Set[str] = frozenset()    # movement stands a revealed enemy holds
        self.items: list[CardState] = []         # item cards in play (equipped or dropped)
        self.rogues: list[CardState] = []        # rogue souls on the map
        self.diggers = False                     # p has an underground dweller in play
        self.healers = False                     # a card with the healer flag is in play


def scan(c: Ctx, p: str) -> Scan:
    """What day generation needs of the cards in play (a position has 10-25), for `rules.legal_direct._day` and
    `day_extras`: read from the counts the card table keeps on every write (`rules.kipukas.play_counts`)."""
    found = Scan()
    table: CardTable = c.s.cards  # type: ignore[assignment]  # a CardTable (GameState.__post_init__)
    board = c.board
    counts = table.play_counts(c.catalog.kinds, board.stand_territory, board.movement_stands)
    own = found.own = list(counts.own.get(p, _NONE).values())
    found.mine = [x for x in own if x.controller is None or x.controller == p] if counts.taken.get(p) else own
    found.occupied = counts.occupied.get(p, _NO_COUNTS)
    found.stands = counts.stands.get(p, _NO_COUNTS)
    foes = c.foes(p)
    if len(foes) == 1:
        found.enemy_at = counts.stands.get(foes[0], _NO_COUNTS).keys()
        found.blocking = counts.visible.get(foes[0], _NO_COUNTS).keys()
    else:
        found.enemy_at = {st for q in foes for st in counts.stands.get(q, _NO_COUNTS)}
        found.blocking = {st for q in foes for st in counts.visible.get(q, _NO_COUNTS)}
    if counts.items:
        found.items = list(counts.items.values())
    if counts.roaming:
        found.rogues = list(counts.roaming.values())  # rogue souls of every seat, in table order
    found.diggers = counts.underground.get(p, 0) > 0
    found.healers = counts.healers > 0 or bool(c.s.overrides)  # a judge may have made any card a healer
    return found


def _start_of_day(c: Ctx) -> bool:
    """Roaming and taming come before either player acts (#rouge, #taming)."""
    s = c.s
    return s.phase == "day" and not s.acted and s.passed is None and not s.pending and s.bout is None


# --- the reference candidates ---------------------------------------------------------------------------------
def day_candidates(c: Ctx, p: str) -> list[Action]:
    """Superset of the day verbs for player `p` on their day turn (trial application filters them)."""
    s = c.s
    out: list[Action] = []
    souls = c.souls_in_play(p)
    items = _items_in_play(c)
    hand_items = [x for x in s.in_zone("hand", p) if c.info(x).type == "Item"]
    out += [make(Equip, p, i.id, x.id) for i in hand_items for x in souls]
    out += [Unequip(p, i.id) for i in items if i.equipped_to]
    out += [Pass(p, i.id, x.id) for i in items if i.equipped_to for x in souls]
    out += [Pickup(p, i.id, x.id) for i in items if not i.equipped_to for x in souls]
    for x in souls:
        if x.at and c.info(x).habitat == "Underground":
            out += [Dig(p, x.id, st) for st in reach(c, x, x.at, c.info(x).movement or 0, ignore_enemies=True)]
    out += [Heal(p, x.id, i + 1) for x in s.play.values() if x.control == p for i, n in enumerate(x.injuries) if n]
    for r in _rogues(c):
        assert r.at is not None
        out += [Roam(r.control, r.id, st) for st in c.board.sorted_adj[r.at]]
    out += [Tame(p, r.id, o) for r in _rogues(c) for o in ("tamed", "rogue")]
    return out


def free_candidates(c: Ctx) -> list[Action]:
    """Superset of the free actions for both players (no BS: the game decides those itself)."""
    s = c.s
    out: list[Action] = []
    for p in s.players:
        out += [Discard(p, x.id) for x in sorted(s.cards.values(), key=lambda x: x.id) if x.control == p]
        out += [Steal(p, x.id) for q in c.foes(p) for x in s.in_zone("hand", q) + s.in_zone("deck", q)]
        out += [Imprison(p, x.id, t) for x in c.enemy_souls(p) for t in c.holdable()]
        out += [Release(p, x.id) for x in s.in_zone("prison", p)]
        out += [Resolve(p, x.id, o) for x in s.in_zone("effect", p) for o in ("success", "failure")]
        out += [Roll(p, "territory", str(n)) for n in range(1, 21)]
    out += [Award(JUDGE, p) for p in s.players]
    return out


# --- direct generation ----------------------------------------------------------------------------------------
def day_extras(c: Ctx, p: str, contention: bool, hand: list[CardState], seen: Scan | None = None) -> list[Action]:
    """`day_candidates` that the handlers accept, for the active player `p` with nothing pending (during
    carried-over contention only the start-of-day roaming and taming are open). `hand` is p's hand and
    `seen` the pass over the cards in play (`scan`), when the caller has them."""
    s = c.s
    turn_ok = not contention and s.passed != p
    found = seen if seen is not None else scan(c, p)
    items, rogues, diggers, healers = found.items, found.rogues, found.diggers, found.healers
    info = c.catalog.cards
    hand_items = [x for x in hand if info[x.code].type == "Item"] if turn_ok else []
    out: list[Action] = []
    if not (items or rogues or diggers or healers or hand_items):
        return out
    start = _start_of_day(c)
    souls = found.mine
    if turn_ok:
        if hand_items and s.players[p].played_this_roll < MAX_PLAYED:
            out += [make(Equip, p, i.id, x.id) for i in hand_items for x in souls]
        if items:
            out += _item_verbs(s.cards, p, items, souls, found, c.board.stand_territory)
        if diggers:
            out += _digs(c, p, souls)
        if healers:
            out += _healer_heals(c, p)
    if start:
        for r in rogues:
            assert r.at is not None
            if r.control in s.players:
                left = (c.movement_range(r) or 0) - r.moved
                if left > 0:
                    out += [make(Roam, r.control, r.id, st) for st in c.board.sorted_adj[r.at]]
    if rogues and s.phase == "day" and s.active == p and p not in s.acted and s.passed is None and not s.pending \
            and s.bout is None:
        where = c.board.stand_territory
        done = s.players[p].night_done
        for r in rogues:
            assert r.at is not None
            t = where[r.at]
            if done and f"tame:{r.id}" in done:
                continue
            # a soul p owns and controls in r's territory, not itself rogue (`found.mine`: p's own souls in
            # play under p's control; `souls_in(t, p)` without sorting what only `any` reads)
            if any(not x.rogue and x.id != r.id and x.at is not None and where[x.at] == t for x in souls):
                out += [make(Tame, p, r.id, "tamed"), make(Tame, p, r.id, "rogue")]
    return out


_ITEM_ROWS: dict[tuple[str, str], tuple[Unequip, dict[str, Pass], dict[str, Pickup]]] = {}


def _item_row(p: str, item: str) -> tuple[Unequip, dict[str, Pass], dict[str, Pickup]]:
    """The unequip of `item` by `p`, and its passes and pick-ups by target soul as they are first asked for: one
    row per (player, item), so a position looks each action up by the soul's id alone."""
    if len(_ITEM_ROWS) >= MADE_LIMIT:
        _ITEM_ROWS.clear()
    row = _ITEM_ROWS[(p, item)] = (make(Unequip, p, item), {}, {})
    return row


def _item_verbs(cards: Mapping[str, CardState], p: str, items: list[CardState], souls: list[CardState],
                found: Scan, where: Mapping[str, str]) -> list[Action]:
    """`card_actions.unequip`, `pass_item` and `pickup` for `p` on their turn: the unequips of p's items carried
    by souls p controls, then the passes of those items to p's other souls on the holder's stand, then the
    pick-ups of dropped items by p's souls in the item's territory that stand where no enemy does (`souls`:
    the souls p controls, in table order; `found`: `scan`'s reading for p). One pass over the items; the souls
    are grouped by stand only when p's soul counts say a holder has company, by territory only for a dropped
    item."""
    unequips: list[Action] = []
    passes: list[Action] = []
    pickups: list[Action] = []
    by_stand: dict[str | None, list[CardState]] | None = None
    by_territory: dict[str, list[CardState]] | None = None
    rows = _ITEM_ROWS
    for i in items:
        holder_id = i.equipped_to
        if holder_id:
            h = cards.get(holder_id)
            if h is None or (h.controller or h.owner) != p:
                continue
            row = rows.get((p, i.id)) or _item_row(p, i.id)
            unequips.append(row[0])
            if h.at is not None and found.stands.get(h.at, 0) <= (h.owner == p):
                continue  # no other soul of p's on the holder's stand (`souls` are p's own souls p controls)
            if by_stand is None:
                by_stand = {}
                for x in souls:
                    group = by_stand.get(x.at)
                    if group is None:
                        by_stand[x.at] = [x]
                    else:
                        group.append(x)
            mates = by_stand.get(h.at)
            if mates is not None and (len(mates) > 1 or mates[0].id != holder_id):
                passes_of = row[1]
                for x in mates:
                    if x.id != holder_id:
                        passes.append(passes_of.get(x.id) or passes_of.setdefault(x.id, make(Pass, p, i.id, x.id)))
        elif i.at is not None:
            if by_territory is None:
                by_territory = {}
                for x in souls:
                    if x.at and x.at not in found.enemy_at:
                        t = where[x.at]
                        group = by_territory.get(t)
                        if group is None:
                            by_territory[t] = [x]
                        else:
                            group.append(x)
            takers = by_territory.get(where[i.at])
            if takers is not None:
                pickups_of = (rows.get((p, i.id)) or _item_row(p, i.id))[2]
                for x in takers:
                    pickups.append(pickups_of.get(x.id) or pickups_of.setdefault(x.id, make(Pickup, p, i.id, x.id)))
    return unequips + passes + pickups if passes or pickups else unequips


def _digs(c: Ctx, p: str, souls: list[CardState]) -> list[Action]:
    out: list[Action] = []
    where = c.board.stand_territory
    for x in souls:
        if not x.at or c.info(x).habitat != "Underground":
            continue
        left = (c.movement_range(x) or 0) - x.moved
        seen = reach(c, x, x.at, c.info(x).movement or 0, ignore_enemies=True)
        if left <= 0:
            continue
        near = reach(c, x, x.at, left, ignore_enemies=True)
        for st in seen:
            if st in near and where[st] != where[x.at] and (x.at, st) not in c.s.tunnels \
                    and (st, x.at) not in c.s.tunnels:
                out.append(make(Dig, p, x.id, st))
    return out


def _healer_heals(c: Ctx, p: str) -> list[Action]:
    """`night._healer`: a healer of p's in the same territory, ready again after its healing cycles."""
    s = c.s
    healers = [h for h in s.play.values() if h.control == p and h.at is not None and c.effects(h).heals
               and (h.healed_turn == 0 or s.turn - h.healed_turn >= c.effects(h).heal_cycles)]
    if not healers:
        return []
    out: list[Action] = []
    where = c.board.stand_territory
    for x in s.play.values():
        if x.control != p or not any(x.injuries) or x.at is None:
            continue
        if not any(where[h.at] == where[x.at] and not (h.id == x.id and c.downed(h))  # type: ignore[index]
                   for h in healers):
            continue
        owed = any(q.kind == "heal" and q.player == p and q.cards == (x.id,) for q in s.pending)
        if not owed:
            out += [make(Heal, p, x.id, i + 1) for i, n in enumerate(x.injuries) if n]
    return out


def free_actions(c: Ctx) -> list[Action]:
    """`free_candidates` that the handlers accept."""
    s = c.s
    if s.phase == "over":
        return []
    out: list[Action] = []
    cards = sorted(s.cards.values(), key=lambda x: x.id)
    for p in s.players:
        if s.phase in FREE_PHASES:
            out += [Discard(p, x.id) for x in cards if x.control == p and x.zone in ("play", "effect", "hand")
                    and not huntable(c, x)]
        if s.phase in ("day", "night") and s.count("hand", p) + 1 <= HAND_SIZE:
            out += [Steal(p, x.id) for q in c.foes(p) for x in s.in_zone("hand", q) + s.in_zone("deck", q)
                    if x.owner == q]
        theirs = c.enemy_souls(p)
        if theirs:
            held = [t for t in c.holdable() if c.controls(p, t)]
            jailed: dict[str, int] = {}
            for x in s.cards.values():
                if x.zone == "prison" and x.at is not None:
                    jailed[x.at] = jailed.get(x.at, 0) + 1
            home = c.board.home_stand
            open_cells = [t for t in held if jailed.get(home[t], 0) < MAX_PRISONERS]
            out += [Imprison(p, x.id, t) for x in theirs for t in open_cells]
        out += [Release(p, x.id) for x in s.in_zone("prison", p)]
        if s.phase in FREE_PHASES:
            out += [Resolve(p, x.id, o) for x in s.in_zone("effect", p) if c.info(x).type == "Sabotage"
                    for o in ("success", "failure")]
        out += [Roll(p, "territory", str(n)) for n in range(1, 21)]
    marked, kind = c.style.marked, c.style.score
    if marked is not None and kind in ("explorer", "springer"):
        out += [Award(JUDGE, p) for p in s.players
                if (c.controls(p, marked) if kind == "explorer" else c.souls_in(marked, p))]
    return out
