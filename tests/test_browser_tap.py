"""Phones people use with their thumbs, in headless Chromium at phone size (390x844): the demo game
played from start to night fall by tapping only (the players never type notation; the board is what
the overhead camera reports), every touch target at least 44 px, and axe-core (from the npm registry,
`scripts/setup.sh --with-browser` puts it in build/axe) finding no serious or critical violation on any
page at phone and desktop size."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

import pytest
from playwright.sync_api import ViewportSize, sync_playwright

from tests.table_helpers import empty_board, exact_mat
from tests.test_browser import CHROMIUM, CHROMIUM_ARGS
from tests.test_web_support import PIN, new_service, running
from tracker.runtime.demo_script import DECKS, demo_steps
from tracker.service.service import TableService
from tracker.table.board import StandValue

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
AXE = Path(__file__).resolve().parents[1] / "build" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
TARGETS = "button, input, select, summary, a, [role=button]"


def tap_line(page: Any, line: str) -> None:
    """Say `line` with taps only: the dice pad, the draw picker or the choice path the page offers."""
    words = line.split()
    if words[1] == "roll" and words[2] != "diel":
        prefix = " ".join(words[:3])
        for face in words[3].lstrip("=").split(","):
            page.click(f"#choices .pad[data-prefix='{prefix}'] button[data-face='{face}']", timeout=30_000)
    elif words[1] == "draw":
        for card in words[2].split(","):
            page.click(f"#choices .draw-picker button[data-card='{card}']", timeout=30_000)
    elif page.locator(f"button.answer[data-line='{line}']").count():
        page.click(f"button.answer[data-line='{line}']", timeout=30_000)  # a question's answer
    else:
        for word in words[1:]:
            page.click(f"#choices .tree button[data-word='{word}']", timeout=30_000)


def wait_recorded(service: TableService, line: str, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(e.text == line and e.accepted for e in service.table.entries()[-12:]):
            return
        time.sleep(0.05)
    raise AssertionError(f"{line!r} was not recorded as accepted; last: {service.table.entries()[-3:]}")


SMALL_TARGETS_JS = """(sel) => [...document.querySelectorAll(sel)].filter((el) => {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    if (!r.width || !r.height || s.visibility === "hidden") return false;
    return r.height < 44 || r.width < 44;
  }).map((el) => {
    const r = el.getBoundingClientRect(), text = (el.textContent || el.value || "").trim().slice(0, 30);
    const size = `${Math.round(r.width)}x${Math.round(r.height)}`;
    return `${el.tagName.toLowerCase()}#${el.id}.${el.className} '${text}' ${size}`;
  })"""


def small_targets(page: Any) -> list[str]:
    return list(page.evaluate(SMALL_TARGETS_JS, TARGETS))


def serious_violations(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => (await axe.run(document, { resultTypes: ["violations"] })).violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`)""")
    return list(found)


def test_a_whole_demo_game_by_tapping_only(tmp_path: Path, artifacts_dir: Path) -> None:
    service = new_service(tmp_path, decks={p: list(c) for p, c in DECKS.items()})
    tokens = service.join_tokens()
    with running(service) as server, sync_playwright() as pw:
        base = f"http://127.0.0.1:{server.port}"
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        phones = {}
        for seat in ("red", "blue"):
            page = browser.new_page(viewport=PHONE, has_touch=True, is_mobile=True)
            page.goto(f"{base}/play?t={tokens[seat]}")
            page.wait_for_selector("#conn.on", timeout=30_000)
            phones[seat] = page
        said = []
        for step in demo_steps():
            for line in step.say:
                seat = line.split()[0]
                if seat == "judge":  # the judge's word (a printed allowance) comes from the judge page
                    assert service.table.act("judge", line).accepted, line
                    continue
                phones[seat].wait_for_function("(v) => Number(document.body.dataset.seq) >= v",
                                               arg=service.table.record.last_seq, timeout=30_000)
                tap_line(phones[seat], line)
                wait_recorded(service, line)
                said.append(line)
            seen = empty_board()
            for stand, (kind, owner, count) in step.tokens.items():
                seen[stand] = StandValue(kind, owner, count)
            for card in step.shown:
                service.table.shown("front", card)  # a card shown to the front camera
            service.table.observe(seen)  # what the overhead camera reports once the hands are gone
            service.table.observe_mat(exact_mat(step))
        assert service.table.game.state.phase == "night", service.table.game.state.phase
        phone_lines = [e.text for e in service.table.entries() if e.source.startswith("phone:") and e.accepted]
        assert phone_lines == said
        for seat, page in phones.items():
            assert page.input_value("#action") == "", "nothing was typed"
            page.screenshot(path=str(artifacts_dir / f"tap-{seat}-night.png"), full_page=True)
        browser.close()


