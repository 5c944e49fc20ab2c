"""Legal actions generated directly for the positions random and real play spend most time in: a day or
night turn with nothing pending, and the dice of a bout.

Each generator yields exactly the candidates of `rules.legal` that the handlers accept, in the same order,
with the handlers' conditions evaluated once per card (not once per candidate) — like a chess move
generator. `direct(c)` returns None for any other position; the game then filters candidates
(`rules.legal_checks`, trial application of the rest). `tests/test_legal_direct.py` compares against trial application.
"""

from __future__ import annotations

from collections.abc import Mapping, Set

from rules.kipukas.captive import captive_reveals, held_captive
from rules.kipukas.context import Ctx
from rules.kipukas.day import DAY_CARD_TYPES, HIDDEN_CARD_TYPES, MAX_PLAYED, MAX_SOULS, reach
from rules.kipukas.legal import DIEL_FACES, _faces, _windows
from rules.kipukas.legal import _pending as legal_pending
from rules.kipukas.legal import candidates as legal_candidates
from rules.kipukas.legal_items import day_extras, scan
from rules.kipukas.legal_rare import night_plays, retreats
from rules.kipukas.made import MADE_LIMIT as _MADE_LIMIT
from rules.kipukas.made import make
from rules.kipukas.movement import downed_range
from rules.kipukas.notation import (
    Action,
    Attack,
    Bottom,
    Camp,
    Capital,
    DefaultEffect,
    Draw,
    End,
    Hold,
    Initiative,
    Means,
    Move,
    Personal,
    Play,
    Reveal,
    Roll,
    Stop,
    Swim,
)
from rules.kipukas.setup_phase import HAND_SIZE
from rules.kipukas.state import CardState, CardTable, Pending

_PLAYS: dict[tuple[str, str], dict[str, tuple[Play, Play]]] = {}  # (player, card) -> territory -> both faces


def direct(c: Ctx) -> list[Action] | None:
    """The legal actions now, or None where this module has no generator (set-up placements, rare
    prompts, the bottom pile's order); the game then filters candidates."""
    s = c.s
    if s.bout is not None:
        return _bout(c)
    if s.pending:
        return _pending(c)
    phase = s.phase
    if phase == "day":  # the common case first
        p = s.active
        if not p:
            return None
        if s.contention_due:
            due = sorted(t for q, t in s.contention_due if q == p)
            if due:
                return _contention(c, p, due[0])
        return _day(c, p)
    if phase == "draw":
        return _setup_draw(c)
    if s.phase == "affinity":
        return legal_candidates(c)  # every undeclared player may declare any adaptation
    if s.phase == "rolloff":
        return [make(Roll, p, "d6", v) for p, ps in s.players.items() if ps.rolloff is None for v in _D6]
    if s.phase == "effects":
        return _effects(c)
    if s.phase == "diel":  # `turns.roll_diel`: nothing pending (above), any face; the holder of initiative rolls
        holder = s.initiative or "red"
        rolls = _DIEL_ROLLS.get(holder)
        if rolls is None:  # a static table per holder: the faces never change
            rolls = _DIEL_ROLLS[holder] = tuple(make(Roll, holder, "diel", v) for v in DIEL_FACES)
        return list(rolls)
    if not s.active:
        return None
    p = s.active
    if s.phase == "night" and not s.contention_due:
        return _night(c, p)
    if s.phase == "capitals":
        return _capitals(c, p)
    if s.phase == "camps":
        held = sum(1 for owner, _ in s.claims.values() if owner == p)
        return [make(Camp, p, t) for t in c.board.holdable if t not in s.claims] if held < 1 + c.style.camps else []
    return None


_D6 = tuple(str(v) for v in range(1, 7))
_DIEL_ROLLS: dict[str, tuple[Roll, ...]] = {}


def _capitals(c: Ctx, p: str) -> list[Action]:
    """`setup_phase.capital`: any unclaimed territory, adjacent to the first capital where the style says so."""
    s = c.s
    placed = [t for t, (_, kind) in s.claims.items() if kind == "capital"]
    near = c.style.adjacent_capitals and placed
    return [make(Capital, p, t) for t in c.board.holdable
            if t not in s.claims and not (near and not c.board.adjacent_territories(placed[0], t))]


