"""Drive a `Table` with phone lines and stable boards, without cameras."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from rules.kipukas.board_map import BoardMap
from rules.kipukas.identity import parse_payload
from tracker.overhead.layout import table_layout
from tracker.record.store import GameRecord
from tracker.runtime.demo_script import Step
from tracker.table.board import EMPTY, StandValue
from tracker.table.mat import SlotValue
from tracker.table.table import Table
from vision.regions import on_mat_edge

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
DECKS = {"red": ["HMPU#0004", "SWyA#0001", "WCA9#0001"], "blue": ["F3GW#0001", "ZrrD#0002", "hLwQ#0001"]}
SETUP = ["red affinity Avian", "blue affinity Decrepit", "red roll d6 5", "blue roll d6 2"]
CLAIMS = [("T7", "capital", "red"), ("T4", "capital", "blue"), ("T8", "basecamp", "red"),
          ("T3", "basecamp", "blue"), ("T1", "basecamp", "red"), ("T5", "basecamp", "blue")]
AFTER_CLAIMS = ["red personal none", "blue personal none", "red draw HMPU#0004,SWyA#0001,WCA9#0001",
                "blue draw F3GW#0001,ZrrD#0002,hLwQ#0001"]


def empty_board() -> dict[str, StandValue]:
    return {s: EMPTY for s in BoardMap.packaged().stands}


def new_table(tmp_path: Path, name: str = "game.sqlite") -> Table:
    return Table(BoardMap.packaged(), GameRecord(str(tmp_path / name), KEY), DECKS)


def say(table: Table, *lines: str) -> None:
    for line in lines:
        entry = table.act(f"phone:{line.split()[0]}", line)
        assert entry.accepted, entry


def set_up(table: Table) -> dict[str, StandValue]:
    """Play set-up to the first day; return the board as the camera sees it."""
    say(table, *SETUP)
    seen = empty_board()
    for stand, kind, owner in CLAIMS:
        seen[stand] = StandValue(kind, owner, 1)
        table.observe(dict(seen))
    say(table, *AFTER_CLAIMS)
    assert table.game.state.phase == "day"
    return seen


def exact_mat(step: Step) -> dict[str, SlotValue]:
    """What a perfect camera sees of the mat after a demo step: every slot's top card, a face-down one by
    its physical id."""
    layout = table_layout(BoardMap.packaged())
    mat = {spec.id: SlotValue(under=False if on_mat_edge(layout, spec.id) else None) for spec in layout.slots}
    for slot, cards in step.cards.items():
        top = [(face, payload) for face, payload in cards if face != "hidden"]
        under = any(face == "hidden" for face, _ in cards) or mat[slot].under
        face, payload = top[-1] if top else ("empty", None)
        mat[slot] = SlotValue(face, parse_payload(payload).physical_id if payload else None, under)
    return mat
