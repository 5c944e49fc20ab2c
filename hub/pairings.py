"""Pairings and results as CSV, the interchange format of existing tournament software, and standings.

Columns: `round,table,red,blue,result` (`result`: `red`, `blue`, `draw` or empty while playing).
"""

from __future__ import annotations

import csv
import io

from hub.settings import TABLE_ID

COLUMNS = ("round", "table", "red", "blue", "result")
RESULTS = ("", "red", "blue", "draw")


class PairingError(ValueError):
    """A CSV line that cannot be a pairing; the message names the line and the column."""


def parse_csv(text: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or [f.strip() for f in reader.fieldnames[:4]] != list(COLUMNS[:4]):
        raise PairingError(f"line 1: expected the header {','.join(COLUMNS)}")
    out = []
    for n, raw in enumerate(reader, start=2):
        row = {k: (raw.get(k) or "").strip() for k in COLUMNS}
        if not row["round"].isdigit() or not 1 <= int(row["round"]) <= 99:
            raise PairingError(f"line {n}: round: {row['round']!r} is not a round number 1..99")
        if not TABLE_ID.match(row["table"]):
            raise PairingError(f"line {n}: table: {row['table']!r} is not a table id")
        if not row["red"] or not row["blue"] or len(row["red"]) > 80 or len(row["blue"]) > 80:
            raise PairingError(f"line {n}: red/blue: each pairing names two players (at most 80 characters)")
        if row["result"] not in RESULTS:
            raise PairingError(f"line {n}: result: {row['result']!r} is not one of red, blue, draw or empty")
        out.append(row)
    return out


def to_csv(pairings: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(pairings)
    return buf.getvalue()


def standings(pairings: list[dict[str, str]], upto_round: int | None = None) -> list[dict[str, object]]:
    """Points per player (win 1, draw 0.5) over the rounds with results, best first."""
    points: dict[str, float] = {}
    played: dict[str, int] = {}
    for p in pairings:
        if upto_round is not None and int(p["round"]) > upto_round:
            continue
        for seat in ("red", "blue"):
            points.setdefault(p[seat], 0.0)
            played.setdefault(p[seat], 0)
        if not p["result"]:
            continue
        for seat in ("red", "blue"):
            played[p[seat]] += 1
            points[p[seat]] += 1.0 if p["result"] == seat else 0.5 if p["result"] == "draw" else 0.0
    return [{"player": name, "points": points[name], "played": played[name]}
            for name in sorted(points, key=lambda n: (-points[n], n))]
