"""The `kipukas-tracker` command: one subcommand per module in `tracker.commands`.

Exit status (ARCHITECTURE, command-line contract): 0 success, 2 bad usage or bad input with a one-line
reason on stderr, 1 internal failure.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from tracker.commands import (
    adapt_reader,
    calibrate,
    charuco_board,
    deck,
    demo,
    fists,
    game,
    hub,
    log,
    register,
    run,
    scan,
)
from tracker.errors import UsageError

COMMANDS: tuple[ModuleType, ...] = (demo, run, game, scan, register, calibrate, charuco_board, fists, deck, log,
                                     hub, adapt_reader)


def installed_version() -> str:
    """The package's version as installed (pyproject.toml), or "unknown" when run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kipukas-tracker")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kipukas-tracker", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"kipukas-tracker {installed_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from tracker.runtime.allocator import keep_freed_memory
    from tracker.runtime.native_logs import quiet_native_logs

    quiet_native_logs()
    keep_freed_memory()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except UsageError as exc:
        print(f"kipukas-tracker {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
