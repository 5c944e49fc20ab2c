"""The record in the forms `kipukas-tracker log export --format` writes: what a judge hands to a tournament
organiser, a spreadsheet or an archive, and a score sheet to print.

- ``jsonl``: one row per line with its hashes (the default; `log verify`'s rows, ready for `jq`);
- ``json``: one document: the table key's fingerprint, the signed head and every row;
- ``csv``: one row per line for a spreadsheet: what happened in words, the verdict, and the row's body
  and hashes, so nothing is lost;
- ``sqlite``: a consistent copy of the signed record itself (`log verify` checks it like the original);
- ``sheet``: a printable HTML score sheet (players, result, claims, every action with its row), standalone:
  its print stylesheet is inline, so it opens from a USB stick.

Every writer takes an open read-only `GameRecord` and writes bytes to a binary stream.
"""

from __future__ import annotations

import csv
import html
import io
import json
import sqlite3
import time
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from tracker.record.store import GameRecord, Row

FORMATS = ("jsonl", "json", "csv", "sqlite", "sheet")
SUFFIXES = {"jsonl": ".jsonl", "json": ".json", "csv": ".csv", "sqlite": ".sqlite", "sheet": ".html"}
CSV_COLUMNS = ("seq", "ts", "time_utc", "kind", "source", "text", "accepted", "rule", "message", "body", "prev",
               "hash")


def write(fmt: str, record: GameRecord, out: BinaryIO) -> int:
    """Write the record in format `fmt` to `out`; returns the rows written."""
    writer = {"jsonl": _jsonl, "json": _json, "csv": _csv, "sqlite": _sqlite, "sheet": _sheet}[fmt]
    return writer(record, out)


def _jsonl(record: GameRecord, out: BinaryIO) -> int:
    n = 0
    for row in record.rows():
        out.write((json.dumps(row.to_json(), sort_keys=True) + "\n").encode("utf-8"))
        n += 1
    return n


def _json(record: GameRecord, out: BinaryIO) -> int:
    rows = [row.to_json() for row in record.rows()]
    doc = {"format": "kipukas-record-export/1", "key_fingerprint": record.fingerprint,
           "signed_head": record.signed_head(), "rows": rows}
    out.write((json.dumps(doc, sort_keys=True, indent=1) + "\n").encode("utf-8"))
    return len(rows)


def describe(row: Row) -> str:
    """What a row says, in words (the timeline's text)."""
    b = row.body
    if row.kind == "action":
        return str(b.get("text", ""))
    if row.kind == "undo":
        return f"undo {b.get('undid', '')}"
    if row.kind == "correct":
        return f"correct row {b.get('target')}: {b.get('text') or 'strike'}"
    if row.kind == "probes":
        return f"{b.get('count')} more rejected actions counted (last: {b.get('last')})"
    if row.kind == "board":
        return "board: " + ", ".join(f"{s} {t}" for s, t in b.get("observed", {}).items() if t and t != "empty")
    if row.kind == "mat":
        return "mat: " + ", ".join(f"{s} {v.get('face')}" for s, v in b.get("slots", {}).items()
                                   if v.get("face") != "empty")
    if row.kind == "question":
        return f"{b.get('player')}: {b.get('text')}"
    if row.kind == "shown":
        return f"shown {b.get('card')}"
    if row.kind == "start":
        return "start: " + " v ".join(b.get("players", []))
    return row.kind


def _csv(record: GameRecord, out: BinaryIO) -> int:
    text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
    w = csv.writer(text)
    w.writerow(CSV_COLUMNS)
    n = 0
    for row in record.rows():
        b = row.body
        accepted = "" if row.kind != "action" else ("yes" if b.get("accepted") else "no")
        w.writerow([row.seq, f"{row.ts:.3f}", time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(row.ts)), row.kind,
                    row.source, describe(row), accepted, b.get("rule", ""), b.get("message") or b.get("reason") or "",
                    json.dumps(b, sort_keys=True), row.prev, row.hash])
        n += 1
    text.flush()
    text.detach()  # leave `out` open for the caller
    return n


def _sqlite(record: GameRecord, out: BinaryIO) -> int:
    source = sqlite3.connect(f"file:{record.path}?mode=ro", uri=True)
    copy = sqlite3.connect(":memory:")
    try:
        source.backup(copy)  # consistent even while a table appends (SQLite's online backup)
        rows = int(copy.execute("SELECT count(*) FROM records").fetchone()[0])
        out.write(copy.serialize())
    finally:
        source.close()
        copy.close()
    return rows


SHEET_STYLE = """
body { font: 11pt/1.4 system-ui, sans-serif; color: #111; background: #fff; margin: 2em; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #bbb; padding: 2px 6px; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.signature { margin-top: 3em; }
@media print { body { margin: 0; font-size: 9pt; } thead { display: table-header-group; } tr { break-inside: avoid; } }
"""


def _sheet(record: GameRecord, out: BinaryIO) -> int:
    """The score sheet: the game as a replay of the record sees it, and every judged row."""
    from tracker.table.replay_any import KIPUKAS, replay_any

    rows = [r for r in record.rows() if r.kind in ("action", "undo", "correct")]
    e = html.escape
    done = replay_any(record)  # any game, read through the game interface
    view = done.game.view("judge")
    if done.name == KIPUKAS:  # the Kipukas sheet's wording predates the other games
        title, players = "Kipukas", " and ".join(sorted(done.game.seats))
        summary = (f"phase {e(str(view['phase']))}, diel cycle {view['turn']} · result: "
                   f"{e(str(view['result'] or 'game under way'))}")
    else:
        result = done.game.result
        title, players = done.name, " and ".join(done.game.seats)
        summary = (f"phase {e(str(view.get('phase', '')))} · result: "
                   f"{e(result.to_text() if result else 'game under way')}")
    held = view.get("claims")
    claims = "" if not isinstance(held, dict) else "<h2>Claims</h2><ul>" + (
        "".join(f"<li>Territory {e(str(t))}: {e(str(c))}</li>" for t, c in sorted(held.items())) or "<li>none</li>") \
        + "</ul>"
    lines = []
    for r in rows:
        b = r.body
        verdict = ("judge" if r.kind != "action" else
                   "accepted" if b.get("accepted") else f"rejected {b.get('rule', '')}")
        what = describe(r) + (f" ({b['reason']})" if r.kind in ("undo", "correct") and b.get("reason") else "")
        lines.append(f"<tr><td class=n>{r.seq}</td><td>{e(r.source)}</td><td>{e(what)}</td><td>{e(verdict)}</td></tr>")
    fingerprint = record.fingerprint or "unsigned"
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)} score sheet</title><style>{SHEET_STYLE}</style></head>
<body><main>
<h1>{e(title)} score sheet</h1>
<p>Printed {e(time.strftime("%Y-%m-%d %H:%M"))} · players {e(players)} · {summary}</p>
<p>Record of {record.last_seq} rows · table key fingerprint {e(fingerprint)}</p>
{claims}
<h2>Actions ({len(rows)})</h2>
<table><thead><tr><th scope="col">Row</th><th scope="col">Source</th><th scope="col">Action</th>
<th scope="col">Verdict</th></tr></thead><tbody>
{"".join(lines)}
</tbody></table>
<p class="signature">Judge: ______________________ &nbsp; Players: ______________________</p>
</main></body></html>
"""
    out.write(page.encode("utf-8"))
    return len(rows)
