"""The generic game page in headless Chromium at phone size (390x844): a few turns of Colossal Kaiju
Combat (after its set-up draws, which the demo plays itself) and of the tile-map game played by tapping
the buttons the rules listed, on each seat's own phone; every tap lands in the signed record, each phone
shows its own hand and only the size of the other's, every touch target is at least 44 px, and axe-core
finds no serious or critical violation (red's phone lets the test inject axe; blue's keeps the page's
content security policy, so the page is shown to work under it)."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import ViewportSize, sync_playwright

from rules.core.selfplay import choose
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS
from tests.test_browser_tap import AXE, serious_violations, small_targets
from tracker.runtime.game_runtime import DemoGame
from tracker.runtime.server import WebServer
from web.namespace import Limits

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PHONE: ViewportSize = {"width": 390, "height": 844}
FAST = Limits(rate_per_s=1000.0, burst=1000, seat_rate_per_s=1000.0, seat_burst=1000)
SEEN = "(v) => Number(document.body.dataset.version) >= v"  # the page drew the state of version v
HAND = {"kaiju": "combat_hand", "tilemap": "hand"}


def wait_rows(demo: DemoGame, rows: int, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if demo.table.record.last_seq >= rows:
            return
        time.sleep(0.05)
    raise AssertionError(f"row {rows} was not recorded; the record has {demo.table.record.last_seq}")


def seat_to_act(demo: DemoGame) -> str:
    with demo.table.lock:
        return demo.table.game.legal_actions()[0].split()[0]


def test_a_few_turns_of_each_game_by_tapping_on_two_phones(tmp_path: Path, artifacts_dir: Path) -> None:
    assert AXE.is_file(), f"{AXE} is missing: run scripts/setup.sh --with-browser (installs axe-core from npm)"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name in ("kaiju", "tilemap"):
            play_by_taps(browser, tmp_path / name, name, artifacts_dir)
        browser.close()


def play_by_taps(browser: Any, folder: Path, name: str, artifacts_dir: Path) -> None:
    folder.mkdir()
    demo = DemoGame(name, folder=folder, seed=3)
    server = WebServer(demo.service, "127.0.0.1", 0, limits=FAST)
    server.start()
    rng = random.Random(11)
    try:
        phones: dict[str, Any] = {}
        for seat in ("red", "blue"):
            page = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                       bypass_csp=seat == "red").new_page()
            page.goto(f"http://127.0.0.1:{server.port}/play?t={demo.service.seats.tokens[seat]}")
            page.wait_for_selector("#actions", state="attached")
            phones[seat] = page
        while demo.table.game.view("judge").get("phase") == "setup":
            assert demo.step()  # kaiju's 20 set-up draws are the demo's own random play; turns are tapped
        for step in range(5):
            seat = seat_to_act(demo)
            page = phones[seat]
            page.wait_for_function(SEEN, arg=demo.service.version(), timeout=30_000)
            lines = [str(x) for x in page.eval_on_selector_all("#actions button[data-line]",
                                                              "els => els.map((e) => e.dataset.line)")]
            assert lines and all(line.startswith(f"{seat} ") for line in lines), (seat, lines)
            line = choose(lines, rng, {"keep": 3.0, "pass": 0.2, "end": 0.3})
            rows = demo.table.record.last_seq
            page.tap(f"#actions button[data-line='{line}']")
            wait_rows(demo, rows + 1)
            last = next(demo.table.record.rows(after=rows))
            assert last.body["text"] == line and last.body["accepted"] and last.source == f"phone:{seat}", step
        for seat, page in phones.items():
            other = "blue" if seat == "red" else "red"
            page.wait_for_function(SEEN, arg=demo.service.version(), timeout=30_000)
            hand = HAND[name]
            own = page.text_content(f"dl[data-seat='{seat}'] dd[data-key='{hand}']") or ""
            theirs = page.text_content(f"dl[data-seat='{other}'] dd[data-key='{hand}']") or ""
            assert theirs.strip().isdigit(), (seat, theirs)  # the other's hand: only how many cards
            mine = demo.table.game.view(seat)["players"]
            assert isinstance(mine, dict)
            cards = mine[seat][hand]
            assert isinstance(cards, list) and all(card in own for card in cards), (own, cards)
            assert small_targets(page) == [], small_targets(page)
            if seat == "red" and name == "tilemap":  # the richer page: map, stack, hand, buttons
                assert serious_violations(page) == []  # axe-core: no serious or critical violation
            if name == "tilemap":
                assert page.locator("#grid .tile").count() == 49  # the 7x7 skirmish map, drawn from the view
            page.screenshot(path=str(artifacts_dir / f"game-{name}-{seat}.png"))
            page.context.close()
    finally:
        server.shutdown()
        demo.table.record.close()