def _effects(c: Ctx) -> list[Action]:
    """`setup_phase.personal` / `default_effect` for each player who has not chosen: none, a personal effect
    set aside, or one of the top three deck cards as the default effect."""
    s = c.s
    out: list[Action] = []
    for p, ps in s.players.items():
        if ps.effect_chosen:
            continue
        out.append(make(Personal, p, "none"))
        out += [make(Personal, p, x.id) for x in s.in_zone("aside", p) if c.info(x).type == "PersonalEffect"]
        out += [make(DefaultEffect, p, x.id) for x in s.in_zone("deck", p)[:3]]
    return out


def _contention(c: Ctx, p: str, t: str) -> list[Action]:
    """A carried-over fight the player must deal with first: attack, retreat (`rules.legal_rare`) or hold (#day)."""
    if c.s.passed == p:
        return []
    able = [x for x in c.souls_in(t, p) if c.can_attack(x) is None]
    theirs = c.enemies_in(t, p)
    out: list[Action] = [make(Attack, p, a.id, d.id) for a in able if a.control == p for d in theirs]
    out += retreats(c, p, t)
    if not able:
        out.append(make(Hold, p, t))
    return out + day_extras(c, p, True, [])


def _pending(c: Ctx) -> list[Action] | None:
    """Prompts whose every candidate the handler accepts (the trap D20, a taming answer, retreat dice,
    storm and volcanic damage, plains healing), and the attacks of a waiting fight."""
    pend = c.s.pending[0]
    if c.s.phase == "peace":
        return None
    if pend.kind in ("trap-roll", "tame", "escape", "damage", "heal"):
        return legal_pending(c)
    if pend.kind == "combat" and c.s.phase == "day":
        return _combat(c, pend)
    return None


def _combat(c: Ctx, pend: Pending) -> list[Action]:
    """`combat.attack` / `combat.stop` with a fight waiting for `pend.player`; retreats by `rules.legal_rare`."""
    p = pend.player
    out: list[Action] = []
    theirs = c.enemies_in(pend.territory, p)
    for a in c.souls_in(pend.territory, p):
        if a.control != p or c.can_attack(a) is not None:
            continue
        if pend.note == "must-attack" and a.id not in pend.cards and a.at != pend.stand:
            continue
        out += [make(Attack, p, a.id, d.id) for d in theirs]
    if pend.note != "must-attack":
        out.append(make(Stop, p))
    if pend.note == "respond":
        out += retreats(c, p, pend.territory)
    return out


def _setup_draw(c: Ctx) -> list[Action] | None:
    """The opening hands: a player with an empty hand and no bottom pile draws any window of 3."""
    out: list[Action] = []
    for p in c.s.players:
        if c.s.bottom.get(p):
            return None
        if c.s.in_zone("hand", p):
            continue
        ids = [x.id for x in c.s.in_zone("deck", p)]
        out += [make(Draw, p, w) for w in _windows(ids, min(HAND_SIZE, len(ids)))]
    return out


def _night(c: Ctx, p: str) -> list[Action] | None:
    """`rules.legal._night`'s candidates that `night.night_action` and the handlers accept."""
    s = c.s
    if s.passed == p:
        return []
    done = s.players[p].night_done
    cards_table: CardTable = s.cards  # type: ignore[assignment]  # a CardTable (GameState.__post_init__)
    hand = cards_table.sorted_view("hand", p)  # read only
    out: list[Action] = []
    if "initiative" not in done and s.passed is None:
        out.append(_turn_verb(Initiative, p))
    if s.passed is not None and s.passed != p:
        out.append(_turn_verb(End, p))
    if "bottom" not in done and hand:
        out.append(_turn_verb(Bottom, p))
    deck = cards_table.sorted_view("deck", p)  # read only
    bottom = s.bottom.get(p, ())
    unknown = [x.id for x in deck if x.id not in bottom]
    if not unknown and bottom:
        return None  # only the bottom pile is left: its order is checked by trial
    n = min(HAND_SIZE - len(hand), len(unknown))
    want = min(HAND_SIZE - len(hand), len(deck))
    if "draw" not in done and want > 0 and n == want:
        out += [make(Draw, p, w) for w in _windows(unknown, n)]
    if any(c.info(x).type in ("Item", "Sabotage") for x in hand):
        out += night_plays(c, p)
    return out


_TURN_VERBS: dict[tuple[type[Action], str], Action] = {}  # (kind, player) -> the action, for the one-word verbs


def _turn_verb(kind: type[Initiative | End | Bottom], player: str) -> Action:
    """``make(kind, player)`` for the verbs that name only their player (initiative, end, bottom), from a table
    of a few entries: each day and night position offers one or two."""
    found = _TURN_VERBS.get((kind, player))
    if found is None:
        found = _TURN_VERBS[(kind, player)] = make(kind, player)
    return found


