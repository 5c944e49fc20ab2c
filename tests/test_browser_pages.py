"""The player and judge pages in headless Chromium: join by URL, answer prompts with the page's own
buttons (dice, a trap's condition, the secret means choice), see moves arrive, and judge an undo.

Screenshots go to test-artifacts/; with KIPUKAS_UPDATE_SCREENSHOTS=1 they also refresh docs/screenshots/.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import CHROMIUM, CHROMIUM_ARGS
from tests.test_web_support import PIN, golden_script, new_service, running
from tracker.service.service import TableService

pytestmark = [pytest.mark.browser, pytest.mark.slow]
DOCS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
PHONE = {"width": 412, "height": 915}


@pytest.fixture()
def site(tmp_path: Path) -> Iterator[tuple[str, TableService]]:
    service = new_service(tmp_path)
    with running(service) as server:
        yield f"http://127.0.0.1:{server.port}", service


def shoot(page: Any, artifacts: Path, name: str) -> None:
    page.screenshot(path=str(artifacts / name))
    if os.environ.get("KIPUKAS_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copy(artifacts / name, DOCS / name)


def say(service: TableService, lines: list[str]) -> None:
    for line in lines:
        service.table.act(f"phone:{line.split()[0]}", line)


def test_players_answer_prompts_and_choose_means_in_secret(site: tuple[str, TableService],
                                                           artifacts_dir: Path) -> None:
    from playwright.sync_api import sync_playwright

    base, service = site
    _, lines = golden_script()
    tokens = service.join_tokens()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        red = browser.new_page(viewport=PHONE)
        blue = browser.new_page(viewport=PHONE)
        red.goto(f"{base}/play?t={tokens['red']}")
        blue.goto(f"{base}/play?t={tokens['blue']}")
        red.wait_for_selector("#conn.on", timeout=30_000)
        blue.wait_for_selector("#conn.on", timeout=30_000)
        assert red.text_content("#title") == "Kipukas · you are red"
        assert red.url == f"{base}/play"          # the token left the address bar...
        red.reload()
        red.wait_for_selector("#conn.on", timeout=30_000)
        red.wait_for_function("document.getElementById('title').textContent.endsWith('you are red')")  # ...not the tab
        say(service, lines[0:2])
        # The capital roll-off prompt has a dice field: red enters a 3 and sends it.
        red.fill("#my-prompts input.dice", "3")
        red.click("#my-prompts form.answer button")
        red.wait_for_selector("#log li.accepted:has-text('red roll d6 3')", timeout=30_000)
        say(service, lines[3:29])
        # A move made at the table shows on red's map.
        red.wait_for_selector("g.token.soul[data-stand='M7b'][data-owner='red']", timeout=30_000)
        say(service, lines[29:31])
        # Blue entered red's territory with a face-down trap in it: red answers by the trap's condition.
        red.click("#my-prompts button[data-line='red trap K-LE#0001 idle']")
        red.wait_for_selector("#log li.accepted:has-text('red trap K-LE#0001 idle')", timeout=30_000)
        assert "Cartesian Sea" in (red.text_content("#mat") or "")       # red's own face-down trap, by name
        assert "Cartesian Sea" not in (blue.text_content("body") or "")  # ...only a face-down card to blue
        say(service, lines[32:34])
        blue.click("#means button.means-choice[data-index='1']")
        red.wait_for_selector("#bout li[data-side='attack']:has-text('chosen, hidden until both have chosen')",
                              timeout=30_000)
        assert red.locator("#means button.means-choice").count() >= 1
        assert "blue means SWyA#0001 (Gray Wolf: Harbinger of Night) (secret)" in (red.text_content("#log") or "")
        shoot(red, artifacts_dir, "player-phone.png")
        red.click("#means button.means-choice[data-index='1']")
        for page in (red, blue):
            page.wait_for_selector("#bout li[data-side='attack']:has-text('means 1 (Haunted Howl Coordination)')",
                                   timeout=30_000)
        assert "blue means SWyA#0001 (Gray Wolf: Harbinger of Night) 1" in (red.text_content("#log") or "")
        # Every answer given on a page was recorded once, in the script's order.
        assert [e.text for e in service.table.entries() if e.kind == "action"] == lines[:36]
        browser.close()


def test_judge_sees_everything_and_undoes_with_a_reason(site: tuple[str, TableService], artifacts_dir: Path) -> None:
    from playwright.sync_api import sync_playwright

    base, service = site
    _, lines = golden_script()
    say(service, lines[:22])
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        # Playwright's wait_for_function evaluates its predicate with eval, which the pages' CSP forbids;
        # the CSP itself is tested in tests/test_browser_injection.py.
        page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page.goto(f"{base}/judge")
        page.fill("#pin", "0000")
        page.click("#pin-form button")
        page.wait_for_selector("#notice.bad:has-text('wrong judge PIN')", timeout=30_000)
        page.fill("#pin", PIN)
        page.click("#pin-form button")
        page.wait_for_selector("#conn.on", timeout=30_000)
        page.wait_for_selector("#qr figure[data-who='spectator'] img", timeout=30_000)
        page.wait_for_function("[...document.querySelectorAll('#qr img')].every(i => i.complete && i.naturalWidth > 0)",
                               timeout=30_000)
        assert page.locator("#qr figure").count() == 3
        assert tokens_shown(page, service)
        assert "card ZrrD#0001 blue" in (page.text_content("#state-text") or "")   # face-down to players
        assert "K_vJ#0001" in (page.text_content("#hands") or "")                   # blue's hand
        assert page.get_attribute("a[href='/calibration']", "href") == "/calibration"
        page.fill("#undo-reason", "the wrong card was played")
        page.click("#undo-form button")
        page.wait_for_selector("#log li:has-text('undone by judge')", timeout=30_000)
        assert service.table.entries()[-1].kind == "undo"
        assert service.table.entries()[-1].message == "the wrong card was played"
        shoot(page, artifacts_dir, "judge.png")
        browser.close()


def tokens_shown(page: Any, service: TableService) -> bool:
    text = page.text_content("#qr") or ""
    return all(token in text for token in service.join_tokens().values())
