"""Blind means blind, self-naming too, in a real headless Chromium: a response that names its model and maker, in
English, Chinese and Russian, shows both as [hidden] at 1280×720 and 1440×900 (issue 31, item 2)."""

import os
from pathlib import Path

import pytest

from annotation.catalogue import content
from annotation.catalogue.masking import fold
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
SELF_NAMING = ["As Claude, made by Anthropic, I think the left answer is better.",
               "我是Claude，由Anthropic开发的AI助手。", "Я — GigaChat от Сбера."]
SHOWN = ["As [hidden], made by [hidden], I think the left answer is better.", "我是[hidden]，由[hidden]开发的AI助手。",
         "Я — [hidden] от [hidden]."]


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_a_model_naming_itself_and_its_maker_is_shown_masked_whole(live_server, browser, size):
    annotator = UserFactory(username=f"selfname-{size[0]}")
    pair = make_pair("audio-to-text", annotators=[annotator], seed=5)
    # Written after the import, so no hit is stored: the scan run when the pair is shown must find them.
    pair.response_a.content = [{"type": "text", "text": text, "format": "markdown"} for text in SELF_NAMING]
    pair.response_a.content_sha256 = content.digest(pair.response_a.content)
    pair.response_a.save()
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(15_000)
    page = context.new_page()
    bodies = []
    page.on("response", lambda r: bodies.append(r.text()) if "json" in r.headers.get("content-type", "") else None)
    log_in(page, live_server.url, annotator.username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    shown = page.locator("body").inner_text()
    for text in SHOWN:
        assert text in shown, shown
    for what in (shown, page.content(), *bodies):
        readable = fold(what)
        for name in ("claude", "anthropic", "gigachat", "сбер"):
            assert fold(name) not in readable, name
    if page.locator("dialog[open]").count():
        page.keyboard.press("Escape")  # the instructions shown on the first pair
    page.locator("text=由[hidden]开发").first.scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"selfname-{size[0]}x{size[1]}.png"), full_page=True)
    context.close()
