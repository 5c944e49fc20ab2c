"""`TileGame`: the tile-map deck builder (seed 004) behind the game interface, 2 or more seats as the
map allows.

Notation: the acting seat, a verb, its words; tiles like chess squares (``c4``), paths joined by ``-``:

    red draw MILITIA          red play MILITIA c1        red move c1-c2-d3       red attack d3 d4
    red unmark d3             red cast BOLT d5           red push SHOVE d5 d4    red convert SPARK MILITIA
    blue pass                 red end                    red buy KNIGHT
    judge resource red 2      (a correction for what the engine does not read)

Everything declared goes on the action stack; `pass` is the answer "no response" of each seat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations_with_replacement

from rules.core.engine import Illegal, SnapshotEngine
from rules.core.errors import RulesError
from rules.core.interface import JUDGE, BoardReading, Config, GameResult, Prompt, View
from rules.core.notation import Act, Grammar
from rules.tilemap import camera, stack, turns
from rules.tilemap.board import Tile, TileMap, adjacent, name, packaged, path_cost
from rules.tilemap.cards import card
from rules.tilemap.cards import packaged as all_cards
from rules.tilemap.effects import in_reach
from rules.tilemap.state import MARK_NAMES, Permanent, Player, TileState

GRAMMAR = Grammar({
    "draw": (("card", "word"),), "play": (("card", "word"), ("tile", "word")), "move": (("path", "word"),),
    "attack": (("from", "word"), ("target", "word")), "unmark": (("tile", "word"),),
    "cast": (("spell", "word"), ("target", "word")),
    "push": (("spell", "word"), ("target", "word"), ("origin", "word")),
    "convert": (("card", "word"), ("card", "word")), "pass": (), "end": (), "buy": (("card", "word"),),
    "resource": (("seat", "word"), ("amount", "int")),
}, judge_verbs=("resource",))
DECLARED = ("play", "move", "attack", "unmark", "cast", "push", "convert")


class TileSetupError(RulesError, ValueError):
    """A configuration the map refuses; names the key."""


class TileGame(SnapshotEngine[TileState, Act]):
    name = "tilemap"

    def __init__(self, state: TileState, board: TileMap) -> None:
        super().__init__(state, state.seats)
        self.board = board

    def parse(self, line: str) -> Act:
        return GRAMMAR.parse(line, self.seats)

    def fmt(self, action: Act) -> str:
        return action.to_text()

    def step(self, state: TileState, action: Act) -> str:
        s, m, a = state, self.board, action
        s.notices = ()
        if a.seat != JUDGE and s.players[a.seat].out:
            raise Illegal("#win_conditions", f"{a.seat} is out of the game")
        if a.verb == "draw":
            turns.draw(s, a)
        elif a.verb in DECLARED:
            stack.declare(s, m, a)
        elif a.verb == "pass":
            stack.pass_priority(s, m, a)
        elif a.verb == "end":
            turns.end(s, m, a)
        elif a.verb == "buy":
            turns.buy(s, m, a)
        else:
            if a.args[0] not in s.players:
                raise Illegal("#resource", f"{a.args[0]} is not a seat of this game")
            s.players[a.args[0]].resource = max(0, s.players[a.args[0]].resource + a.int(1))
        turns.check_win(s, m)
        if s.result is None and s.players[s.active].out and not s.stack:
            turns.next_turn(s, m)  # the active seat lost its VIP during its own turn
        return "; ".join((a.to_text(), *s.notices))

    def read_board(self, seen: Mapping[str, str | None]) -> BoardReading:
        """What the overhead camera's unit tokens on tiles mean now (`rules.tilemap.camera`)."""
        return camera.read_board(self.state, self.legal_actions() if not self.state.stack else [], seen)

    def hidden_words(self, action: Act) -> tuple[int, ...]:
        """A card drawn goes to its owner's hidden hand (#deck); everything else is played on the table."""
        return (0,) if action.verb == "draw" else ()

    # --- what may be tried now ------------------------------------------------------------------------
    def known_legal(self, state: TileState, action: Act) -> bool:
        """Every kind is listed (`_of`, `_fast`) only when the checks `apply` makes hold (seat, phase, stack,
        hand, resource, free and available tiles, reach, paralysis), so no trial is needed; the property
        tests apply every listed line, so a listing that drifts from `apply` fails them."""
        return True

    def candidates(self, state: TileState, seat: str | None) -> list[Act]:
        out: list[Act] = []
        for who in (state.seats if seat is None else (seat,)):
            if who in state.players and not state.players[who].out:
                out += self._of(state, who)
        return out

    def _of(self, s: TileState, seat: str) -> list[Act]:
        p = s.players[seat]
        out: list[Act] = []
        if s.phase == "upkeep":
            return [Act(seat, "draw", (c,)) for c in sorted(p.deck)] if seat == s.active else []
        if s.stack and seat in s.priority:
            out.append(Act(seat, "pass"))
        out += self._fast(s, seat, p)
        if seat != s.active or s.stack:
            return out
        if s.phase == "buying":
            return out + [Act(seat, "buy", (c,)) for c in sorted(p.store) if card(c).buy is not None
                          and card(c).buy <= p.resource] + [Act(seat, "end")]  # type: ignore[operator]
        out.append(Act(seat, "end"))
        for code in sorted(p.hand):
            info = card(code)
            if info.permanent and info.play is not None and info.play <= p.resource:
                out += [Act(seat, "play", (code, name(t))) for t in self.board.spawn.get(seat, ())
                        if s.at(t) is None and self.board.allows(t, info.swimming)]
        for perm in sorted(s.permanents.values(), key=lambda x: x.id):
            if perm.controller != seat or perm.tapped:
                continue
            here = name(perm.tile)
            if perm.mark("paralysis"):
                if perm.moves or perm.attacks:
                    out.append(Act(seat, "unmark", (here,)))
                continue
            if perm.moves:
                out += [Act(seat, "move", ("-".join(map(name, path)),)) for path in self._paths(s, perm)]
            if perm.attacks:
                out += [Act(seat, "attack", (here, name(o.tile))) for o in s.permanents.values()
                        if o.id != perm.id and not card(o.code).shroud and in_reach(self.board, perm, o.tile)]
        return out

    def _fast(self, s: TileState, seat: str, p: Player) -> list[Act]:
        out: list[Act] = []
        targets = [o for o in s.permanents.values() if not card(o.code).shroud]
        for code in sorted(p.hand):
            info = card(code)
            if info.type != "spell" or info.play is None or info.play > p.resource:
                continue
            for o in targets:
                if info.units_only and card(o.code).type != "unit":
                    continue
                if info.effect == "push":
                    out += [Act(seat, "push", (code, name(o.tile), name(t))) for t in self._around(o.tile)]
                else:
                    out.append(Act(seat, "cast", (code, name(o.tile))))
        if p.hand.total() >= 2:
            out += [Act(seat, "convert", (x, y)) for x, y in combinations_with_replacement(sorted(p.hand), 2)
                    if x != y or p.hand[x] >= 2]
        return out

    def _around(self, t: Tile) -> list[Tile]:
        return [(t[0] + dx, t[1] + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                if (dx, dy) != (0, 0) and self.board.on_map((t[0] + dx, t[1] + dy))]

    def _paths(self, s: TileState, perm: Permanent) -> list[list[Tile]]:
        """One cheapest path to every tile the unit can reach (steps over free tiles it may stand on)."""
        info = card(perm.code)
        best: dict[Tile, list[Tile]] = {perm.tile: [perm.tile]}
        frontier = [[perm.tile]]
        while frontier:
            nxt: list[list[Tile]] = []
            for path in frontier:
                for t in self._around(path[-1]):
                    if s.at(t) is not None or not self.board.allows(t, info.swimming) or not adjacent(path[-1], t):
                        continue
                    cand = [*path, t]
                    if path_cost(cand) <= info.movement and (t not in best or path_cost(cand) < path_cost(best[t])):
                        best[t] = cand
                        nxt.append(cand)
            frontier = nxt
        return [p for t, p in sorted(best.items()) if t != perm.tile]

    # --- what the rules demand, and who sees what ------------------------------------------------------
    def prompts_of(self, state: TileState) -> list[Prompt]:
        s = state
        if s.phase == "over":
            return []
        out: list[Prompt] = []
        if s.phase == "upkeep":
            out.append(Prompt(s.active, "#deck", f"draw up to {s.owed} cards"))
        if s.stack:
            top = s.stack[-1].act.to_text()
            out += [Prompt(x, "#action_stack", f"respond to '{top}' with a fast action, or pass") for x in s.priority]
        elif s.phase in ("action", "buying"):
            out.append(Prompt(s.active, "#action_phase" if s.phase == "action" else "#buying_phase",
                              "act or end the action phase" if s.phase == "action" else "buy one card or end"))
        out += [Prompt(None, "#state_marks", text, blocking=False) for text in s.notices]
        return out

    def view_of(self, state: TileState, viewer: str) -> View:
        """Hands and deck contents are hidden (a hand to its owner and judges; deck contents to judges); the
        discard piles are public (#discard_pile), the map and the stack are on the table."""
        s = state
        players: dict[str, object] = {}
        for seat, p in s.players.items():
            sees = viewer in (seat, JUDGE)
            players[seat] = {"resource": p.resource, "out": p.out, "bought": p.bought,
                             "hand": sorted(p.hand.elements()) if sees else p.hand.total(),
                             "deck": sorted(p.deck.elements()) if viewer == JUDGE else p.deck.total(),
                             "discard": sorted(p.discard.elements()), "store": dict(sorted(p.store.items()))}
        board = [{"tile": name(x.tile), "card": x.code, "controller": x.controller, "damage": x.damage,
                  "marks": {k: v for k, v in zip(MARK_NAMES, x.marks, strict=True) if v}, "tapped": x.tapped}
                 for x in sorted(s.permanents.values(), key=lambda x: x.tile)]
        r = self.result_of(s)
        grid = {"width": self.board.width, "height": self.board.height,
                "tiles": {name(t): kind for t, kind in sorted(self.board.types.items())}}
        return {"game": self.name, "map": s.map_name, "grid": grid, "turn": s.turn, "active": s.active,
                "phase": s.phase,
                "stack": [d.act.to_text() for d in s.stack], "priority": list(s.priority), "players": players,
                "board": board, "result": r.to_text() if r else None}

    def result_of(self, state: TileState) -> GameResult | None:
        return GameResult(*state.result) if state.result else None

    def text_of(self, state: TileState) -> str:
        s = state
        lines = [f"map {s.map_name} turn {s.turn} active {s.active} phase {s.phase}"
                 + (f" owed {s.owed}" if s.phase == "upkeep" else "")]
        for seat in s.seats:
            p = s.players[seat]
            hand = ",".join(sorted(p.hand.elements())) or "-"
            lines.append(f"{seat} resource {p.resource} deck {p.deck.total()} hand {hand}"
                         f" discard {','.join(sorted(p.discard.elements())) or '-'}" + (" out" if p.out else ""))
        for x in sorted(s.permanents.values(), key=lambda x: (x.tile[1], x.tile[0])):
            marks = " ".join(f"{k}:{v}" for k, v in zip(MARK_NAMES, x.marks, strict=True) if v)
            lines.append(f"{name(x.tile)} {x.code} {x.controller} damage {x.damage}"
                         + (f" {marks}" if marks else "") + (" tapped" if x.tapped else "")
                         + ("" if x.tapped or (x.moves and x.attacks) else f" moves {x.moves} attacks {x.attacks}"))
        for d in s.stack:
            lines.append(f"stack {d.speed} {d.act.to_text()}")
        if s.stack:
            lines.append(f"priority {','.join(s.priority) or '-'}")
        if s.result:
            lines.append(f"result {GameResult(*s.result).to_text()}")
        return "\n".join(lines)


def new(config: Config) -> TileGame:
    """A game on the packaged map ``map`` (default ``skirmish``) for ``seats`` (a number, or the seat list;
    default 2) with optional ``stores`` (seat -> card codes; default every buyable card twice)."""
    map_name = config.get("map", "skirmish")
    if not isinstance(map_name, str):
        raise TileSetupError("tilemap: config key 'map' must be a packaged map name")
    board = packaged(map_name)
    seats_cfg = config.get("seats", 2)
    if isinstance(seats_cfg, (int, str)) and str(seats_cfg).isdigit():
        seats = tuple(board.spawn)[: int(seats_cfg)]
        if len(seats) != int(seats_cfg):
            raise TileSetupError(f"tilemap: map {board.name!r} seats at most {len(board.spawn)}, asked {seats_cfg}")
    elif isinstance(seats_cfg, Sequence) and not isinstance(seats_cfg, str):
        seats = tuple(str(x) for x in seats_cfg)
    else:
        raise TileSetupError("tilemap: config key 'seats' must be a number or a list of seats")
    if len(seats) < 2 or any(x not in board.spawn for x in seats):
        raise TileSetupError(f"tilemap: seats {', '.join(seats)}: map {board.name!r} has spawn tiles for "
                             f"{', '.join(board.spawn)} and needs 2 or more")
    stores_cfg = config.get("stores", {})
    if not isinstance(stores_cfg, Mapping):
        raise TileSetupError("tilemap: config key 'stores' must map seats to lists of card codes")
    default = Counter({c: 2 for c, info in all_cards().items() if info.buy is not None})
    players = {}
    for seat in seats:
        store = Counter(str(c) for c in stores_cfg[seat]) if seat in stores_cfg else default.copy()
        for code in store:
            if card(code).buy is None:
                raise TileSetupError(f"tilemap: stores.{seat}: {code} has no buy cost and cannot be in a store")
        players[seat] = Player(Counter(board.start_deck), Counter(), Counter(), store)
    state = TileState(board.name, seats, players, {}, seats[0])
    for seat in seats:
        if seat in board.bosses:
            code, tile = board.bosses[seat]
            state.put(Permanent(f"{code}-{seat}", code, seat, seat, tile))
    turns.upkeep(state, board)
    return TileGame(state, board)
