"""Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by Playwright, and logging in.

Every page a test opens is watched for Content-Security-Policy violations (an inline script, handler or style
the policy refused, a resource from elsewhere); a browser that saw one fails the test when it closes."""

import contextlib
import os

from tests.conftest import require

CHROMIUM = "/usr/bin/chromium"
# WebGL (the 3D viewer) on the CPU through SwiftShader: Chromium falls back to it by itself today, and newer releases
# only when told that this software renderer may be used.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--disable-sync", "--enable-unsafe-swiftshader"]


@contextlib.contextmanager
def chromium():
    """A launched browser, closed on the way out; skipped locally (failed in CI) without Chromium."""
    require(os.path.exists(CHROMIUM), f"Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        violations = csp_watched(browser)
        try:
            yield browser
        finally:
            browser.close()
        assert not violations, "Content-Security-Policy violations:\n" + "\n".join(violations)


def csp_watched(browser) -> list[str]:
    """The CSP violations any page of ``browser`` reports, as Chromium logs them, collected as they happen."""
    violations: list[str] = []

    def watch(page):
        page.on("console", lambda message: violations.append(f"{page.url}: {message.text}")
                if "Content Security Policy" in message.text else None)

    new_context, new_page = browser.new_context, browser.new_page

    def watched_context(*args, **kwargs):
        context = new_context(*args, **kwargs)
        context.on("page", watch)
        return context

    def watched_page(*args, **kwargs):
        page = new_page(*args, **kwargs)
        watch(page)
        return page

    browser.new_context, browser.new_page = watched_context, watched_page
    return violations


def log_in(page, base, username, *, then="/"):
    """Log in through the form and wait until the redirect to ``then`` has loaded."""
    page.goto(f"{base}/login/?next={then}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}{then}")
