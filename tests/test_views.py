"""Per-viewer projections: secret means choices, redaction of hidden card ids and titles, the delayed
spectator view rebuilt from the record, and keyframes in the judge's timeline."""

from __future__ import annotations

from pathlib import Path

from rules.kipukas.board_map import BoardMap
from rules.kipukas.catalog import Catalog
from tests.table_helpers import KEY
from tests.test_web_support import golden_script
from tracker.record.store import GameRecord
from tracker.service.seats import JUDGE, SPECTATOR, Seats, player
from tracker.service.service import TableService
from tracker.service.views import redactor, secret_means, view_for
from tracker.table.table import Entry, Table


def entry(seq: int, text: str, accepted: bool = True, kind: str = "action") -> Entry:
    return Entry(seq, 0.0, "phone", kind, text, accepted, "", "")


def test_a_means_choice_is_secret_until_the_other_side_has_chosen() -> None:
    rows = [entry(1, "blue attack SWyA#0001 HMPU#0001"), entry(2, "blue means SWyA#0001 1")]
    assert secret_means(rows) == {2: "blue"}
    assert secret_means([*rows, entry(3, "red means HMPU#0001 9", accepted=False)]) == {2: "blue", 3: "red"}
    assert secret_means([*rows, entry(3, "red means HMPU#0001 1")]) == {}
    # The other side's means was fixed: the next accepted action (a roll) shows both have chosen.
    assert secret_means([*rows, entry(3, "blue roll attack 4")]) == {}
    assert secret_means([*rows, entry(3, "red roll defence 1,1", accepted=False)]) == {2: "blue"}
    # An undone choice stays secret, and so does the undo row that names it; a new choice opens again.
    undone = [*rows, entry(3, "blue means SWyA#0001 1", kind="undo"), entry(4, "red means HMPU#0001 1")]
    assert secret_means(undone) == {2: "blue", 3: "blue", 4: "red"}
    # Whatever the rows say, the bout still waiting for red keeps blue's latest choice secret.
    assert secret_means([*rows, entry(3, "blue roll attack 4")], waiting="blue") == {2: "blue"}
    assert secret_means([entry(5, "correct row 2: blue means SWyA#0001 2", kind="correct")]) == {5: ""}


def new_table(tmp_path: Path, clock: list[float] | None = None) -> Table:
    decks, _ = golden_script()
    now = clock or [1000.0]
    return Table(BoardMap.packaged(), GameRecord(str(tmp_path / "v.sqlite"), KEY), decks, clock=lambda: now[0])


def test_hidden_titles_go_with_their_ids_but_shared_titles_stay(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    state = table.game.state
    catalog = Catalog.packaged()
    red = redactor(state, {"HMPU#0001"}, catalog)
    title = catalog.card("ZrrD").title
    assert red(f"{title} (ZrrD#0001) moves; HMPU#0001 waits") == "a card moves; HMPU#0001 waits"
    assert red(f"they fear {title}") == "they fear a card"
    hilbert = catalog.card("HMPU").title
    assert red(f"{hilbert} (HMPU#0001)") == f"{hilbert} (HMPU#0001)"


def test_players_see_their_own_hand_by_name_and_the_other_hand_as_a_count(tmp_path: Path) -> None:
    decks, lines = golden_script()
    table = new_table(tmp_path)
    for line in lines[:22]:
        table.act(f"phone:{line.split()[0]}", line)
    red = view_for(table, player("red"))
    assert {c["id"] for c in red["hand"]} == {"K-LE#0001", "WCA9#0001"}
    assert red["hands"] == {"blue": 2, "red": 2} and "hand_cards" not in red
    face_down = [c for c in red["cards"] if c["owner"] == "blue" and not c["revealed"]]
    assert face_down == [{"owner": "blue", "at": "T6", "territory": "6", "zone": "play", "revealed": False,
                         "hidden": False}]
    judge = view_for(table, JUDGE)
    assert {c["id"] for c in judge["hand_cards"]["blue"]} == {"SWyA#0001", "K_vJ#0001"}
    assert judge["decks_at_start"] == decks and "card ZrrD#0001 blue T6" in judge["state_text"]


def test_delayed_spectators_see_the_table_as_it_was(tmp_path: Path) -> None:
    clock = [1000.0]
    table = new_table(tmp_path, clock)
    _, lines = golden_script()
    for i, line in enumerate(lines[:10]):
        clock[0] = 1000.0 + 30 * i
        table.act(f"phone:{line.split()[0]}", line)
    service = TableService(table, Seats(("red", "blue")), spectator_delay_min=2.0, clock=lambda: clock[0])
    clock[0] = 1000.0 + 30 * 9 + 1        # two minutes ago, only rows up to line 5 had been recorded
    late = service.snapshot(SPECTATOR)
    assert late["seq"] == 6 + 1 and late["delayed_min"] == 2.0
    assert [e["action"] for e in late["log"]][-1] == lines[5]
    assert service.entries_since(SPECTATOR, 0)[-1]["seq"] == 7
    live = service.snapshot(player("red"))
    assert live["seq"] == 11 and "delayed_min" not in live
    clock[0] += 600
    assert service.snapshot(SPECTATOR)["seq"] == 11


class FolderKeyframes:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, seq: int, camera: str) -> Path | None:
        p = self.folder / f"{seq}-{camera}.jpg"
        return p if p.exists() else None


def test_the_judge_timeline_names_rows_with_keyframes(tmp_path: Path) -> None:
    table = new_table(tmp_path)
    table.act("phone:red", "red affinity Avian")
    (tmp_path / "2-front.jpg").write_bytes(b"jpeg")
    service = TableService(table, keyframes=FolderKeyframes(tmp_path))
    assert service.snapshot(JUDGE)["keyframes"] == {"2": ["front"]}
    assert "keyframes" not in service.snapshot(player("red"))
    assert service.keyframe(2, "front") == b"jpeg" and service.keyframe(2, "overhead") is None
