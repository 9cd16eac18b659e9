"""Fixtures of the console's tests: headless Chromium (see browser.py)."""

from tests.frontend.console.browser import browser_page  # noqa: F401 (a fixture, registered by being here)
