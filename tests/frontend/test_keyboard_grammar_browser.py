"""One keyboard grammar on every form, in a real headless Chromium at 1280×720 and 1440×900.

Keys follow the screen: ``1`` means the response on the left is better, the last key the response on the right,
a tie sits in the middle, on MMRB2's 6-point preference, Omni's per-criterion labels and the A/B/tie choice
alike. Sides are drawn per rater, so each form is rated in both side orders: "left" is whichever response the
page shows on the left (found by its text and its place on screen), and the stored answer must name that
response in the canonical orientation (MMRB2's 6 = A significantly better, "A", "B"). The ``?`` sheet lists each
question's keys exactly as its buttons show them.
"""

import os
from pathlib import Path

import pytest

from annotation.catalogue import schemas
from annotation.catalogue.models import Campaign
from annotation.workqueue.models import Annotation, Assignment
from annotation.workqueue.services.assignments import assignment_claim
from tests.browser import chromium, log_in
from tests.factories import CampaignFactory, RatingSchemaFactory, UserFactory
from tests.frontend.workspace_pairs import INSTRUCTIONS, add_pair, make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
SCREENS = [(1280, 720), (1440, 900)]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
TIMEOUT_MS = 15_000

# Text that tells the two responses apart on screen (tests/frontend/workspace_pairs.py), by kind.
RESPONSE_TEXT = {
    "interleaved": {"A": "The hill wakes up slowly.", "B": "Dawn breaks over the ridge."},
    "audio-to-text": {"A": "A steady, pure tone", "B": "Somebody speaking quickly"},
}

# Each question's buttons (first row), left to right: [(key, label)], read from the page.
BUTTONS = """() => Object.fromEntries([...document.querySelectorAll('[data-rating-form] [data-question]')]
  .map((q) => [q.dataset.question, [...(q.querySelector('[data-row]')?.querySelectorAll('label.option') || [])]
    .map((o) => [o.querySelector('kbd').textContent.trim(), o.querySelector('span').textContent.trim()])])
  .filter(([, options]) => options.length))"""

# The `?` sheet's answer keys for each question it names: [(key, label)] in the order listed.
SHEET = """() => Object.fromEntries([...document.querySelectorAll('#shortcuts [data-answer-keys]')].flatMap((block) => {
  const options = [...block.querySelectorAll('li')].map((li) => [li.querySelector('kbd').textContent.trim(),
    li.querySelector('span').textContent.trim()]);
  return block.dataset.answerKeys.split(' ').map((id) => [id, options]);
}))"""

# The name of the highlighted row's radios (the question the next digit answers).
CURRENT = "() => document.querySelector('[data-row].current input[type=radio]')?.name || null"


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def ab_tie_pair(annotator):
    """A pair of text answers in an A/B/tie campaign."""
    schema = RatingSchemaFactory(slug="grammar-ab-tie", preset="ab-tie", definition=schemas.preset("ab-tie", "audio-to-text"))
    campaign = CampaignFactory(slug="grammar-ab-tie", name="A/B/tie", kind="audio-to-text", rating_schema=schema,
                               overlap=1, max_overlap=1, instructions=INSTRUCTIONS, status=Campaign.Status.ACTIVE)
    campaign.members.add(annotator)
    return add_pair(campaign, seed=7, criteria=[])


def open_pair(browser, live_server, size, *, kind_pair, swapped: bool, username: str):
    """The rating page of a pair claimed with the side order ``swapped`` (B on the left when true)."""
    annotator = UserFactory(username=username)
    pair = kind_pair(annotator)
    assignment = assignment_claim(campaign=pair.campaign, annotator=annotator)
    Assignment.objects.filter(pk=assignment.pk).update(swapped=swapped)
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    log_in(page, live_server.url, annotator.username)
    page.goto(f"{live_server.url}/work/assignments/{assignment.pk}/")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    return context, page, pair


def left_response(page, kind: str) -> str:
    """Which stored response ("A" or "B") the page shows in its left pane, by its text and where it is on screen."""
    panes = page.locator(".sides .side")
    assert panes.count() == 2
    boxes = [panes.nth(i).bounding_box() for i in range(2)]
    left = panes.nth(0 if boxes[0]["x"] < boxes[1]["x"] else 1)
    assert left.locator(".side-head").inner_text().strip() == "Response A", "the left pane is labelled A, as the form"
    text = left.inner_text()
    found = [side for side, words in RESPONSE_TEXT[kind].items() if words in text]
    assert len(found) == 1, found
    return found[0]


def other(side: str) -> str:
    return "B" if side == "A" else "A"


