"""Text as written, in a real headless Chromium: a response's line breaks, blank lines and indentation stay."""

import os

import pytest

from annotation.catalogue import content
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
HAIKU = "Towers hold their breath —\nfire climbs the violet dusk,\na new star rising"
INDENTED = "Steps:\n  first, the sky\n  then the hills\n\nDone."


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_a_haiku_keeps_its_three_lines_and_indented_text_its_indentation(live_server, browser, size):
    annotator = UserFactory(username=f"haiku-{size[0]}")
    pair = make_pair("audio-to-text", annotators=[annotator], seed=4)
    for response, text in ((pair.response_a, HAIKU), (pair.response_b, INDENTED)):
        response.content = [{"type": "text", "text": text, "format": "markdown"}]  # the importers' default
        response.content_sha256 = content.digest(response.content)
        response.save()
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in(page, live_server.url, annotator.username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    shown = [page.locator(".block-text p", has_text=first).first for first in ("Towers", "Steps:")]
    texts = sorted(locator.inner_text() for locator in shown)
    haiku = next(t for t in texts if "violet" in t)
    assert haiku.split("\n") == HAIKU.split("\n"), "three lines, as written"
    steps = next(t for t in texts if "Steps" in t)
    assert steps.split("\n") == ["Steps:", "  first, the sky", "  then the hills"], "the indentation is kept"
    context.close()
