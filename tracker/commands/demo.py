"""`kipukas-tracker demo`: the whole pipeline on the built-in synthetic table."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tracker.errors import UsageError

if TYPE_CHECKING:
    from tracker.runtime.demo import DemoTable
    from tracker.runtime.game_runtime import DemoGame


def register(sub: Any) -> None:
    from rules.core.registry import names

    others = ", ".join(n for n in names() if n != "kipukas")
    p: argparse.ArgumentParser = sub.add_parser("demo", help="run the built-in demo table with its web UI")
    p.add_argument("--port", type=int, default=5000, help="HTTP port (default 5000)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--fps", type=float, default=4.0, help="frames per second of the synthetic camera")
    p.add_argument("--judge-pin", default="", help="PIN of the judge page (default: none, judge only on this machine)")
    p.add_argument("--spectator-delay", type=float, default=0.0, metavar="MIN",
                   help="show spectators the table as it was MIN minutes ago (default 0)")
    p.add_argument("--game", default="kipukas",
                   help="the game: kipukas (default: the synthetic camera table), or another game of the registry "
                        f"({others}) served to phones with no cameras")
    p.add_argument("--autoplay", type=float, default=2.0, metavar="S",
                   help="other games: seconds between random legal actions the demo plays itself (0: phones only)")
    p.add_argument("--seed", type=int, default=1, help="other games: the seed of the demo's random play")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tracker.runtime.demo import DemoTable

    if not 0 <= args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port")
    if not 0 <= args.spectator_delay <= 120:
        raise UsageError(f"--spectator-delay {args.spectator_delay:g} is outside 0..120 minutes")
    if args.game != "kipukas":
        return run_game(args)
    demo = DemoTable(fps=args.fps if args.fps > 0 else None, script="both")  # the game, then the dice round
    return _serve(demo, args, "")


def run_game(args: argparse.Namespace) -> int:
    """`demo --game NAME`: a fresh game of the registry served to phones, no cameras."""
    from rules.core.registry import UnknownGame
    from tracker.runtime.game_runtime import DemoGame

    if args.autoplay < 0:
        raise UsageError(f"--autoplay {args.autoplay:g}: give 0 (phones only) or a number of seconds")
    try:
        demo = DemoGame(args.game, autoplay_s=args.autoplay, seed=args.seed)
    except UnknownGame as exc:
        raise UsageError(f"--game: {exc}") from exc
    try:
        return _serve(demo, args, f"{args.game} on ", f"; record {demo.table.record.path}")
    finally:
        demo.table.record.close()


def _serve(demo: DemoTable | DemoGame, args: argparse.Namespace, game: str, tail: str = "") -> int:
    """Serve ``demo``'s table on the web until interrupted, with the judge PIN and spectator delay asked for."""
    from tracker.runtime.native_logs import join_all
    from tracker.runtime.server import WebServer
    from tracker.service.seats import Seats

    demo.service.seats = Seats(demo.service.seats.players, judge_pin=args.judge_pin)
    demo.service.spectator_delay_min = args.spectator_delay
    try:
        server = WebServer(demo.service, args.host, args.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from exc
    worker = demo.start()
    print(f"kipukas-tracker demo: {game}http://{args.host}:{server.port}/ (judge page, with the seats' join codes: "
          f"http://{args.host}:{server.port}/judge){tail}", flush=True)
    try:
        server.serve_forever()
    finally:
        demo.stop.set()
        server.shutdown()
        join_all([worker])  # never exit while the table's thread is inside a decode
    return 0
