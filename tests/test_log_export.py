"""`kipukas-tracker log export --format {jsonl,json,csv,sqlite,sheet}`: each form holds every row, the
SQLite copy verifies against the table's key like the original, and bad requests exit 2 with one line."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.table_helpers import new_table, say, set_up
from tests.test_log_command import write_key
from tracker.cli import main
from tracker.record.store import GameRecord

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def record_file(tmp_path: Path) -> Path:
    table = new_table(tmp_path)
    set_up(table)
    say(table, "blue play F3GW#0001 3 revealed", "red play HMPU#0004 1 revealed")
    accepted = [r.seq for r in table.record.rows() if r.kind == "action" and r.body["accepted"]]
    table.act("phone:red", "red capital 97")  # a rejection: stored with its rule
    table.undo("judge", "misplayed")
    table.correct("judge", accepted[-2], "", "struck: wrong card")
    table.record.close()
    write_key(tmp_path)
    return tmp_path / "game.sqlite"


def rows_of(path: Path) -> list[dict[str, object]]:
    return [r.to_json() for r in GameRecord(str(path), readonly=True).rows()]


def test_json_holds_every_row_the_key_and_the_signed_head(record_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    assert main(["log", "export", str(record_file), "--format", "json", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["rows"] == rows_of(record_file)
    assert doc["signed_head"]["seq"] == doc["rows"][-1]["seq"] and doc["key_fingerprint"]
    assert json.loads((tmp_path / "game.json.head.json").read_text()) == doc["signed_head"]


def test_csv_has_one_line_a_row_and_loses_nothing(record_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "game.csv"
    assert main(["log", "export", str(record_file), "--format", "csv", "--out", str(out)]) == 0
    lines = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"), newline="")))
    rows = rows_of(record_file)
    assert [int(line["seq"]) for line in lines] == [r["seq"] for r in rows]
    assert [json.loads(line["body"]) for line in lines] == [r["body"] for r in rows]
    assert [line["hash"] for line in lines] == [r["hash"] for r in rows]
    kinds = {line["kind"]: line for line in lines}
    assert kinds["correct"]["text"].startswith("correct row ") and kinds["undo"]["text"].startswith("undo ")
    rejected = [line for line in lines if line["kind"] == "action" and line["accepted"] == "no"]
    assert rejected and rejected[0]["rule"] and "red capital 97" in rejected[0]["text"]


def test_sqlite_copy_verifies_like_the_original(record_file: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "copy" / "game.sqlite"
    out.parent.mkdir()
    assert main(["log", "export", str(record_file), "--format", "sqlite", "--out", str(out)]) == 0
    assert rows_of(out) == rows_of(record_file)
    capsys.readouterr()
    assert main(["log", "verify", str(out), "--state", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["ok"]
    assert not list(out.parent.glob("*.partial"))


def test_sheet_is_a_standalone_printable_page(record_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "sheet.html"
    assert main(["log", "export", str(record_file), "--format", "sheet", "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "@media print" in page and "<link" not in page  # opens without the tracker's web server
    assert "Territory 7: red capital" in page
    judged = [r for r in rows_of(record_file) if r["kind"] in ("action", "undo", "correct")]
    assert page.count("<tr><td class=n>") == len(judged)
    assert "struck: wrong card" in page and "rejected #" in page


def test_default_is_json_lines_on_stdout(record_file: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "tracker.cli", "log", "export", str(record_file)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert [json.loads(line) for line in done.stdout.splitlines()] == rows_of(record_file)
    assert "fingerprint" in done.stderr


def test_bad_exports_exit_2_with_one_line(record_file: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["log", "export", str(record_file), "--format", "pdf"])
    assert exc.value.code == 2
    capsys.readouterr()
    assert main(["log", "export", str(record_file), "--format", "csv", "--out",
                 str(tmp_path / "no-such-folder" / "x.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write" in err[0]
