"""Script injection, defence in depth (issue 16, item 7), in a real headless Chromium: markup sent through
every input of the pages (phone action, judge PIN, undo and correction reasons, correction and judge
actions, the seat token in a link, warnings from configuration strings, the calibration page's stands)
runs nothing, and no Content-Security-Policy violation is reported; every response carries the policy
and the usual security headers. The judge page shows the table key's fingerprint and every page keeps
the latest signed head it saw."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from rules.kipukas.board_map import BoardMap
from tests.table_helpers import DECKS, KEY
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS
from tracker.record.keys import fingerprint
from tracker.record.store import GameRecord
from tracker.runtime.server import WebServer
from tracker.service.seats import Seats
from tracker.service.service import TableService
from tracker.table.table import Table
from web.app import SECURITY_HEADERS

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PIN = "8642"
PAYLOADS = ['<img src=x onerror="window.__pwned=(window.__pwned||0)+1">',
            '<svg onload="window.__pwned=(window.__pwned||0)+1"></svg>',
            '"><img src=x onerror=window.__pwned=1>',
            "'><svg/onload=window.__pwned=1>",
            "<script>window.__pwned=1</script>",
            "javascript:window.__pwned=1"]
WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
                          (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));
"""


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[tuple[WebServer, TableService]]:
    table = Table(BoardMap.packaged(), GameRecord(str(tmp_path / "game.sqlite"), KEY), DECKS)
    service = TableService(table, Seats(("red", "blue"), judge_pin=PIN))
    web = WebServer(service, "127.0.0.1", 0)
    web.start()
    yield web, service
    web.shutdown()


def clean(page: Any) -> None:
    assert page.evaluate("window.__pwned") is None, "injected script ran"
    assert page.evaluate("window.__csp") == [], "a Content-Security-Policy violation was reported"


def submit(page: Any, fields: dict[str, str], button: str) -> None:
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")  # "Advanced"
    for selector, value in fields.items():
        page.fill(selector, value)
    page.click(button)
    page.wait_for_timeout(150)


def test_injected_markup_runs_nothing(server: tuple[WebServer, TableService], artifacts_dir: Path) -> None:
    from playwright.sync_api import sync_playwright

    web, service = server
    base = f"http://127.0.0.1:{web.port}"
    service.table.act("phone:red", "red affinity Avian")  # something the judge may undo
    for payload in PAYLOADS:
        service.table.warn(f"overhead camera {payload} lost")  # configuration strings reach warnings
    dialogs: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context()
        context.add_init_script(WATCH)
        context.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        judge = context.new_page()
        response = judge.goto(f"{base}/judge")
        assert response is not None
        for name, value in SECURITY_HEADERS.items():
            assert response.headers.get(name.lower()) == value
        csp = SECURITY_HEADERS["Content-Security-Policy"]
        assert "unsafe-eval" not in csp and "script-src 'self';" in csp
        submit(judge, {"#pin": PAYLOADS[0]}, "#pin-form button")  # a wrong PIN: the refusal echoes nothing
        submit(judge, {"#pin": PIN}, "#pin-form button")
        judge.wait_for_selector("#conn.on", timeout=30_000)
        for payload in PAYLOADS:
            submit(judge, {"#action": f"red affinity {payload}"}, "#action-form button")
            submit(judge, {"#correct-target": "2", "#correct-text": f"red reveal {payload}",
                           "#correct-reason": payload}, "#correct-form button")
        submit(judge, {"#undo-reason": " ".join(PAYLOADS)[:300]}, "#undo-form button")
        judge.wait_for_selector("#log li:has-text('undone by judge')", timeout=30_000)
        assert "<img src=x" in (judge.text_content("#log") or "")  # shown as text
        assert "overhead camera <svg" in (judge.text_content("#warnings") or "")
        # the table key's fingerprint, and the signed head kept for download
        judge.wait_for_selector("#witness a", timeout=30_000)
        assert fingerprint(KEY) in (judge.text_content("#witness") or "")
        kept = judge.evaluate("Object.entries(localStorage).filter(([k]) => k.startsWith('kipukas-signed-head:'))")
        head = json.loads(kept[0][1])
        assert head["seq"] == service.table.record.last_seq and head["signature"]
        judge.screenshot(path=str(artifacts_dir / "judge-after-injection.png"))
        clean(judge)
        for payload in PAYLOADS:  # a seat token in a link
            phone = context.new_page()
            phone.goto(f"{base}/play?t={quote(payload)}")
            phone.wait_for_selector("#conn.off", timeout=30_000)
            clean(phone)
            phone.close()
        phone = context.new_page()
        phone.goto(f"{base}/play?t={quote(service.join_tokens()['blue'])}")
        phone.wait_for_selector("#conn.on", timeout=30_000)
        for payload in PAYLOADS:
            submit(phone, {"#action": f"blue reveal {payload}"}, "#action-form button")
            submit(phone, {"#action": payload}, "#action-form button")
        phone.wait_for_selector("#witness a", timeout=30_000)
        clean(phone)
        key = service.judge_key()
        calibration = context.new_page()
        response = calibration.goto(f"{base}/calibration?k={quote(key)}")
        assert response is not None and response.headers.get("content-security-policy") == csp
        calibration.wait_for_timeout(500)
        for payload in PAYLOADS:
            result = calibration.evaluate(
                """async ([k, p]) => (await fetch(`/calibration/colours?k=${encodeURIComponent(k)}`,
                   {method: "POST", headers: {"Content-Type": "application/json"},
                    body: JSON.stringify({samples: {[p.slice(0, 8)]: "red", T7: p.slice(0, 16)}})})).status""",
                [key, payload])
            assert result == 400
        clean(calibration)
        browser.close()
    assert dialogs == []


@pytest.mark.parametrize("path", ["/", "/play", "/judge", "/calibration", "/static/common.js", "/map.jpg",
                                  "/socket.io/?EIO=4&transport=polling", "/no-such-page"])
def test_every_response_carries_the_security_headers(server: tuple[WebServer, TableService], path: str) -> None:
    import urllib.error
    import urllib.request

    web, _ = server
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{web.port}{path}", timeout=10) as r:
            headers = r.headers
    except urllib.error.HTTPError as exc:
        headers = exc.headers
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name) == value, (path, name)
