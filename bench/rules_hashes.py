"""Fingerprints of the bench's random games, so a speed change can show it changed no game.

A speed pass of the rules engine must leave every game identical. This plays the bench's seeded random games
(`bench_rules.deck`, the progress player) and hashes, per game: every legal-action list in order, every
verdict (accepted, rule, message), the state text every seventh step, then twenty undos with the state text
and the legal list after each. Three workloads: seed 7 and seed 11 with two seats (Domination), seed 11 with
three (Mass conflict). Run it on two trees and compare the printed lines:

    python bench/rules_hashes.py            # 20 + 20 + 6 games, ~10 s on a quiet machine
    python bench/rules_hashes.py 5          # 5 games per workload
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_rules import SEATS, deck
from rules.kipukas.context import Ctx
from rules.kipukas.game import Game
from rules.kipukas.selfplay import choose

MAX_STEPS = 3000
UNDOS = 20


def fingerprint(seed: int, seats: int, games: int) -> str:
    """The hash of `games` random games dealt from `seed` with `seats` seats (see the module's text)."""
    h = hashlib.sha256()
    rng = random.Random(seed)
    for _ in range(games):
        decks = {seat: deck(rng, k + 1) for k, seat in enumerate(SEATS[:seats])}
        g = Game.new(decks, style="domination" if seats == 2 else "mass-conflict", cycles=40)
        steps = 0
        while not g.result and steps < MAX_STEPS:
            actions = g.legal_actions()
            h.update("|".join(a.to_text() for a in actions).encode())
            verdict = g.apply(choose(Ctx(g.state, g.board, g.catalog, g.style), actions, rng))
            h.update(repr((verdict.accepted, verdict.rule, verdict.message)).encode())
            steps += 1
            if steps % 7 == 0:
                h.update(g.to_text().encode())
        for _ in range(min(UNDOS, steps)):
            h.update(g.undo().to_text().encode())
            h.update(g.to_text().encode())
            h.update("|".join(a.to_text() for a in g.legal_actions()).encode())
    return h.hexdigest()[:16]


def main() -> int:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for seed, seats, n in ((7, 2, games), (11, 2, games), (11, 3, max(1, games * 3 // 10))):
        print(f"seed {seed} seats {seats} games {n}: {fingerprint(seed, seats, n)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
