"""Rules engine speed against python-chess, side by side in one process.

A Kipukas *step* is `Game.legal_actions()` + `Game.apply()` of one of them; a python-chess *ply* is
`list(board.legal_moves)` + `board.push()` of one of them. Both sides play random games (Kipukas with the
progress player of `rules.kipukas.selfplay`, chess uniformly) alternating in runs of 50 steps and 50 plies (as many
plies as steps), so machine load hits both alike while each keeps its caches warm. Prints the mean step
and ply, their ratio (target: step / ply <= 1), random self-play games per second, and the share of
Kipukas games that reach a result, split by how they ended.

    python bench/bench_rules.py [--games N] [--actions N] [--cycles N] [--seed N] [--seats 2|3|4] [--freeze]

--cycles is the convention limit of the `domination` style (keep the peace after N diel cycles; 0 = none);
--seats 3 or 4 plays Mass conflict (red, blue, green[, yellow]) with the same convention limit. --profile
plays the Kipukas games alone under cProfile and prints the shares of legal_actions and apply and the
functions that cost most (where the step's time goes, in CPU time; no timing figures); on the compiled engine,
which cProfile cannot see into, it prints the own time of the modules that stay interpreted instead. --freeze moves the
start-up heap out of the garbage collector's reach first (`start_up`), as a service may once it has loaded.
python-chess is a bench-only dependency: ``pip install -e .[bench]``. The rules engine runs compiled when
scripts/build_rules.py has built these sources (the first line printed says which); ``KIPUKAS_INTERPRETED=1``
runs the interpreted engine, to compare the two in the same minutes.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import chess

from rules.kipukas import game as game_module
from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from rules.kipukas.context import Ctx
from rules.kipukas.decks import COPY_LIMITS
from rules.kipukas.game import Game
from rules.kipukas.selfplay import choose


@cache
def _pool() -> tuple[str, ...]:
    """Every card code of the packaged catalog as many times as a deck may hold it, in catalog order."""
    return tuple(c.code for c in Catalog.packaged().cards.values() for _ in range(COPY_LIMITS[c.type]))


def deck(rng: random.Random, serial: int) -> list[str]:
    """A random 30-card deck: the same shuffle of the same pool as ever (so the same games), the pool built once."""
    pool = list(_pool())
    rng.shuffle(pool)
    return [f"{code}#{serial}{i:03d}" for i, code in enumerate(pool[:30])]


SEATS = ("red", "blue", "green", "yellow")


def kipukas_game(rng: random.Random, max_actions: int, cycles: int | None, seats: int = 2,
                 costs: Counter[str] | None = None) -> Iterator[float]:
    """One random game, one step at a time: yields the seconds each step spent in legal_actions + apply;
    returns how the game ended. `costs` collects the seconds outside the steps: dealing the decks and
    `Game.new` ("setup") and the random player's choices ("player")."""
    t0 = time.perf_counter()
    decks = {seat: deck(rng, i + 1) for i, seat in enumerate(SEATS[:seats])}
    g = Game.new(decks, style="domination" if seats == 2 else "mass-conflict", cycles=cycles)
    ctx = Ctx(g.state, g.board, g.catalog, g.style)  # the state is changed in place: one view serves the game
    player = 0.0
    setup = time.perf_counter() - t0
    steps = 0
    while steps < max_actions and not g.result:
        t0 = time.perf_counter()
        actions = g.legal_actions()
        t1 = time.perf_counter()
        if ctx.s is not g.state:  # only a #BS ruling replaces the state object
            ctx = Ctx(g.state, g.board, g.catalog, g.style)
        action = choose(ctx, actions, rng)  # the player, not the engine
        t2 = time.perf_counter()
        g.apply(action)
        yield (t1 - t0) + (time.perf_counter() - t2)
        player += t2 - t1
        steps += 1
    if costs is not None:
        costs["setup"] += setup
        costs["player"] += player
    return ending(g.result)


CHUNK = 50  # steps (and plies) per run: long enough to keep each engine's caches warm


def ending(result: str | None) -> str:
    if result is None:
        return "no result"
    for tag in ("#win", "convention", "#discarding_runout"):
        if tag in result:
            return {"#win": "domination", "convention": "convention", "#discarding_runout": "forced peace"}[tag]
    return "other"


def chess_plies(rng: random.Random, max_plies: int = 300) -> Iterator[float]:
    """Random chess games back to back, one ply at a time: yields the seconds of legal moves + push."""
    while True:
        board = chess.Board()
        plies = 0
        while plies < max_plies and not board.is_game_over(claim_draw=False):
            t0 = time.perf_counter()
            board.push(rng.choice(list(board.legal_moves)))
            yield time.perf_counter() - t0
            plies += 1


