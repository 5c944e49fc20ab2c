"""A phone's tap on a table of the other games, to every viewer's new state, timed in one process.

For Colossal Kaiju Combat (2 and 4 seats) and the tile-map game (skirmish 2 seats, arena 4 seats) a
random legal game is played through `tracker.service.game_service.GameService.act` (the rules, a signed
row written with `synchronous=FULL`), and after each action every viewer's state is projected (each
seat, the spectator and the judge: `view`, the seat's buttons from `legal_actions`, the log window). The
baseline, measured in the same run on the same lines, is the bare `apply` of the game engine. Prints per
game the mean cost per action of: apply (baseline), act (rules + record), projections (all viewers), and
their ratios to the baseline. This shared machine's absolute times swing 3x: compare the ratios.

    python bench/bench_game_service.py [--actions N] [--seed N]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.core.registry import new_game
from rules.core.selfplay import choose
from rules.kaiju.decks import preconstructed
from tracker.record.keys import load_or_create_key
from tracker.record.store import GameRecord
from tracker.service.game_service import GameService
from tracker.service.seats import JUDGE, SPECTATOR, player
from tracker.table.games import GameTable

WEIGHTS = {"keep": 3.0, "pass": 0.3, "end": 0.3, "attack": 4.0, "card": 3.0, "play": 3.0}
GAMES: list[tuple[str, str, dict[str, Any]]] = [
    ("kaiju, 2 seats", "kaiju", preconstructed(2)),
    ("kaiju, 4 seats", "kaiju", preconstructed(4)),
    ("tilemap, skirmish, 2 seats", "tilemap", {"map": "skirmish", "seats": 2}),
    ("tilemap, arena, 4 seats", "tilemap", {"map": "arena", "seats": 4}),
]


def run(label: str, name: str, config: dict[str, Any], actions: int, seed: int, folder: Path) -> dict[str, float]:
    record = GameRecord(str(folder / f"{label.replace(' ', '').replace(',', '-')}-{seed}.sqlite"),
                        load_or_create_key(folder))
    table = GameTable.start(record, name, config)
    service = GameService(table)
    viewers = [player(s) for s in table.game.seats] + [SPECTATOR, JUDGE]
    bare = new_game(name, config)
    rng = random.Random(seed)
    apply_s = act_s = project_s = 0.0
    n = 0
    for _ in range(actions):
        lines = table.game.legal_actions()
        if not lines:
            break
        line = choose(lines, rng, WEIGHTS)
        t0 = time.perf_counter()
        assert bare.apply(line).accepted
        t1 = time.perf_counter()
        assert service.act(JUDGE, line)["accepted"]
        t2 = time.perf_counter()
        for viewer in viewers:
            service.snapshot(viewer)
        t3 = time.perf_counter()
        apply_s, act_s, project_s, n = apply_s + t1 - t0, act_s + t2 - t1, project_s + t3 - t2, n + 1
    record.close()
    return {"n": n, "apply": apply_s / n, "act": act_s / n, "project": project_s / n, "viewers": len(viewers)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=150, help="actions per game (default 150)")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-game-service-") as tmp:
        print(f"{'game':28} {'actions':>7} {'apply (baseline)':>17} {'act: rules+record':>20} "
              f"{'all viewers projected':>24}")
        for label, name, config in GAMES:
            r = run(label, name, config, args.actions, args.seed, Path(tmp))
            print(f"{label:28} {r['n']:>7.0f} {r['apply'] * 1e6:>14.0f} us {r['act'] * 1e6:>9.0f} us "
                  f"(x{r['act'] / r['apply']:.1f}) {r['project'] * 1e6:>9.0f} us (x{r['project'] / r['apply']:.1f}, "
                  f"{r['viewers']:.0f} viewers)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
