"""A record row as the tracker reports it, and how severe a warning is that did not say."""

from __future__ import annotations

from dataclasses import dataclass

from tracker.record.store import Row

ERROR_WORDS = ("lost", "stopped", "cannot", "differs", "failed", "unusable", "ended")
INFO_WORDS = (" back", "learned", "calibrated")


def severity_of(message: str) -> str:
    """info, warning or error, from the words of a warning that did not say."""
    if any(w in message for w in ERROR_WORDS):
        return "error"
    return "info" if " not " not in message and any(w in message for w in INFO_WORDS) else "warning"


@dataclass(frozen=True, slots=True)
class Entry:
    """A record row as the tracker reports it."""

    seq: int
    ts: float
    source: str
    kind: str
    text: str
    accepted: bool
    rule: str
    message: str

    @classmethod
    def of(cls, row: Row) -> Entry:
        b = row.body
        text = str(b.get("text") or b.get("undid") or "")
        if row.kind == "probes":
            text = f"{b.get('count')} more rejected actions counted, not stored one by one (last: {b.get('last')})"
            return cls(row.seq, row.ts, row.source, row.kind, text, False, str(b.get("rule", "")), "")
        if row.kind == "correct":
            text = f"correct row {b.get('target')}: {b.get('text') or 'strike'}"
        elif row.kind == "mat":  # judges only: it names the face-down cards
            text = "mat: " + ", ".join(f"{slot} {v['face']}" + (f" {v['card']}" if v.get("card") else "")
                                       for slot, v in b["slots"].items() if v["face"] != "empty")
        return cls(row.seq, row.ts, row.source, row.kind, text, bool(b.get("accepted", True)),
                   str(b.get("rule", "")), str(b.get("message") or b.get("reason") or ""))