def profile(args: argparse.Namespace) -> int:
    """Where a step's time goes: cProfile over the Kipukas games (the random player included, reported apart)."""
    import cProfile
    import pstats

    rng = random.Random(args.seed)
    prof = cProfile.Profile(time.process_time)  # CPU time: wall time charges preemptions under load to whatever runs
    cpu = time.process_time()
    prof.enable()
    for _ in range(args.games):
        for _ in kipukas_game(rng, args.actions, args.cycles or None, args.seats):
            pass
    prof.disable()
    cpu = time.process_time() - cpu
    if not str(game_module.__file__).endswith(".py"):
        return profile_compiled(prof, cpu)
    stats = pstats.Stats(prof)
    table: dict[tuple[str, int, str], tuple[int, int, float, float, object]] = stats.stats  # type: ignore[attr-defined]
    cum = {f"{Path(k[0]).name}:{k[2]}": v[3] for k, v in table.items()}
    step = cum.get("game.py:legal_actions", 0.0) + cum.get("game.py:apply", 0.0)
    for name in ("game.py:legal_actions", "game.py:apply"):
        print(f"{name}: {cum.get(name, 0.0) / step:.0%} of legal_actions + apply")
    print("most time of their own (tottime share of legal_actions + apply):")
    top = sorted(table.items(), key=lambda kv: -kv[1][2])[:15]
    for (file, line, func), v in top:
        print(f"  {v[2] / step:5.1%}  {Path(file).name}:{line}({func})  cumulative {v[3] / step:.0%}")
    return 0


def profile_compiled(prof: object, cpu: float) -> int:
    """cProfile sees no function of the compiled engine, only the modules that stay interpreted
    (rules/kipukas/compiled.py): their own time as a share of the games' CPU time bounds what compiling them
    could save. Methods that `dataclasses` makes (`__init__`, `__eq__`, ...) are code of file ``<string>``, counted
    with the compiled code. KIPUKAS_INTERPRETED=1 gives the function profile of the interpreted engine."""
    import pstats

    table: dict[tuple[str, int, str], tuple[int, int, float, float, object]] = pstats.Stats(prof).stats  # type: ignore[arg-type, attr-defined]
    own: Counter[str] = Counter()
    for (file, _, _), v in table.items():
        own[Path(file).name if "rules" in Path(file).parts else "(compiled code, builtins, the bench)"] += v[2]
    print(f"compiled engine: own CPU time per interpreted module, as a share of the games' {cpu:.2f} s "
          "(cProfile's overhead included)")
    for name, spent in own.most_common(8):
        print(f"  {spent / cpu:6.1%}  {name}")
    return 0


def start_up() -> None:
    """Load what a service loads once (catalog, map, the bench's card pool), then move every object made so far
    into the collector's permanent generation (`gc.freeze`): full collections then skip the static heap, which
    they otherwise walk again and again while games allocate (~5% of a step's instructions, see
    docs/rules-engine.md). Changes no game and no chess ply; only how often the collector's walk costs."""
    Catalog.packaged()
    BoardMap.packaged()
    _pool()
    gc.collect()
    gc.freeze()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--actions", type=int, default=3000, help="cap on steps per Kipukas game")
    parser.add_argument("--cycles", type=int, default=40, help="domination convention limit in diel cycles")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seats", type=int, default=2, choices=(2, 3, 4), help="3-4: Mass conflict")
    parser.add_argument("--profile", action="store_true", help="cProfile the Kipukas side instead of timing it")
    parser.add_argument("--freeze", action="store_true",
                        help="gc.freeze() once the catalog, map and card pool are loaded, as a long-running service "
                             "may after start-up (both engines run in the frozen process)")
    args = parser.parse_args()
    built = "interpreted" if str(game_module.__file__).endswith(".py") else "compiled with mypyc"
    print(f"rules engine: {built} ({Path(str(game_module.__file__)).parent})")
    if args.profile:
        return profile(args)
    if args.freeze:
        start_up()
    rng_k, rng_c = random.Random(args.seed), random.Random(args.seed + 1)
    plies_of = chess_plies(rng_c)
    steps = plies = 0
    k_time = c_time = 0.0
    lengths: list[int] = []
    ends: Counter[str] = Counter()
    wall = 0.0
    costs: Counter[str] = Counter()
    for _ in range(args.games):
        game = kipukas_game(rng_k, args.actions, args.cycles or None, args.seats, costs)
        n = 0
        while True:  # alternate runs of CHUNK steps and CHUNK plies, so load hits both alike
            t0 = time.perf_counter()
            try:
                spent = next(game)
            except StopIteration as done:
                wall += time.perf_counter() - t0
                ends[done.value] += 1
                break
            wall += time.perf_counter() - t0
            k_time, n = k_time + spent, n + 1
            if n % CHUNK == 0:
                for _ in range(CHUNK):
                    c_time, plies = c_time + next(plies_of), plies + 1
        for _ in range(n % CHUNK):
            c_time, plies = c_time + next(plies_of), plies + 1
        steps += n
        lengths.append(n)
    step_us, ply_us = k_time / steps * 1e6, c_time / plies * 1e6
    reached = args.games - ends["no result"]
    print(f"kipukas: {args.games} games, {steps} steps (mean {steps / args.games:.0f}, max {max(lengths)}), "
          f"cap {args.actions} steps, convention after {args.cycles or 'no'} diel cycles, {args.seats} seats")
    print(f"kipukas step (legal_actions + apply): {step_us:.1f} us")
    print(f"python-chess ply (legal moves + push), baseline: {ply_us:.1f} us over {plies} plies")
    print(f"ratio step / ply: {step_us / ply_us:.2f} (target <= 1)")
    print(f"random self-play games per second: {args.games / wall:.1f} (incl. the random player); per game "
          f"{wall / args.games * 1e3:.1f} ms = steps {k_time / args.games * 1e3:.1f} ms + random player "
          f"{costs['player'] / args.games * 1e3:.1f} ms + decks and Game.new "
          f"{costs['setup'] / args.games * 1e3:.1f} ms")
    print(f"games reaching a result: {reached}/{args.games} = {reached / args.games:.0%} ("
          + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
