"""The 404 and 403 pages in headless Chromium under the Content-Security-Policy: styled by Concord's stylesheet, with
the signed-in person's navigation, at the two screen sizes; the API docs load nothing from elsewhere."""

import os
from pathlib import Path

import pytest

from tests.browser import chromium, log_in
from tests.factories import CuratorFactory, UserFactory

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def _styled(page) -> dict:
    return page.evaluate("""() => {
        const bar = document.querySelector('header.topbar'), card = document.querySelector('[data-testid=error-page]');
        return {bar: getComputedStyle(bar).display, cardBorder: getComputedStyle(card).borderTopStyle,
                cardWidth: card.getBoundingClientRect().width, overflow: document.documentElement.scrollWidth > innerWidth,
                links: [...document.querySelectorAll('nav[aria-label=Main] a')].map((a) => a.textContent.trim())};
    }""")


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_the_404_and_403_pages_are_styled_with_the_navigation(live_server, browser, size):
    """(tests.browser fails the test on any policy violation the pages report.)"""
    annotator = UserFactory(username=f"ann-errors-{size[0]}")
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    log_in(page, live_server.url, annotator.username)
    for status, path in ((404, "/no/such/page/"), (403, "/console/")):
        response = page.goto(live_server.url + path)
        assert response.status == status and "content-security-policy" in response.headers
        page.wait_for_load_state("networkidle")
        styled = _styled(page)
        assert styled["bar"] == "flex" and styled["cardBorder"] == "solid", "concord.css is applied"
        assert styled["cardWidth"] <= 400 and not styled["overflow"]
        assert styled["links"] == ["My campaigns", "My work"], "the annotator's navigation"
        assert page.get_by_role("heading", level=1).inner_text() in ("Page not found", "Not allowed")
        page.screenshot(path=str(SCREENSHOTS / f"error-{status}-{size[0]}x{size[1]}.png"))
    context.close()


def test_the_api_docs_ask_nothing_of_another_origin(live_server, browser):
    curator = CuratorFactory(username="cur-docs")
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(f"{live_server.url}/api/redoc/")
    assert page.url.startswith(f"{live_server.url}/login/?next=/api/redoc/"), "signed out: the sign-in page first"
    elsewhere: list[str] = []
    page.on("request", lambda request: None if request.url.startswith(live_server.url) or request.url.startswith(
        ("data:", "blob:")) else elsewhere.append(request.url))
    page.fill("input[name=username]", curator.username)
    page.fill("input[name=password]", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/api/redoc/")
    page.wait_for_selector("text=API docs by Redocly", timeout=20_000)
    page.wait_for_load_state("networkidle")
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".swagger-ui .info", timeout=20_000)
    page.wait_for_load_state("networkidle")
    assert elsewhere == []
    context.close()
