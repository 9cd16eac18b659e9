"""Room for the media at the screens raters use: one question at a time on a short screen, the form in view."""

import os

import pytest
from playwright.sync_api import expect

from tests.browser import chromium
from tests.frontend.test_workspace_inspector import open_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def shown_questions(page) -> list[str]:
    return page.eval_on_selector_all("[data-question]", "els => els.filter(e => e.offsetHeight).map(e => e.dataset.question)")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_short_screen_shows_one_question_at_a_time_and_the_map_follows_the_keyboard(live_server, browser):
    page, errors = open_pair(browser, live_server, "interleaved", (1280, 720), "layout-short")
    expect(page.locator("[data-one-at-a-time]")).to_have_attribute("aria-pressed", "true")
    assert shown_questions(page) == ["text_faithfulness"]
    page.keyboard.press("3")
    page.keyboard.press("2")  # both rows of the first question: the cursor moves on to the next question
    assert shown_questions(page) == ["image_faithfulness"]
    expect(page.locator("[data-question-map] button").first).to_have_text("1 ✓")
    expect(page.locator("[data-question-map] .map-current")).to_have_text("2")
    expect(page.locator("[data-question-map]")).to_contain_text("Question 2 of 9")
    panel = page.locator(".rating-panel").bounding_box()
    current = page.locator("[data-question].current").bounding_box()
    assert panel["y"] + panel["height"] <= 720 and current["y"] + current["height"] <= panel["y"] + panel["height"]
    page.locator("[data-question-map] button").first.click()  # back to question 1 from the map
    assert shown_questions(page) == ["text_faithfulness"]
    page.keyboard.press("f")  # the whole form, remembered for the next pair
    assert len(shown_questions(page)) == 9
    assert page.evaluate("localStorage.getItem('concord:one-question-at-a-time')") == "off"
    assert not errors


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_tall_screen_starts_with_the_whole_form(live_server, browser):
    page, errors = open_pair(browser, live_server, "text-to-image", (1440, 900), "layout-tall")
    expect(page.locator("[data-one-at-a-time]")).to_have_attribute("aria-pressed", "false")
    assert len(shown_questions(page)) > 1
    expect(page.locator("[data-question-map]")).to_be_hidden()
    assert not errors


TRUNCATED = """() => [...document.querySelectorAll('.stage-head > *')].filter((e) => e.offsetWidth && e.scrollWidth > e.clientWidth)
  .map((e) => e.textContent.trim())"""


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_the_header_fits_whole_and_the_raters_counts_stand_under_submit(live_server, browser, size):
    """The header read "Demo…" and "0 toda…" at 1280×720."""
    page, errors = open_pair(browser, live_server, "interleaved", size, f"layout-header-{size[0]}")
    assert page.evaluate(TRUNCATED) == []
    head = page.locator(".stage-head").bounding_box()
    assert head["height"] < 40, "one line"
    progress = page.locator(".rating-panel [data-progress]")
    expect(progress).to_contain_text("today · ")
    assert progress.bounding_box()["y"] + progress.bounding_box()["height"] <= size[1]
    assert not errors
