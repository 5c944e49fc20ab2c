"""The calibration page: judges only, the overlay of the current frame, nudged corners applied at once;
and in headless Chromium a judge drags a corner handle and saves."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from calibration.procedure import drift_px
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS
from tracker.overhead.calibration_service import mat_corners_world
from tracker.runtime.demo import DemoTable
from tracker.runtime.server import WebServer
from vision.synth import TableScene, Token


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoTable]:
    demo = DemoTable(fps=None, repeat=False)
    demo.latest = demo.renderer.render(TableScene({}), seed=1)  # the frame the page shows
    yield demo


def test_http_routes_are_judge_only_and_apply_corners(demo: DemoTable) -> None:
    from web.app import create_app

    app, _ = create_app(demo.service)
    client = app.test_client()
    assert client.get("/calibration/state").status_code == 403
    assert client.get("/calibration/overlay.jpg?k=wrong").status_code == 403
    key = demo.service.judge_key()
    state = client.get(f"/calibration/state?k={key}").get_json()
    assert state["has_frame"] and len(state["corners"]) == 4
    image = client.get(f"/calibration/overlay.jpg?k={key}")
    assert image.status_code == 200 and image.data[:2] == b"\xff\xd8"
    bad = client.post(f"/calibration/corners?k={key}", json={"corners": [[0, 0]]})
    assert bad.status_code == 400 and "expected" in bad.get_json()["error"]
    twisted = client.post(f"/calibration/corners?k={key}", json={"corners": [[0, 0], [100, 0], [0, 100], [100, 100]]})
    assert twisted.status_code == 400 and not twisted.get_json()["ok"]
    true_corners = demo.renderer.pose.project(mat_corners_world(demo.layout)).tolist()
    moved = [[x + 12, y - 9] for x, y in true_corners]
    ok = client.post(f"/calibration/corners?k={key}", json={"corners": moved}).get_json()
    assert ok["ok"] and ok["method"] == "manual" and drift_px(demo.pose, demo.renderer.pose, demo.layout) > 5
    client.post(f"/calibration/corners?k={key}", json={"corners": true_corners})
    assert drift_px(demo.pose, demo.renderer.pose, demo.layout) < 1.0  # the reader follows at once


@pytest.mark.browser
def test_judge_drags_a_corner_and_saves(demo: DemoTable, artifacts_dir: Path) -> None:
    from playwright.sync_api import sync_playwright

    server = WebServer(demo.service, "127.0.0.1", 0)
    server.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(f"http://127.0.0.1:{server.port}/calibration")  # local judge, no PIN set
            page.wait_for_selector("g.handle[data-corner='2']", timeout=30_000)
            # a locator's own wait, not wait_for_function: that evaluates a string, which the page's CSP forbids
            page.locator("#frame").evaluate("(img) => img.decode()")
            assert page.locator("#frame").evaluate("(img) => img.complete && img.naturalWidth > 0")
            box = page.locator("g.handle[data-corner='2']").bounding_box()
            assert box is not None
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + 6, y + 4, steps=4)
            page.mouse.up()
            page.click("#save")
            page.wait_for_selector("#result.ok", timeout=30_000)
            assert "manual" in (page.text_content("#result") or "")
            page.screenshot(path=str(artifacts_dir / "calibration-page.png"))
            browser.close()
    finally:
        server.shutdown()


def test_colours_are_learned_from_tokens_on_named_stands(tmp_path: Path) -> None:
    from web.app import create_app

    demo = DemoTable(fps=None, repeat=False, folder=tmp_path / "demo")
    true = {"red": (40, 40, 210), "blue": (200, 90, 30)}
    demo.palette = {"red": (0, 0, 255), "blue": (255, 0, 0)}  # wrong on purpose: learning fixes them
    demo.latest = demo.renderer.render(TableScene({"T7": Token("capital", "red"), "T4": Token("capital", "blue")}),
                                       seed=4)
    app, _ = create_app(demo.service)
    client = app.test_client()
    key = demo.service.judge_key()
    assert client.post("/calibration/colours", json={"samples": {"T7": "red"}}).status_code == 403
    bad = client.post(f"/calibration/colours?k={key}", json={"samples": {"ZZ": "red"}})
    assert bad.status_code == 400 and "unknown stand" in bad.get_json()["error"]
    assert client.post(f"/calibration/colours?k={key}", json={"samples": []}).status_code == 400
    out = client.post(f"/calibration/colours?k={key}", json={"samples": {"T7": "red", "T4": "blue"}}).get_json()
    assert out["ok"]
    for seat, bgr in true.items():
        assert max(abs(a - b) for a, b in zip(demo.palette[seat], bgr, strict=True)) < 40, (seat, demo.palette)
    # The reader uses the learned colours at once: the tokens read as their owners'.
    seen = demo.reader.read(demo.latest)
    assert (seen.stands["T7"].owner, seen.stands["T4"].owner) == ("red", "blue")
    assert client.get(f"/calibration/state?k={key}").get_json()["palette"]["red"].startswith("#")


def test_palette_file_round_trip_and_bad_file(tmp_path: Path) -> None:
    from tracker.errors import InputError
    from tracker.overhead import palettes as palette_store

    assert palette_store.load(tmp_path, ("red", "blue")) is None
    palette_store.save(tmp_path, {"red": (1, 2, 3), "blue": (4, 5, 6)})
    assert palette_store.load(tmp_path, ("red", "blue")) == {"red": (1, 2, 3), "blue": (4, 5, 6)}
    assert palette_store.load(tmp_path, ("red", "green")) is None  # a seat not learned yet
    (tmp_path / "palette.json").write_text("[1, 2")
    with pytest.raises(InputError, match="not a palette"):
        palette_store.load(tmp_path, ("red", "blue"))
    with pytest.raises(InputError, match="no nominal colour"):
        palette_store.nominal(("red", "teal"))


@pytest.mark.browser
def test_handles_fit_a_finger_and_the_page_gives_a_verdict(demo: DemoTable, artifacts_dir: Path) -> None:
    from playwright.sync_api import sync_playwright

    from tests.test_browser_tap import AXE, PHONE, serious_violations

    key = demo.service.judge_key()
    from web.app import create_app

    client = create_app(demo.service)[0].test_client()
    true_corners = demo.renderer.pose.project(mat_corners_world(demo.layout)).tolist()
    saved = client.post(f"/calibration/corners?k={key}", json={"corners": true_corners}).get_json()
    assert saved["quality"]["verdict"] == "good" and saved["quality"]["reprojection_error_px"] <= 1.0
    off = [[x + dx, y] for (x, y), dx in zip(true_corners, (0, 0, 0, 9), strict=True)]  # one corner 9 px off
    poor = client.post(f"/calibration/corners?k={key}", json={"corners": off}).get_json()["quality"]
    assert poor["verdict"] in ("usable", "poor") and poor["reprojection_error_px"] > 1.0 and poor["advice"]
    state = client.get(f"/calibration/state?k={key}").get_json()
    assert state["quality"] == poor  # what the page shows is the calibration in use
    client.post(f"/calibration/corners?k={key}", json={"corners": true_corners})
    server = WebServer(demo.service, "127.0.0.1", 0)
    server.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, bypass_csp=True)
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{server.port}/calibration")
            page.wait_for_selector("g.handle[data-corner='3']", timeout=30_000)
            assert "Calibration quality: good" in (page.text_content("#quality") or "")
            for i in range(4):
                box = page.locator(f"g.handle[data-corner='{i}'] circle.ring").bounding_box()
                assert box is not None and box["width"] >= 44 and box["height"] >= 44, (i, box)
            ring = "g.handle[data-corner='3'] circle.ring"
            x0 = float(page.get_attribute(ring, "cx") or "nan")
            page.focus("g.handle[data-corner='3']")
            for _ in range(9):
                page.keyboard.press("ArrowRight")  # nudged by a pixel of the picture at a time
            assert abs(float(page.get_attribute(ring, "cx") or "nan") - (x0 + 9)) < 0.01
            page.click("#save")
            page.wait_for_selector("#result.ok", timeout=30_000)
            assert "(good)" not in (page.text_content("#result") or "")
            page.wait_for_function("() => !document.getElementById('quality').textContent.includes(': good')")
            assert client.get(f"/calibration/state?k={key}").get_json()["quality"]["verdict"] != "good"
            if AXE.is_file():
                assert serious_violations(page) == []
            page.screenshot(path=str(artifacts_dir / "calibration-phone.png"), full_page=True)
            browser.close()
    finally:
        server.shutdown()
        client.post(f"/calibration/corners?k={key}", json={"corners": true_corners})
