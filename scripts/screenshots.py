"""Regenerate the README's screenshots: a real table (its record on disk, the web server) part-way
through the golden game, photographed in headless Debian chromium at phone size (390x844) and desktop
size: the player's phone with its tap-to-act choices, the judge page, the replay page, the overlay.

    python scripts/screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "screenshots")
    args = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from tests.test_browser import CHROMIUM, CHROMIUM_ARGS
    from tests.test_web_support import PIN, golden_script, new_service, running

    args.out.mkdir(parents=True, exist_ok=True)
    service = new_service(Path(tempfile.mkdtemp(prefix="kipukas-shots-")))
    _, lines = golden_script()
    for line in lines[:25]:  # cards in hand and in play, blue to act
        service.table.act(f"phone:{line.split()[0]}", line)
    tokens = service.join_tokens()
    with running(service) as server, sync_playwright() as pw:
        base = f"http://127.0.0.1:{server.port}"
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page = phone.new_page()
        page.goto(f"{base}/play?t={tokens['blue']}")
        page.wait_for_selector("#choices .tree button", timeout=15_000)
        page.screenshot(path=str(args.out / "player-phone.png"))
        page.click("#choices .tree button[data-word='play']")
        page.screenshot(path=str(args.out / "player-phone-play.png"))
        desktop = browser.new_context(viewport={"width": 1280, "height": 900})
        desktop.add_init_script(f"sessionStorage.setItem('kipukas-pin', '{PIN}')")
        page = desktop.new_page()
        page.goto(f"{base}/judge")
        page.wait_for_selector("#conn.on", timeout=15_000)
        page.wait_for_timeout(500)
        page.screenshot(path=str(args.out / "judge.png"))
        page.goto(f"{base}/replay?row=12")
        page.wait_for_selector("#row li", timeout=15_000)
        page.screenshot(path=str(args.out / "replay.png"))
        page = desktop.new_page()
        page.goto(f"{base}/overlay?t={tokens['spectator']}")
        page.wait_for_selector("#overlay g.token", timeout=15_000)
        page.screenshot(path=str(args.out / "overlay.png"))
        browser.close()
    for name in ("player-phone.png", "player-phone-play.png", "judge.png", "replay.png", "overlay.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
