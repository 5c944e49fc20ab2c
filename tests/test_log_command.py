"""`kipukas-tracker log verify|export|state`: a judge checks, exports and replays a record."""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

import pytest

from tests.table_helpers import KEY, new_table, say, set_up
from tracker.cli import main
from tracker.record.keys import KEY_FILE, fingerprint


@pytest.fixture()
def record_file(tmp_path: Path) -> Path:
    table = new_table(tmp_path)
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    table.record.close()
    write_key(tmp_path)  # the table's state folder: `log verify` checks against its key
    return tmp_path / "game.sqlite"


def write_key(folder: Path) -> None:
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    (folder / KEY_FILE).write_bytes(KEY.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))


def test_verify_ok(record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["log", "verify", str(record_file)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["rows"] > 20 and out["first_bad_seq"] is None
    assert out["key"] == fingerprint(KEY)


def test_verify_names_the_first_bad_row(record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = sqlite3.connect(record_file)
    [(seq,)] = db.execute("SELECT seq FROM records WHERE body LIKE '%F3GW#0001 3 revealed%'").fetchall()
    db.execute("UPDATE records SET body = replace(body, 'F3GW#0001 3', 'F3GW#0001 5') WHERE seq = ?", (seq,))
    db.commit()
    db.close()
    assert main(["log", "verify", str(record_file)]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["first_bad_seq"] == seq
    assert f"row {seq}" in captured.err


def test_export_is_json_lines(record_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "game.jsonl"
    assert main(["log", "export", str(record_file), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["kind"] == "start" and rows[0]["seq"] == 1
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
    assert all(b["prev"] == a["hash"] for a, b in itertools.pairwise(rows))


def test_state_at_any_sequence_number(record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["log", "state", str(record_file), "--at", "5"]) == 0
    early = capsys.readouterr().out
    assert "phase capitals" in early and "claim" not in early
    assert main(["log", "state", str(record_file)]) == 0
    late = capsys.readouterr().out
    assert "claim 7 red capital" in late and "HMPU#0004" in late


def test_bad_inputs_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], record_file: Path) -> None:
    assert main(["log", "verify", str(tmp_path / "missing.sqlite")]) == 2
    assert "no such record file" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 50)
    assert main(["log", "verify", str(junk)]) == 2
    assert "not a game record" in capsys.readouterr().err
    assert main(["log", "state", str(record_file), "--at", "9999"]) == 2
    assert "--at 9999" in capsys.readouterr().err
