"""A roll the camera read reaches the phones as "read N - confirm" (issue 21, item 3): over a real
Socket.IO connection the roller and the opponent see it (spectators do not), one tap records it with
source camera; the judge sees the anti-cheat flags; in headless Chromium a phone confirms with one tap."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.test_browser import CHROMIUM, CHROMIUM_ARGS
from tests.test_dice_roll import Die, rest
from tests.test_web_support import PIN, auth_for, new_service, running
from tracker.runtime.demo_script import DECKS
from tracker.service.service import TableService
from tracker.table.dice_roll import DiceDesk
from web.app import create_app
from web.namespace import NAMESPACE, Limits


def service_with_a_reading(tmp_path: Path) -> TableService:
    service = new_service(tmp_path, decks={p: list(c) for p, c in DECKS.items()})
    for line in ("red affinity Avian", "blue affinity Decrepit"):
        assert service.table.act(f"phone:{line.split()[0]}", line).accepted
    service.dice = DiceDesk(service.table)
    rest(service.dice, Die("d6", "5", "red"))
    return service


def test_phones_see_the_reading_and_one_tap_records_it_with_source_camera(tmp_path: Path) -> None:
    service = service_with_a_reading(tmp_path)
    app, sio = create_app(service, Limits(rate_per_s=1000.0, burst=1000))
    red, blue, _judge, spectator = (sio.test_client(app, namespace=NAMESPACE, auth=auth_for(service, who))
                                   for who in ("red", "blue", "judge", "spectator"))
    [reading] = service.snapshot(service.authenticate(service.join_tokens()["red"], None, False))["camera_rolls"]
    assert reading["label"] == "read 5" and reading["player"] == "red"
    assert "camera_rolls" not in service.snapshot()  # a spectator's view
    denied = spectator.emit("confirm_roll", {"id": reading["id"]}, namespace=NAMESPACE, callback=True)
    assert not denied["ok"] and denied["kind"] == "denied"
    ack = blue.emit("confirm_roll", {"id": reading["id"]}, namespace=NAMESPACE, callback=True)
    assert ack["ok"] and ack["entry"]["source"] == "camera" and ack["entry"]["action"] == "red roll d6 5"
    again = red.emit("confirm_roll", {"id": reading["id"]}, namespace=NAMESPACE, callback=True)
    assert not again["ok"] and "no camera reading" in again["error"]
    # blue types a different result for its own die: flagged for the judge, a question, nothing applied
    rest(service.dice, Die("d6", "2", "blue"))  # type: ignore[arg-type]
    typed = blue.emit("act", {"text": "blue roll d6 6"}, namespace=NAMESPACE, callback=True)
    assert typed["ok"] and not typed["entry"]["accepted"] and "camera read" in typed["entry"]["message"]
    assert service.table.game.state.players["blue"].rolloff is None
    judge_log = service.entries_since(service.authenticate(None, PIN, False), 0)
    red_log = service.entries_since(service.authenticate(service.join_tokens()["red"], None, False), 0)
    assert any(e["kind"] == "flag" and "camera read 2" in e["action"] for e in judge_log)
    assert not any(e["kind"] == "flag" for e in red_log)  # flags are the judges'
    assert any(e["kind"] == "dice" for e in red_log)  # the camera's readings are everyone's at the table


@pytest.mark.browser
def test_a_phone_confirms_the_cameras_reading_with_one_tap(tmp_path: Path) -> None:
    service = service_with_a_reading(tmp_path)
    token = service.join_tokens()["red"]
    with running(service) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
        page.goto(f"http://127.0.0.1:{server.port}/play?t={token}")
        button = page.locator("button.confirm-roll")
        button.wait_for(timeout=30_000)
        assert button.inner_text().startswith("read 5")
        button.tap()
        page.locator("button.confirm-roll").wait_for(state="detached", timeout=30_000)
        browser.close()
    entry = service.table.entries()[-1]
    assert (entry.source, entry.text, entry.accepted) == ("camera", "red roll d6 5", True)
    assert service.table.game.state.players["red"].rolloff == 5
