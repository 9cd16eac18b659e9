"""Headless Chromium for the console's browser tests: a page that records script errors, screenshots, log-in."""

from pathlib import Path

import pytest

from tests.browser import chromium, log_in

__all__ = ["browser_page", "log_in", "shot"]

SHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "screenshots"


@pytest.fixture
def browser_page(monkeypatch):
    """(page, errors): errors collects uncaught script errors and failed scripts, styles and fetches."""
    # Playwright's sync API keeps an event loop in this thread; the ORM calls the test makes are still synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("response", lambda r: record_failed_resource(errors, r))
        yield page, errors


def record_failed_resource(errors, response):
    """A script, style sheet or fetch that failed; pages themselves may answer 4xx on purpose."""
    if response.status >= 400 and response.request.resource_type != "document":
        errors.append(f"{response.status} {response.url}")


def shot(page, name):
    page.screenshot(path=str(SHOTS / f"console-{name}.png"), full_page=True)