def check_sheet_matches_buttons(page, name: str):
    """The `?` sheet lists every question's keys as its buttons show them: same keys, same labels, same order."""
    buttons = page.evaluate(BUTTONS)
    page.keyboard.press("?")
    page.wait_for_selector("#shortcuts[open]")
    assert page.evaluate(SHEET) == buttons
    assert "1 means the left response is better" in page.locator("#shortcuts").inner_text()
    close = page.locator("#shortcuts [data-dialog-close]").bounding_box()
    height = page.viewport_size["height"]
    assert close["y"] >= 0 and close["y"] + close["height"] <= height, "Close is within the window, not below the fold"
    page.screenshot(path=str(SCREENSHOTS / f"{name}-shortcuts.png"))
    page.keyboard.press("Escape")
    return buttons


def submit(page, pair) -> dict:
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-done]:not([hidden])")
    return Annotation.objects.get(pair=pair).values


SIDE_ORDERS = pytest.mark.parametrize("swapped", [False, True], ids=["A-left", "B-left"])
SIZES = pytest.mark.parametrize("size", SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@SIZES
@SIDE_ORDERS
def test_on_the_mmrb2_scale_1_is_the_left_response_significantly_better_stored_as_mmrb2s_value(
        live_server, browser, size, swapped):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context, page, pair = open_pair(browser, live_server, size, swapped=swapped, username=f"grammar-mmrb2-{swapped:d}",
                                    kind_pair=lambda rater: make_pair("interleaved", annotators=[rater], seed=4))
    name = f"keyboard-grammar-mmrb2-{'B' if swapped else 'A'}-left-{size[0]}x{size[1]}"
    left = left_response(page, "interleaved")
    rubric_rows = page.locator("[data-question][data-scope=response] [data-row]").count()
    for _ in range(rubric_rows):
        page.keyboard.press("2")  # every rubric alike: the preference decides
    assert page.evaluate(CURRENT) == "overall"
    page.keyboard.press("1")
    checked = page.locator("input[name=overall]:checked")
    assert checked.get_attribute("value") == "6", "as shown: A, the left response, significantly better"
    page.keyboard.press("Enter")
    page.keyboard.type("The left one tells the story in three parts.")
    page.keyboard.press("Escape")
    page.keyboard.press("j")
    page.keyboard.press("y")
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    buttons = check_sheet_matches_buttons(page, name)
    assert buttons["overall"] == [
        ["1", "A significantly better"], ["2", "A marginally better"], ["3", "Unsure / A negligibly better"],
        ["4", "Unsure / B negligibly better"], ["5", "B marginally better"], ["6", "B significantly better"]]
    values = submit(page, pair)
    assert values["overall"] == (6 if left == "A" else 1), f"left is {left}: the left response significantly better"
    assert Annotation.objects.get(pair=pair).shown_swapped is swapped
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@SIZES
@SIDE_ORDERS
def test_on_omni_criteria_1_is_the_left_response_better_2_equivalent_3_the_right_one(live_server, browser, size, swapped):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context, page, pair = open_pair(browser, live_server, size, swapped=swapped, username=f"grammar-omni-{swapped:d}",
                                    kind_pair=lambda rater: make_pair("audio-to-text", annotators=[rater], seed=5))
    name = f"keyboard-grammar-omni-{'B' if swapped else 'A'}-left-{size[0]}x{size[1]}"
    left = left_response(page, "audio-to-text")
    assert page.evaluate(CURRENT) == "criteria.0"
    page.keyboard.press("1")  # the first criterion: the left response
    page.keyboard.press("3")  # the second: the right one
    assert page.locator("input[name='criteria.0']:checked").get_attribute("value") == '"A"'
    assert page.locator("input[name='criteria.1']:checked").get_attribute("value") == '"B"'
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    buttons = check_sheet_matches_buttons(page, name)
    assert buttons["criteria"] == [["1", "A better"], ["2", "Equivalent"], ["3", "B better"]]
    values = submit(page, pair)
    assert [item["label"] for item in values["criteria"]] == [left, other(left)]
    assert [item["criterion"] for item in values["criteria"]] == pair.criteria
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@SIZES
@SIDE_ORDERS
def test_on_the_ab_tie_choice_1_is_the_left_response_tie_is_in_the_middle(live_server, browser, size, swapped):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context, page, pair = open_pair(browser, live_server, size, swapped=swapped, username=f"grammar-ab-{swapped:d}",
                                    kind_pair=ab_tie_pair)
    name = f"keyboard-grammar-ab-tie-{'B' if swapped else 'A'}-left-{size[0]}x{size[1]}"
    left = left_response(page, "audio-to-text")
    assert page.evaluate(CURRENT) == "preference"
    page.keyboard.press("1")
    assert page.locator("input[name=preference]:checked").get_attribute("value") == '"A"'
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    buttons = check_sheet_matches_buttons(page, name)
    assert buttons["preference"] == [["1", "A"], ["2", "Tie"], ["3", "B"]], "the tie in the middle"
    values = submit(page, pair)
    assert values["preference"] == left, f"left is {left}: the left response better"
    context.close()