def _day(c: Ctx, p: str) -> list[Action]:
    s = c.s
    if s.passed == p:  # require_turn refuses every day action
        return []
    out: list[Action] = [_turn_verb(Initiative, p) if s.passed is None else _turn_verb(End, p)]
    found = scan(c, p)  # one pass over the cards in play
    own, occupied, enemy_at, enemies = found.own, found.occupied, found.enemy_at, frozenset(found.blocking)
    cards_info = c.catalog.cards

    cards_table: CardTable = s.cards  # type: ignore[assignment]  # a CardTable (GameState.__post_init__)
    hand = cards_table.sorted_view("hand", p)  # read only, here and in `day_extras`
    effect = cards_table.sorted_view("effect", p)
    cards = hand + [x for x in effect if cards_info[x.code].type != "PersonalEffect"] if effect else hand
    room = s.players[p].played_this_roll < MAX_PLAYED
    if room and cards:  # p's territories, in map order (most day positions have no card to play)
        claims = s.claims
        mine = [t for t in c.board.holdable if (claim := claims.get(t)) is not None and claim[0] == p]
    for card in cards if room else ():
        if not _playable(c, p, card, HIDDEN_CARD_TYPES):
            continue
        info = cards_info[card.code]
        limited = info.is_soul and info.habitat != "DigitalCloud"
        hides = c.effects(card).hidden_placement
        faces = info.type in DAY_CARD_TYPES
        row = _PLAYS.get((p, card.id))  # territory -> both faces, for this player and card
        if row is None:
            if len(_PLAYS) >= _MADE_LIMIT:
                _PLAYS.clear()
            row = _PLAYS[(p, card.id)] = {}
        for t in mine:
            if limited and occupied.get(t, 0) >= MAX_SOULS:
                continue
            if faces:
                pair = row.get(t)
                if pair is None:
                    pair = row[t] = (Play(p, card.id, t, "revealed"), Play(p, card.id, t, "unrevealed"))
                out += pair
            if hides:
                out.append(Play(p, card.id, t, "hidden"))
    shore = c.board.shore
    for cs in own:
        control = cs.controller or cs.owner  # `CardState.control`, without the property call
        if not cs.revealed and control == p:
            out.append(make(Reveal, p, cs.id))
        if cs.at is None:
            continue
        info = cards_info[cs.code]
        if cs.revealed and cs.moved < (info.movement or 0):  # `_moves`'s first refusal, without the call
            out += _moves(c, p, cs, occupied, enemy_at, enemies)
        if not cs.swim_tried and cs.at in shore and control == p \
                and info.habitat not in ("Water", "Heavens"):
            swim_pair = _SWIMS.get((p, cs.id))  # a card id names its card code, so its dice never change
            if swim_pair is None:
                nomad = info.habitat == "Nomad"
                low, high = ((p, cs.id, (2,)), (p, cs.id, (5,))) if nomad else ((p, cs.id, (2, 2)),
                                                                                (p, cs.id, (3, 5)))
                if len(_SWIMS) >= _MADE_LIMIT:
                    _SWIMS.clear()
                swim_pair = _SWIMS[(p, cs.id)] = (make(Swim, *low), make(Swim, *high))
            out += swim_pair
    if c.style.captives:
        out = _captive_filter(c, p, out) + captive_reveals(c, p)
    return out + day_extras(c, p, False, hand, found)


def _captive_filter(c: Ctx, p: str, out: list[Action]) -> list[Action]:
    """Captive (`rules.captive`): a captive is played unrevealed, and before any other card of the hand."""
    waiting = held_captive(c, p)
    captives = c.style.captives
    keep: list[Action] = []
    for a in out:
        if isinstance(a, Play):
            if waiting is not None and a.card != waiting.id:
                continue
            if a.card in captives and a.face != "unrevealed":
                continue
        elif isinstance(a, Reveal) and a.card in captives:
            continue  # only its giver reveals a captive (`captive_reveals`)
        keep.append(a)
    return keep


