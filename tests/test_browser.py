"""The phone page in a real headless Chromium (Debian's `chromium`, driven by Playwright)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tracker.runtime.demo import DemoTable
from tracker.runtime.server import WebServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture()
def page_url() -> Iterator[tuple[str, DemoTable]]:
    demo = DemoTable(fps=None, repeat=False, hand_frames=1, settled_frames=3)
    server = WebServer(demo.service, "127.0.0.1", 0)
    server.start()
    yield f"http://127.0.0.1:{server.port}/", demo
    demo.stop.set()
    server.shutdown()


def test_phone_page_shows_moves_and_flags_the_illegal_one(page_url: tuple[str, DemoTable],
                                                          artifacts_dir: Path) -> None:
    from playwright.sync_api import sync_playwright

    url, demo = page_url
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 412, "height": 915})  # a phone
        page.goto(url)
        page.wait_for_selector("#conn.on", timeout=30_000)
        first_version = int(page.get_attribute("body", "data-version") or "0")
        demo.start()
        # The rejection and the out-of-sync banner arrive in the same state, so both are on the page at once.
        page.wait_for_selector("#sync.out", timeout=90_000)
        page.screenshot(path=str(artifacts_dir / "phone-out-of-sync.png"))
        rejected = page.locator("#log li.rejected").first.text_content() or ""
        assert "T1-M5" in rejected and "#movement" in rejected and "cannot reach M5" in rejected
        banner = page.text_content("#sync") or ""
        assert "out of sync" in banner and "M5" in banner
        page.wait_for_selector("#log li.accepted:has-text('M9-M8')", timeout=90_000)
        assert int(page.get_attribute("body", "data-version") or "0") > first_version
        # the banner clears once the camera's board agrees with the record again (the next settled frames)
        page.wait_for_selector("#sync.hidden", state="attached", timeout=30_000)
        assert page.locator("g.token.soul[data-stand='M8'][data-owner='red']").count() == 1
        page.screenshot(path=str(artifacts_dir / "phone-after-moves.png"))
        browser.close()
