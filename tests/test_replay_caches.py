"""What keeps a long game's replays instant never changes what they say: the record's corrections read
once and then kept current, decoded snapshots shared between callers, snapshots of the previous
format still read, and the previous states a snapshot keeps decoded only when an undo reaches them."""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import DECKS, KEY, new_table, say, set_up
from tracker.record.snapshots import SnapshotStore, snapshot_path
from tracker.record.store import GameRecord
from tracker.table.derived import Derived
from tracker.table.replay import CORRECTIONS, CorrectionIndex, SnapshotCache, parse_token, replay, replay_record
from tracker.table.table import Table

BOARD = BoardMap.packaged()


def played(tmp_path: Path, name: str = "game.sqlite") -> Table:
    table = Table(BOARD, GameRecord(str(tmp_path / name), KEY), DECKS,
                  snapshots=SnapshotStore(snapshot_path(str(tmp_path / name))))
    table.snapshot_every = 5
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    return table


def one_more(table: Table) -> None:
    """One more accepted action: the first the rules allow now."""
    say(table, sorted(a.to_text() for a in table.game.legal_actions())[0])


def scanned(record: GameRecord, upto: int) -> list[tuple[int, int, str]]:
    return [(r.seq, int(r.body["target"]), str(r.body.get("text", "")))
            for r in record.rows(upto=upto, kinds=("correct",))]


def test_corrections_are_read_once_then_kept_current(tmp_path: Path) -> None:
    table = played(tmp_path)
    accepted = [r.seq for r in table.record.rows() if r.kind == "action" and r.body["accepted"]]
    table.correct("judge", accepted[-1], "", "struck")
    reader = GameRecord(table.record.path, readonly=True)
    index = CorrectionIndex()
    assert index.upto(reader, reader.last_seq) == scanned(reader, reader.last_seq)
    table.correct("judge", accepted[-2], "", "struck too")  # after the reader opened
    last = table.record.last_seq
    assert index.upto(reader, last) == scanned(reader, last) and len(scanned(reader, last)) == 2
    assert index.upto(reader, last - 1) == scanned(reader, last - 1)  # an earlier row: the later one left out
    # the table's own index follows its appends without reading the record again
    assert CORRECTIONS.upto(table.record, last) == scanned(table.record, last)


def test_a_record_replaced_at_the_same_path_is_read_anew(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = played(tmp_path / "a")
    accepted = [r.seq for r in first.record.rows() if r.kind == "action" and r.body["accepted"]]
    first.correct("judge", accepted[-1], "", "struck")
    path = first.record.path
    index = CorrectionIndex()
    assert len(index.upto(first.record, first.record.last_seq)) == 1
    first.close()
    other = new_table(tmp_path / "b")
    set_up(other)
    say(other, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    one_more(other)
    other.close()
    Path(path).unlink()
    shutil.copy(other.record.path, path)  # another game now lies where the first one was
    reader = GameRecord(path, readonly=True)
    assert index.upto(reader, reader.last_seq) == [] == scanned(reader, reader.last_seq)


def test_decoded_snapshots_are_shared_but_never_changed(tmp_path: Path) -> None:
    table = played(tmp_path)
    store = SnapshotStore(snapshot_path(table.record.path), readonly=True)
    seq, _, body = store.all()[-2]
    cache = SnapshotCache(size=2)
    one = cache.derived(store.path, seq, body, BOARD)
    rows = list(table.record.rows(after=seq))
    for row in rows:
        one.step(row, {}, lambda s: replay_record(table.record, BOARD, upto=s).game.state, parse_token)
    two = cache.derived(store.path, seq, body, BOARD)
    assert two.seq == seq and two.comparable() == Derived.from_bytes(body, BOARD).comparable()
    assert one.game.state is not two.game.state or not rows
    for other in store.all()[:3]:  # more than the cache holds: the oldest is dropped, then decoded again
        cache.derived(store.path, other[0], other[2], BOARD)
    assert cache.derived(store.path, seq, body, BOARD).comparable() == two.comparable()


def test_snapshots_of_the_previous_format_are_still_read(tmp_path: Path) -> None:
    table = played(tmp_path)
    one_more(table)
    table.snapshot()
    data = json.loads(table.derived.to_json())
    assert data["format"] == 5 and isinstance(data["state"], str) and all(isinstance(h, str) for h in data["history"])
    old = {**data, "format": 3, "state": json.loads(data["state"]), "history": [json.loads(h) for h in data["history"]],
           "mat": {s: [v["face"], v["card"]] for s, v in data["mat"].items()}}  # format 3 kept [face, card]
    decoded = Derived.from_bytes(zlib.compress(json.dumps(old).encode()), BOARD)
    assert decoded.comparable() == table.derived.comparable()
    rows = list(table.record.rows())
    for _ in range(3):  # undos reach the kept states of either format
        decoded.undone(lambda s: replay(rows, BOARD, upto=s).game.state)
        table.derived.undone(lambda s: replay(rows, BOARD, upto=s).game.state)
        assert decoded.game.to_text() == table.derived.game.to_text()


def test_state_at_every_row_equals_a_full_replay_with_corrections(tmp_path: Path) -> None:
    table = played(tmp_path)
    accepted = [r.seq for r in table.record.rows() if r.kind == "action" and r.body["accepted"]]
    table.correct("judge", accepted[len(accepted) // 2], "", "struck")  # reaches behind several snapshots
    for _ in range(3):
        table.undo("judge", "walk back")
    rows = list(table.record.rows())
    reader = GameRecord(table.record.path, readonly=True)
    snaps = SnapshotStore(snapshot_path(table.record.path), readonly=True)
    for _ in range(2):  # the second pass reads the decoded snapshots and corrections kept by the first
        for upto in range(1, len(rows) + 1):
            fast = replay_record(reader, BOARD, upto=upto, snapshots=snaps)
            full = replay(rows, BOARD, upto=upto)
            assert fast.game.to_text() == full.game.to_text() and fast.stack == full.stack, f"row {upto}"
