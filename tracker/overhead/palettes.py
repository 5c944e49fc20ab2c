"""The players' token colours of a table: learned at set-up on the calibration page (each player puts
one token on a named stand) and kept in the state folder; before that, nominal colours for the seat
names are used and judges are told the colours are not learned yet."""

from __future__ import annotations

import json
from pathlib import Path

from tracker.errors import InputError

Palette = dict[str, tuple[int, int, int]]
NOMINAL: Palette = {"red": (40, 40, 210), "blue": (200, 90, 30), "green": (60, 160, 40), "yellow": (40, 200, 230),
                    "orange": (30, 130, 240), "purple": (150, 50, 130), "black": (30, 30, 30),
                    "white": (235, 235, 235)}
FILE = "palette.json"


def nominal(players: tuple[str, ...]) -> Palette:
    unknown = [p for p in players if p not in NOMINAL]
    if unknown:
        raise InputError(f"no nominal colour for seat {unknown[0]!r}: learn it on the calibration page")
    return {p: NOMINAL[p] for p in players}


def load(state_dir: Path, players: tuple[str, ...]) -> Palette | None:
    """The learned palette, or None when none was learned (or the file does not name every seat)."""
    path = state_dir / FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        palette = {str(k): (int(v[0]), int(v[1]), int(v[2])) for k, v in data.items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError) as exc:
        raise InputError(f"{path}: not a palette ({exc}); delete it and learn the colours again") from exc
    return palette if all(p in palette for p in players) else None


def save(state_dir: Path, palette: Palette) -> None:
    path = state_dir / FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({k: list(v) for k, v in palette.items()}, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
