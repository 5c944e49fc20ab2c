"""The map shows the camera's view beside the record's: a toggle on the player and judge pages draws the
board as the overhead camera last reported it, with the stands where it differs from the record ringed."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.table_helpers import DECKS, set_up
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS
from tests.test_browser_tap import AXE, PHONE, serious_violations
from tests.test_web_support import new_service, running
from tracker.table.board import StandValue

pytestmark = [pytest.mark.browser]


def test_the_camera_view_toggle_shows_what_the_camera_sees(tmp_path: Path, artifacts_dir: Path) -> None:
    service = new_service(tmp_path, decks={p: list(c) for p, c in DECKS.items()})
    seen = set_up(service.table)
    seen["T2"] = StandValue("soul", "red", 1)  # a soul on the board the record does not have
    service.table.observe(dict(seen))
    assert not service.snapshot()["in_sync"]
    tokens = service.join_tokens()
    with running(service) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, bypass_csp=True).new_page()
        page.goto(f"http://127.0.0.1:{server.port}/play?t={tokens['red']}")
        page.wait_for_selector("#conn.on", timeout=30_000)
        assert page.is_hidden("#camera-board")
        page.click("#camera-toggle")
        assert page.get_attribute("#camera-toggle", "aria-pressed") == "true"
        page.wait_for_selector("#overlay-camera g.token[data-stand='T2']", timeout=30_000)
        assert page.locator("#overlay-camera circle.differs[data-stand='T2']").count() == 1
        assert page.locator("#overlay g.token[data-stand='T2']:not(.ghost)").count() == 0  # the record's view
        assert "difference" in (page.text_content("#camera-caption") or "")
        toggle = page.locator("#camera-toggle").bounding_box()
        assert toggle is not None and toggle["height"] >= 44
        if AXE.is_file():
            assert serious_violations(page) == []
        page.screenshot(path=str(artifacts_dir / "camera-view-phone.png"), full_page=True)
        page.click("#camera-toggle")
        assert page.is_hidden("#camera-board")
        browser.close()
