"""The hub's organiser and spectator pages in headless Chromium under their strict CSP: the organiser
signs in with the PIN, sees every table (players, phase, whose turn, out of sync, camera warnings), a judge
call lights up with the table number, and a spectator sees the table's public rows."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.hub_servers import running_hub
from tests.hub_tables import SimTable
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS
from tracker.record.hub_push import HubPusher

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_organiser_sees_tables_and_a_judge_call_and_spectators_see_rows(tmp_path: Path, artifacts_dir: Path) -> None:
    from playwright.sync_api import sync_playwright

    stop = threading.Event()
    with running_hub(tmp_path / "hub", tables=2) as hub:
        tables = {t: SimTable(tmp_path / f"t{t}", seed=30 + int(t)) for t in ("1", "2")}
        status = {"1": {"players": ["red", "blue"], "phase": "day", "turn": 2, "active": "blue", "in_sync": True,
                        "warnings": []},
                  "2": {"players": ["red", "blue"], "phase": "night", "turn": 5, "active": "red", "in_sync": False,
                        "warnings": ["front camera lost: no frame for 2 s"]}}
        pushers = {t: HubPusher(hub.nginx.url, hub.token(t), tables[t].records,
                                status=lambda t=t: status[t]) for t in tables}  # type: ignore[misc]
        for t in tables:
            tables[t].write(3)
            pushers[t].start(stop)
        problems: list[str] = []
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page()

                def console(msg: Any) -> None:
                    if msg.type == "error":
                        problems.append(msg.text)

                page.on("console", console)
                page.goto(f"{hub.nginx.url}/organiser")
                page.fill("#pin", hub.organiser_pin)
                page.click("#login button")
                page.wait_for_selector("#table-2 td", timeout=30_000)
                page.wait_for_selector("#table-2 td.warn:has-text('OUT OF SYNC')", timeout=30_000)
                row2 = page.text_content("#table-2") or ""
                assert "night" in row2 and "front camera lost" in row2 and "red v blue" in row2
                assert "day" in (page.text_content("#table-1") or "")
                pushers["2"].call_judge()
                page.wait_for_selector("#call-2", timeout=30_000)
                assert "table 2" in (page.text_content("#call-2") or "")
                assert "called" in (page.get_attribute("#table-2", "class") or "")
                page.screenshot(path=str(artifacts_dir / "hub-organiser.png"), full_page=True)

                watch = browser.new_page()
                watch.on("console", console)
                watch.goto(f"{hub.nginx.url}/watch/1")
                tables["1"].write(2)
                watch.wait_for_selector("#rows li:nth-child(5)", timeout=30_000)
                watch.screenshot(path=str(artifacts_dir / "hub-watch.png"))
                browser.close()
        finally:
            stop.set()
            time.sleep(0.3)
            for table in tables.values():
                table.close()
    assert problems == [], f"console errors (a CSP violation shows here): {problems}"
