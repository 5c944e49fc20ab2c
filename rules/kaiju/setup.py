"""Setting up a game of Colossal Kaiju Combat from a configuration (seed 003, "Setup"): team rules,
deck limits, the initiative order and the energy pool. Errors name the seat and the key."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from rules.core.errors import RulesError
from rules.core.interface import Config
from rules.kaiju.cards import KaijuCatalog
from rules.kaiju.state import KaijuState, Member, Player, Refill

PLANNING_MIN, PLANNING_COPIES = 30, 3
COMBAT_MIN, COMBAT_COPIES = 20, 2
SEATS = ("red", "blue", "green", "yellow", "purple")


class KaijuSetupError(RulesError, ValueError):
    """A configuration the set-up rules refuse; names the seat, the key and the rule."""


def _list(seat: str, cfg: Mapping[str, object], key: str) -> list[str]:
    value = cfg.get(key)
    if not isinstance(value, Sequence) or isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise KaijuSetupError(f"kaiju: seats.{seat}.{key} must be a list of card codes")
    return list(value)


def deck_problems(planning: Sequence[str], combat: Sequence[str], cat: KaijuCatalog) -> list[str]:
    """What is wrong with a pair of decks under #setup's deck limits (empty when they are legal)."""
    out: list[str] = []
    if len(planning) < PLANNING_MIN:
        out.append(f"planning deck has {len(planning)} cards, at least {PLANNING_MIN} are needed")
    out += [f"planning deck holds {n} copies of {c}, at most {PLANNING_COPIES}"
            for c, n in sorted(Counter(planning).items()) if n > PLANNING_COPIES]
    if len(combat) < COMBAT_MIN:
        out.append(f"combat deck has {len(combat)} cards, at least {COMBAT_MIN} are needed")
    out += [f"combat deck holds {n} copies of {c}, at most {COMBAT_COPIES}"
            for c, n in sorted(Counter(combat).items()) if n > COMBAT_COPIES]
    icons = Counter(cat.combat_card(c).icon for c in combat)
    if icons["offense"] != icons["defense"]:
        out.append(f"combat deck has {icons['offense']} OFFENSE and {icons['defense']} DEFENSE cards, "
                   "the numbers must be equal")
    for c in planning:
        cat.planning_card(c)
    return out


def _team(seat: str, cfg: Mapping[str, object], cat: KaijuCatalog) -> tuple[str, dict[str, Member]]:
    team_code = cfg.get("team", "DEFAULT")
    if not isinstance(team_code, str):
        raise KaijuSetupError(f"kaiju: seats.{seat}.team must be a team card code")
    team = cat.team(team_code)
    chars = _list(seat, cfg, "characters")
    low, high = team.size
    if not low <= len(chars) <= high or len(set(chars)) != len(chars):
        raise KaijuSetupError(f"kaiju: seats.{seat}.characters: team card {team.code} takes {low}-{high} distinct "
                              f"characters, got {', '.join(chars) or 'none'} (#setup)")
    members = {}
    for code in chars:
        info = cat.character(code)
        if team.requires and team.requires not in info.attributes:
            raise KaijuSetupError(f"kaiju: seats.{seat}.characters: {code} lacks the attribute {team.requires!r} "
                                  f"team card {team.code} requires (#setup)")
        members[code] = Member(code, info)
    return team.code, members


def setup(config: Config, cat: KaijuCatalog) -> KaijuState:
    """The state before the first planning draw: teams placed, decks shuffled (as multisets: the order is
    the physical deck's), every player owing a draw of their team's planning draw."""
    seats_cfg = config.get("seats")
    if not isinstance(seats_cfg, Mapping) or not 2 <= len(seats_cfg) <= 5:
        raise KaijuSetupError("kaiju: config key 'seats' must map 2 to 5 seats (in seating order) to their team "
                              "and decks")
    players: dict[str, Player] = {}
    for seat, cfg in seats_cfg.items():
        if seat not in SEATS or not isinstance(cfg, Mapping):
            raise KaijuSetupError(f"kaiju: seats.{seat}: a seat is one of {', '.join(SEATS)} with a table of keys")
        team, members = _team(seat, cfg, cat)
        planning, combat = _list(seat, cfg, "planning"), _list(seat, cfg, "combat")
        problems = deck_problems(planning, combat, cat)
        if problems:
            raise KaijuSetupError(f"kaiju: seats.{seat}: {'; '.join(problems)} (#setup)")
        energy = 10 + max(m.stats.power for m in members.values())
        players[seat] = Player(team, members, Counter(planning), Counter(combat), energy=energy)
    order = _initiative(players, config, cat)
    # the book names only the planning draw; a combat hand of 5 is what "draw back up to 5" implies
    refills = {}
    for seat, p in players.items():
        refills[(seat, "planning")] = Refill("planning", cat.team(p.team).planning_draw, False)
        refills[(seat, "combat")] = Refill("combat", 5, False)
    return KaijuState(tuple(players), order, players, refills=refills)


def _initiative(players: Mapping[str, Player], config: Config, cat: KaijuCatalog) -> tuple[str, ...]:
    """Highest printed team initiative first; ties in the order `initiative_order` gives (decided at the
    table at random: "Once decided, that initiative order is in effect for the rest of the game")."""
    printed = {s: cat.team(p.team).initiative for s, p in players.items()}
    given = config.get("initiative_order", ())
    if not isinstance(given, Sequence) or isinstance(given, str):
        raise KaijuSetupError("kaiju: initiative_order must be a list of seats")
    tie_order = [str(s) for s in given]
    tied = [s for s in printed if list(printed.values()).count(printed[s]) > 1]
    missing = [s for s in tied if s not in tie_order]
    if missing:
        raise KaijuSetupError(f"kaiju: seats {', '.join(tied)} tie on printed team initiative; give "
                              "initiative_order (decided at random at the table) (#setup)")
    return tuple(sorted(players, key=lambda s: (-printed[s], tie_order.index(s) if s in tie_order else 0)))