def test_touch_targets_and_accessibility_on_every_page(tmp_path: Path, artifacts_dir: Path) -> None:
    assert AXE.is_file(), f"{AXE} is missing: run scripts/setup.sh --with-browser (installs axe-core from npm)"
    service = new_service(tmp_path, decks={p: list(c) for p, c in DECKS.items()})
    for line in ("red affinity Avian", "blue affinity Decrepit", "red roll d6 5"):
        service.table.act(f"phone:{line.split()[0]}", line)
    tokens = service.join_tokens()
    problems: list[str] = []
    with running(service) as server, sync_playwright() as pw:
        base = f"http://127.0.0.1:{server.port}"
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        sizes: list[tuple[str, ViewportSize, Literal["light", "dark"]]] = [
            ("phone", PHONE, "light"), ("desktop", DESKTOP, "light"), ("phone-dark", PHONE, "dark")]
        for size_name, size, scheme in sizes:
            # bypass_csp: so the test can inject axe (the pages themselves need no inline script)
            context = browser.new_context(viewport=size, bypass_csp=True, color_scheme=scheme)
            # The judge page on the Pi itself first tries an empty PIN, which counts against the address:
            # hand it the PIN as a judge who logged in before would have it.
            context.add_init_script(f"sessionStorage.setItem('kipukas-pin', '{PIN}')")
            pages = {"player": f"{base}/play?t={tokens['blue']}", "spectator": f"{base}/watch?t={tokens['spectator']}",
                     "overlay": f"{base}/overlay?t={tokens['spectator']}", "judge": f"{base}/judge",
                     "replay": f"{base}/replay?row=3", "calibration": f"{base}/calibration",
                     "organise": f"{base}/organise"}
            page = context.new_page()
            for name, url in pages.items():
                if name != "replay":  # the replay opens in the judge's tab, which holds the judge key
                    page.close()
                    page = context.new_page()
                page.goto(url)
                if name == "replay":
                    page.wait_for_selector("#row li", timeout=30_000)
                    assert page.text_content("#row-title") == "Row 3 of 4"
                    page.click("#next")
                    page.wait_for_selector("#row-title:has-text('Row 4 of 4')", timeout=30_000)
                elif name not in ("calibration", "overlay", "organise"):
                    try:
                        page.wait_for_selector("#conn.on", timeout=30_000)
                    except Exception as exc:
                        page.screenshot(path=str(artifacts_dir / f"a11y-failed-{size_name}-{name}.png"))
                        raise AssertionError(f"{size_name} {name}: not connected") from exc
                page.wait_for_timeout(300)
                problems += [f"{size_name} {name}: {v}" for v in serious_violations(page)]
                if size_name.startswith("phone"):
                    problems += [f"{size_name} {name}: touch target {t}" for t in small_targets(page)]
                page.screenshot(path=str(artifacts_dir / f"a11y-{size_name}-{name}.png"))
            page.close()
            context.close()
        browser.close()
    assert not problems, "\n".join(problems)
