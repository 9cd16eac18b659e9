"""Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by Playwright, and logging in."""

import contextlib
import os

from tests.conftest import require

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--disable-sync"]


@contextlib.contextmanager
def chromium():
    """A launched browser, closed on the way out; skipped locally (failed in CI) without Chromium."""
    require(os.path.exists(CHROMIUM), f"Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def log_in(page, base, username, *, then="/"):
    """Log in through the form and wait until the redirect to ``then`` has loaded."""
    page.goto(f"{base}/login/?next={then}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}{then}")
