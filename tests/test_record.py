"""The hash-chained game record: durability, verification and tamper detection."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tracker.errors import RecordError
from tracker.record.store import GameRecord

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def filled(path: Path, n: int = 10, checkpoint_at: int | None = 6) -> GameRecord:
    rec = GameRecord(str(path), KEY)
    for i in range(1, n + 1):
        rec.append("action", "overhead", {"action": f"red move X#{i:04d} T1-M9", "accepted": i % 3 != 0}, ts=1000.0 + i)
        if i == checkpoint_at:
            rec.checkpoint(ts=2000.0)
    return rec


def test_rows_chain_and_verify(tmp_path: Path) -> None:
    rec = filled(tmp_path / "game.sqlite")
    rows = list(rec.rows())
    assert [r.seq for r in rows] == list(range(1, 11))
    assert all(b.prev == a.hash for a, b in itertools.pairwise(rows))
    report = rec.verify()
    assert report.ok and report.rows == 10 and report.checkpoints == 1
    assert [r.seq for r in rec.rows(after=7)] == [8, 9, 10]


def test_reopen_continues_the_chain(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    filled(path).close()
    rec = GameRecord(str(path), KEY)
    assert rec.last_seq == 10
    rec.append("action", "phone:red", {"action": "red call initiative"})
    assert rec.verify().ok and rec.last_seq == 11


def test_another_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    filled(path).close()
    with pytest.raises(RecordError, match="another table key"):
        GameRecord(str(path), Ed25519PrivateKey.generate())


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(RecordError, match="not a game record"):
        GameRecord(str(path), KEY)


def tamper(path: Path, sql: str, *args: object) -> None:
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()


@pytest.mark.parametrize("seq", [2, 6, 9])
def test_edited_row_is_named(tmp_path: Path, seq: int) -> None:
    path = tmp_path / "game.sqlite"
    filled(path).close()
    body = json.dumps({"action": "red move X#0001 T1-T4", "accepted": True}, sort_keys=True, separators=(",", ":"))
    tamper(path, "UPDATE records SET body = ? WHERE seq = ?", body, seq)
    report = GameRecord(str(path), KEY).verify()
    assert not report.ok and report.first_bad_seq == seq and "altered" in report.problem


def test_flipped_byte_in_hash(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    filled(path).close()
    tamper(path, "UPDATE records SET hash = substr(hash, 1, 10) || 'f' || substr(hash, 12) WHERE seq = 4")
    report = GameRecord(str(path), KEY).verify()
    assert not report.ok and report.first_bad_seq == 4


def test_deleted_row_is_named(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    filled(path).close()
    tamper(path, "DELETE FROM records WHERE seq = 5")
    report = GameRecord(str(path), KEY).verify()
    assert not report.ok and report.first_bad_seq == 5 and "missing" in report.problem


def test_reordered_rows(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    filled(path).close()
    db = sqlite3.connect(path)
    r3 = db.execute("SELECT ts, kind, source, body, prev, hash FROM records WHERE seq = 3").fetchone()
    r4 = db.execute("SELECT ts, kind, source, body, prev, hash FROM records WHERE seq = 4").fetchone()
    for seq, row in ((3, r4), (4, r3)):
        db.execute("UPDATE records SET ts=?, kind=?, source=?, body=?, prev=?, hash=? WHERE seq=?", (*row, seq))
    db.commit()
    db.close()
    report = GameRecord(str(path), KEY).verify()
    assert not report.ok and report.first_bad_seq == 3


def test_truncated_tail_after_last_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    filled(path).close()
    tamper(path, "DELETE FROM records WHERE seq > 8")
    report = GameRecord(str(path), KEY).verify()
    assert not report.ok and report.first_bad_seq == 9 and "truncated" in report.problem


def test_truncated_before_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    filled(path).close()
    tamper(path, "DELETE FROM records WHERE seq > 4")
    report = GameRecord(str(path), KEY).verify()
    assert not report.ok and report.first_bad_seq == 5


def test_rewritten_chain_is_caught_by_signatures(tmp_path: Path) -> None:
    """An attacker who edits a row and recomputes every later hash still cannot forge the signatures."""
    from tracker.record.store import GENESIS, canonical, row_hash

    path = tmp_path / "game.sqlite"
    filled(path).close()
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, ts, kind, source, body FROM records ORDER BY seq").fetchall()
    prev = GENESIS
    for seq, ts, kind, source, body in rows:
        if seq == 3:
            body = canonical({"action": "blue wins", "accepted": True})
        digest = row_hash(prev, seq, ts, kind, source, body)
        db.execute("UPDATE records SET body=?, prev=?, hash=? WHERE seq=?", (body, prev, digest, seq))
        prev = digest
    db.commit()
    db.close()
    report = GameRecord(str(path), KEY).verify()
    assert not report.ok and report.first_bad_seq is not None and report.first_bad_seq <= 6
