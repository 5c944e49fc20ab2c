"""Attacks on a signed record a judge must catch with `log verify` (issue 16): a record forged by
re-signing with a fresh key, a record with its signatures stripped, a tail cut back to a checkpoint whose
signature is reused as the head's, and a file cut back to an older (validly signed) head that a witness
saw beyond. Each rewrites the file with the record code's own writer, as an attacker with the code would."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from tests.table_helpers import KEY, new_table, say, set_up
from tracker.cli import main
from tracker.record.store import GameRecord

KEY_FILE = "table_key.pem"


@pytest.fixture()
def state(tmp_path: Path) -> Path:
    """A table's state folder: its key, and one game in records/ played past two diel cycles."""
    folder = tmp_path / "state"
    (folder / "records").mkdir(parents=True)
    (folder / KEY_FILE).write_bytes(KEY.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    table = new_table(folder / "records")
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    table.record.close()
    return folder


def game(state: Path) -> Path:
    return state / "records" / "game.sqlite"


def verify(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, object], str]:
    code = main(["log", "verify", str(path), *extra])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else {}, captured.err


def rows_of(path: Path) -> list[tuple[float, str, str, str]]:
    db = sqlite3.connect(path)
    rows = db.execute("SELECT ts, kind, source, body FROM records ORDER BY seq").fetchall()
    db.close()
    return [(float(t), str(k), str(s), str(b)) for t, k, s, b in rows]


def checkpoint_rows(path: Path) -> list[int]:
    db = sqlite3.connect(path)
    seqs = [int(s) for (s,) in db.execute("SELECT seq FROM checkpoints ORDER BY seq")]
    db.close()
    return seqs


def rewrite(path: Path, key: Ed25519PrivateKey | None, edit_seq: int, old: str, new: str) -> None:
    """Rewrite the whole record with one row edited: re-chained, and re-signed with `key` (None: unsigned),
    checkpoints at the same rows."""
    rows, marks = rows_of(path), set(checkpoint_rows(path))
    forged = path.with_name("forged.sqlite")
    record = GameRecord(str(forged), key)
    for seq, (ts, kind, source, body) in enumerate(rows, start=1):
        data = json.loads(body.replace(old, new) if seq == edit_seq else body)
        record.append(kind, source, data, ts=ts)
        if seq in marks and key is not None:
            record.checkpoint(ts=ts)
    record.close()
    path.unlink()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    forged.replace(path)


def edited_row(path: Path, text: str) -> int:
    db = sqlite3.connect(path)
    [(seq,)] = db.execute("SELECT seq FROM records WHERE body LIKE ?", (f"%{text}%",)).fetchall()
    db.close()
    return int(seq)


