"""`kipukas-tracker scan`: the JSON contract, the table, and unreadable files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.qr_helpers import DEV_PHOTOS, dev_truth
from tracker.cli import main

TRUTH = dev_truth()
MULTI = next(n for n, cards in sorted(TRUTH.items()) if len(cards) == 2)
SINGLE = next(n for n, cards in sorted(TRUTH.items()) if len(cards) == 1 and "#" in cards[0])


def test_json_lines_follow_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(DEV_PHOTOS / MULTI), str(DEV_PHOTOS / SINGLE)]
    assert main(["scan", "--json", *paths]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == paths
    for line, name in zip(lines, (MULTI, SINGLE), strict=True):
        assert set(line) >= {"image", "cards", "elapsed_ms"}
        assert isinstance(line["elapsed_ms"], float) and line["elapsed_ms"] > 0
        assert sorted(c["raw"] for c in line["cards"]) == sorted(TRUTH[name])
        for card in line["cards"]:
            code, _, rest = card["raw"].removeprefix("kpks.us/").partition("#")
            assert card["code"] == code
            assert card["serial"] == rest.split("?")[0]
            assert len(card["corners"]) == 4 and all(len(p) == 2 for p in card["corners"])


def test_old_card_has_null_serial(capsys: pytest.CaptureFixture[str]) -> None:
    old = next(n for n, cards in sorted(TRUTH.items()) if cards == ["https://www.kpks.us/frlU"])
    assert main(["scan", "--json", str(DEV_PHOTOS / old)]) == 0
    card = json.loads(capsys.readouterr().out)["cards"][0]
    assert (card["code"], card["serial"]) == ("frlU", None)


def test_photo_without_cards_gives_empty_list(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import cv2
    import numpy as np

    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((120, 160, 3), 128, np.uint8))
    assert main(["scan", "--json", str(blank)]) == 0
    assert json.loads(capsys.readouterr().out)["cards"] == []


def test_table_output_names_cards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(DEV_PHOTOS / MULTI)]) == 0
    out = capsys.readouterr().out
    for raw in TRUTH[MULTI]:
        assert raw in out


def test_corrupt_image_named_and_others_still_scanned(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg")
    code = main(["scan", "--json", str(corrupt), str(DEV_PHOTOS / SINGLE)])
    captured = capsys.readouterr()
    assert code == 2
    assert str(corrupt) in captured.err and "not a readable image" in captured.err
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["image"] for line in lines] == [str(DEV_PHOTOS / SINGLE)]


def test_missing_file_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.jpg"
    assert main(["scan", str(missing)]) == 2
    assert f"{missing}: no such file" in capsys.readouterr().err


def test_installed_entry_point_runs_as_a_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tracker.cli", "scan", "--json", str(DEV_PHOTOS / SINGLE)],
        capture_output=True, text=True, check=False, cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cards"][0]["raw"] == TRUTH[SINGLE][0]