def _moves(c: Ctx, p: str, cs: CardState, occupied: Mapping[str, int], enemy_at: Set[str],
           enemies: frozenset[str]) -> list[Action]:
    """`day.move`'s conditions for a revealed soul, once per soul; then per goal the 3-soul limit and the
    enemy that must be attacked there. `occupied` counts p's souls per territory, `enemy_at` is every
    stand with an enemy soul, `enemies` the movement stands revealed enemies block."""
    s = c.s
    at = cs.at
    assert at is not None
    info = c.catalog.cards[cs.code]  # a card of the game: its code is in the catalog (Game.new)
    # The cheap refusals first: most souls have used their movement (a downed range is never above the
    # printed one), so the wound and effect lookups of `movement_range` run only for souls that may move.
    if cs.moved >= (info.movement or 0) or (cs.controller or cs.owner) != p or cs.rogue \
            or (cs.played_turn == s.turn and not cs.played_revealed):
        return []
    # `Ctx.movement_range`, `needs_escort` and `can_attack` (a soul of p's in play, not rogue) with the
    # wounds and the printed effects looked up once
    if c.downed(cs):
        fx = c.effects(cs)
        slowed = not fx.moves_downed
        if slowed and info.movement == 1:
            return []  # needs an escort (#moving_downed_souls)
        left = ((downed_range(info.movement or 0) or 0) if slowed else (info.movement or 0)) - cs.moved
        able = fx.attacks_downed and not cs.exhausted
    else:
        left = (info.movement or 0) - cs.moved
        able = not cs.exhausted
    if left <= 0:
        return []
    where = c.board.stand_territory
    here = where[at]
    limited = info.habitat != "DigitalCloud"
    blocked = () if able else enemy_at
    out: list[Action] = []
    row = _MOVES.get((cs.id, at))  # goal -> the move, for this card from this stand
    if row is None:
        if len(_MOVES) >= _MADE_LIMIT:
            _MOVES.clear()
        row = _MOVES[(cs.id, at)] = {}
    for goal in reach(c, cs, at, left, enemies=enemies):
        if goal == at or goal in blocked:
            continue
        target = where[goal]
        if target != here and limited and occupied.get(target, 0) >= MAX_SOULS:
            continue
        move = row.get(goal)
        if move is None or move.player != p:
            move = row[goal] = Move(p, cs.id, (at, goal))
        out.append(move)
    return out


_MOVES: dict[tuple[str, str], dict[str, Move]] = {}  # (card, stand) -> goal -> the move, built once
_SWIMS: dict[tuple[str, str], tuple[Swim, Swim]] = {}  # (player, card) -> its two swim attempts


def _playable(c: Ctx, p: str, cs: CardState, types: tuple[str, ...] = DAY_CARD_TYPES) -> bool:
    """`day.playable` + the card-type check of `day.play` (`types`), for a card of `p`'s hand or effect zone."""
    if cs.owner == p and cs.zone == "effect":
        due = c.s.players[p].effect_due
        if due is None or c.s.turn < due:
            return False
    elif (cs.controller or cs.owner) != p or cs.zone != "hand":
        return False
    return c.info(cs).type in types


def _bout(c: Ctx) -> list[Action]:
    b = c.s.bout
    assert b is not None
    att, dfn = c.card(b.attacker), c.card(b.defender)
    out: list[Action] = []
    if not b.final and (b.attack_means is None or b.defence_means is None):
        if b.attack_means is None:
            out += [make(Means, att.owner, att.id, i) for i in c.available_means(att)]
        if b.defence_means is None:
            out += [make(Means, dfn.owner, dfn.id, i) for i in c.available_means(dfn)]
        return out
    for cs, what, done in ((att, "attack", b.attack_roll), (dfn, "defence", b.defence_roll)):
        if done is not None:
            continue
        key = (cs.owner, what, cs.code)
        rolls = _ROLL_ACTIONS.get(key)
        if rolls is None:  # a static table per (player, side, card code): the rolls never change
            rolls = _ROLL_ACTIONS[key] = tuple(Roll(cs.owner, what, value) for value in _roll_values(c, cs.code))
        out += rolls
    return out


_ROLLS: dict[str, tuple[str, ...]] = {}
_ROLL_ACTIONS: dict[tuple[str, str, str], tuple[Roll, ...]] = {}


def _roll_values(c: Ctx, code: str) -> tuple[str, ...]:
    """The sampled roll values `rules.legal._bout` offers for a card: a static per-card table. Every one is
    a valid total for the card's die field (faces within each die), so `combat.total` accepts it."""
    values = _ROLLS.get(code)
    if values is None:
        die = c.info(code).die
        if die is not None and die.covered:
            values = tuple(_faces(die.dice)) if die.dice else (f"={die.base}",)
        else:
            values = tuple(f"={n}" for n in range(1, 13, 2))
        _ROLLS[code] = values
    return values