def test_the_genuine_record_passes(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = verify(game(state), capsys)
    assert code == 0 and out["ok"] is True


def test_forged_by_re_signing_with_a_fresh_key(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seq = edited_row(game(state), "F3GW#0001 3 revealed")
    rewrite(game(state), Ed25519PrivateKey.generate(), seq, "F3GW#0001 3", "F3GW#0001 5")
    code, out, err = verify(game(state), capsys)
    assert code == 2 and out["ok"] is False
    assert "another key" in str(out["problem"]) and "another key" in err


def test_forged_with_signatures_stripped(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seq = edited_row(game(state), "F3GW#0001 3 revealed")
    rewrite(game(state), None, seq, "F3GW#0001 3", "F3GW#0001 5")
    code, out, _ = verify(game(state), capsys)
    assert code == 2 and out["ok"] is False
    assert "no table key or signatures" in str(out["problem"])


def test_truncated_to_a_checkpoint_with_its_signature_as_head(state: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = game(state)
    marks = checkpoint_rows(path)
    assert marks, "the game must have passed a diel cycle"
    cut = marks[-1]
    db = sqlite3.connect(path)
    last = int(db.execute("SELECT max(seq) FROM records").fetchone()[0])
    assert last > cut
    digest, sig = db.execute("SELECT hash, signature FROM checkpoints WHERE seq = ?", (cut,)).fetchone()
    db.execute("DELETE FROM records WHERE seq > ?", (cut,))
    db.execute("UPDATE head SET seq = ?, hash = ?, signature = ?", (cut, digest, sig))
    db.commit()
    db.close()
    code, out, _ = verify(path, capsys)
    assert code == 2 and out["first_bad_seq"] == cut
    assert "signed head is missing or forged" in str(out["problem"])


def test_a_witnessed_head_newer_than_the_file(state: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """An older copy of the file (a backup, the WAL) is a valid record; only a witness shows the loss."""
    path = game(state)
    backup = tmp_path / "backup.sqlite"
    shutil.copy(path, backup)
    record = GameRecord(str(path), KEY)
    first_new = record.last_seq + 1
    record.append("action", "judge", {"text": "red end", "accepted": False, "rule": "#x", "message": "m"})
    record.append("action", "judge", {"text": "blue end", "accepted": False, "rule": "#x", "message": "m"})
    witness = tmp_path / "head.json"
    witness.write_text(json.dumps(record.signed_head()), encoding="utf-8")
    record.close()
    assert verify(path, capsys, "--witness", str(witness))[0] == 0
    shutil.copy(backup, path)  # the attacker puts the older, validly signed file back
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    assert verify(path, capsys)[0] == 0  # without a witness nothing shows the loss
    code, out, err = verify(path, capsys, "--witness", str(witness))
    assert code == 2 and out["first_bad_seq"] == first_new
    assert f"rows {first_new}..{first_new + 1} are missing" in str(out["problem"]) and "truncated" in err


def test_pinned_by_fingerprint_and_refused_for_another(state: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from tracker.record.keys import fingerprint

    copy = tmp_path / "elsewhere" / "game.sqlite"  # away from the state folder: no key to find
    copy.parent.mkdir()
    shutil.copy(game(state), copy)
    code, out, _ = verify(copy, capsys)
    assert code == 2 and "no table key to check against" in str(out["problem"])
    assert verify(copy, capsys, "--key", fingerprint(KEY))[0] == 0
    assert verify(copy, capsys, "--key", fingerprint(KEY).replace(" ", "").upper())[0] == 0
    assert verify(copy, capsys, "--key", str(state / KEY_FILE))[0] == 0
    other = fingerprint(Ed25519PrivateKey.generate())
    code, out, _ = verify(copy, capsys, "--key", other)
    assert code == 2 and "another key" in str(out["problem"])
    assert main(["log", "verify", str(copy), "--key", "not-a-key"]) == 2
    assert "not a key file, a key fingerprint" in capsys.readouterr().err


def test_export_prints_the_fingerprint_and_writes_a_witness(state: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from tracker.record.keys import fingerprint

    out = tmp_path / "game.jsonl"
    assert main(["log", "export", str(game(state)), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert fingerprint(KEY) in err
    head = json.loads(Path(str(out) + ".head.json").read_text())
    rows = out.read_text().splitlines()
    assert head["seq"] == len(rows) and head["hash"] == json.loads(rows[-1])["hash"]
    assert verify(game(state), capsys, "--witness", str(out) + ".head.json")[0] == 0
    forged = dict(head, seq=head["seq"] + 5)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(forged))
    assert main(["log", "verify", str(game(state)), "--witness", str(bad)]) == 2
    assert "does not verify with the table's key" in capsys.readouterr().err


def test_head_and_checkpoint_sign_distinct_messages() -> None:
    from tracker.record.chain import CHECKPOINT, HEAD, signed_text

    assert signed_text(HEAD, 7, "ab") != signed_text(CHECKPOINT, 7, "ab")
    assert b"head" in signed_text(HEAD, 7, "ab") and b"checkpoint" in signed_text(CHECKPOINT, 7, "ab")


def test_a_record_of_the_older_format_gets_a_clear_answer(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = game(state)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM meta WHERE key = 'format'")  # how format-1 records look
    db.commit()
    db.close()
    code, out, _ = verify(path, capsys)
    assert code == 2 and "older format" in str(out["problem"])
    from tracker.errors import RecordError

    with pytest.raises(RecordError, match="older format"):
        GameRecord(str(path), KEY)
