"""The judge's replay and downloads over HTTP: the state at any row equals a full replay, the SQLite
download is the signed record (it verifies), the JSON export holds every row, the score sheet lists the
actions, and none of it opens without the judge key."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.table_helpers import KEY
from tests.test_web_support import golden_script, new_service
from tracker.record.keys import PinnedKey
from tracker.record.store import GameRecord
from tracker.service.seats import JUDGE
from tracker.table.replay import replay
from web.app import create_app


def test_replay_and_downloads_are_the_record(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    _, lines = golden_script()
    for line in lines[:30]:
        service.table.act(f"phone:{line.split()[0]}", line)
    service.table.undo("judge", "wrong card")
    app, _ = create_app(service)
    http = app.test_client()
    key = service.judge_key()
    last = service.table.record.last_seq
    for url in ("/replay/state/3.json", "/export/record.sqlite", "/export/record.json", "/export/sheet"):
        assert http.get(url).status_code == 403, url
        assert http.get(f"{url}?k=wrong").status_code == 403, url
    rows = list(service.table.record.rows())
    for seq in (1, 7, 19, last):
        view = http.get(f"/replay/state/{seq}.json?k={key}").get_json()
        assert view["state_text"] == replay(rows, service.table.board, upto=seq).game.to_text()
        assert view["last_seq"] == last and (view["row"] is None or view["row"]["seq"] == seq)
    assert http.get(f"/replay/state/{last + 1}.json?k={key}").status_code == 404
    assert http.get("/replay").status_code == 200

    sqlite = http.get(f"/export/record.sqlite?k={key}")
    assert "attachment" in sqlite.headers["Content-Disposition"]
    copy = tmp_path / "download.sqlite"
    copy.write_bytes(sqlite.data)
    record = GameRecord(str(copy), readonly=True)
    report = record.verify(PinnedKey.of(KEY, "the test table's key"))
    assert report.ok and report.rows == last and record.last_hash == service.table.record.last_hash

    exported = [json.loads(x) for x in http.get(f"/export/record.json?k={key}").data.decode().splitlines()]
    assert [r["seq"] for r in exported] == list(range(1, last + 1))
    assert exported[-1]["hash"] == service.table.record.last_hash

    fingerprint = service.snapshot(JUDGE)["key_fingerprint"]
    public = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert fingerprint.replace(" ", "") == hashlib.sha256(public).hexdigest()[:32]

    sheet = http.get(f"/export/sheet?k={key}").data.decode()
    assert lines[5] in sheet and "undo" in sheet and "@media print" not in sheet
