"""Headless Chromium for the console's browser tests: a page that records script errors, screenshots, log-in."""

import os
from pathlib import Path

import pytest

from tests.conftest import require

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "screenshots"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--disable-sync"]


@pytest.fixture
def browser_page(monkeypatch):
    """(page, errors): errors collects uncaught script errors and failed scripts, styles and fetches."""
    require(os.path.exists(CHROMIUM), f"Chromium at {CHROMIUM}")
    # Playwright's sync API keeps an event loop in this thread; the ORM calls the test makes are still synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("response", lambda r: record_failed_resource(errors, r))
        yield page, errors
        browser.close()


def record_failed_resource(errors, response):
    """A script, style sheet or fetch that failed; pages themselves may answer 4xx on purpose."""
    if response.status >= 400 and response.request.resource_type != "document":
        errors.append(f"{response.status} {response.url}")


def shot(page, name):
    page.screenshot(path=str(SHOTS / f"console-{name}.png"), full_page=True)


def log_in(page, base, username, *, then="/console/"):
    page.goto(f"{base}/login/?next={then}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}{then}")
