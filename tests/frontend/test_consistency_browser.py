"""Consistency warnings before a submit (issue 31 item 5), in headless Chromium at 1280×720 and 1440×900.

A = Excellent and B = Weak on every rubric with overall "B significantly better" used to be accepted without a word;
the rating page now asks the server's check (annotation/workqueue/consistency.py) first and prompts: the rater goes
back and changes the answer (Esc), or submits it as it is (Enter) and the annotation records the confirmation.
Answers are set through the form's own radios by their stored values, whatever key each option shows."""

import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from annotation.catalogue import schemas
from annotation.workqueue.models import Annotation, Assignment
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.test_workspace_keys import UNBOUND, UNKEYED, axe_violations
from tests.frontend.workspace_pairs import make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
SIZES = [(1280, 720), (1440, 900)]
RUBRICS = ("text_faithfulness", "image_quality", "text_rendering")
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Pick the option whose stored value is `value` in the row named `name`, as a click on it would (the change event the
# form listens to); the row may be out of view when the form shows one question at a time.
PICK = """([name, value]) => {
  const input = document.querySelector(`input[type=radio][name="${name}"][value='${value}']`);
  input.checked = true;
  input.dispatchEvent(new Event("change", { bubbles: true }));
}"""
WRITE = """(text) => {
  const box = document.querySelector("textarea[name=rationale]");
  box.value = text;
  box.dispatchEvent(new Event("input", { bubbles: true }));
}"""


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def _rating_page(browser, base: str, size, username: str, *, seed: int, clock: bool = False, bypass_csp: bool = False):
    rater = UserFactory(username=username)
    pair = make_pair("text-to-image", annotators=[rater], seed=seed)
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=bypass_csp)
    context.set_default_timeout(15_000)
    if clock:
        context.clock.install()
    page = context.new_page()
    log_in(page, base, rater.username)
    page.goto(f"{base}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")  # Start rating
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    assignment = Assignment.objects.get(annotator=rater, status=Assignment.Status.ACTIVE)
    return context, page, assignment


def _answer(page, *, overall: int, a: int = 3, b: int = 1, valid: bool = True):
    """Every rubric ``a`` for the left response and ``b`` for the right (3 Excellent, 1 Weak), then the rest."""
    for rubric in RUBRICS:
        page.evaluate(PICK, [f"{rubric}.A", str(a)])
        page.evaluate(PICK, [f"{rubric}.B", str(b)])
    page.evaluate(PICK, ["overall", str(overall)])
    page.evaluate(PICK, ["prompt_valid", "true" if valid else "false"])
    page.evaluate(WRITE, "The left image follows the prompt; the right one does not.")


def _close(context, page):
    """Close once the page's own requests are done (the next pair prepared, a draft on its way), so that none is
    still writing while the test's database is emptied for the next test."""
    page.wait_for_load_state("networkidle")
    context.close()


def _shown(annotation: Annotation) -> dict:
    """The stored (canonical) answer as the rater saw it."""
    definition = annotation.pair.campaign.rating_schema.definition
    return schemas.reorient(definition, annotation.values, swapped=bool(annotation.shown_swapped))


@pytest.mark.parametrize("size", SIZES)
def test_the_prompt_comes_before_the_submit_and_going_back_lets_the_rater_fix_it(live_server, browser, size):
    context, page, assignment = _rating_page(browser, live_server.url, size, f"rater-back-{size[0]}", seed=51 + size[0])
    _answer(page, overall=1)  # B significantly better, against every rubric
    page.keyboard.press("Control+Enter")
    prompt = page.locator("#consistency-dialog")
    prompt.wait_for(state="visible")
    text = prompt.inner_text()
    assert "Overall preference prefers B, but your scores favour A (Faithful to the instruction: A 3, B 1" in text
    assert "Submit as is" in text and "Go back and change" in text
    box = prompt.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= size[1], "the whole prompt is on the screen"
    page.screenshot(path=str(SCREENSHOTS / f"consistency-prompt-{size[0]}x{size[1]}.png"))
    assert not Annotation.objects.filter(assignment=assignment).exists(), "nothing sent before the rater decides"

    page.keyboard.press("Escape")  # go back
    prompt.wait_for(state="hidden")
    overall = page.locator("[data-question=overall]")
    assert "warned" in overall.get_attribute("class") and "current" in overall.get_attribute("class")
    assert overall.is_visible(), "the preference is the question in front of the rater"
    assert "Not submitted" in page.locator("[data-save-state]").inner_text()
    assert page.locator("[data-submit]").is_enabled()
    page.screenshot(path=str(SCREENSHOTS / f"consistency-back-{size[0]}x{size[1]}.png"))

    page.evaluate(PICK, ["overall", "6"])  # A significantly better: now consistent
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-done]:not([hidden])")
    assert prompt.is_hidden(), "a consistent answer submits with no prompt"
    annotation = Annotation.objects.get(assignment=assignment)
    assert _shown(annotation)["overall"] == 6 and annotation.confirmed_warnings is None
    _close(context, page)


@pytest.mark.parametrize("size", SIZES)
def test_confirming_with_the_key_submits_as_is_and_the_confirmation_is_stored(live_server, browser, size):
    context, page, assignment = _rating_page(browser, live_server.url, size, f"rater-confirm-{size[0]}", seed=61 + size[0])
    _answer(page, overall=1)
    page.keyboard.press("Control+Enter")
    page.locator("#consistency-dialog").wait_for(state="visible")
    page.keyboard.press("Control+Enter")  # the submit key again does not confirm: only the prompt's key does
    assert page.locator("#consistency-dialog").is_visible()
    assert not Annotation.objects.filter(assignment=assignment).exists()
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-done]:not([hidden])")
    annotation = Annotation.objects.get(assignment=assignment)
    assert _shown(annotation)["overall"] == 1, "stored as the rater answered"
    (confirmed,) = annotation.confirmed_warnings
    assert confirmed.startswith("Overall preference prefers B, but your scores favour A")

    page.goto(f"{live_server.url}/work/assignments/{assignment.pk}/review/")
    page.wait_for_selector("body[data-review-ready]")
    warning = page.locator("[data-warnings] li")
    assert warning.count() == 1 and "Overall preference prefers B" in warning.inner_text()
    assert warning.locator("[data-confirmed-at-submit]").inner_text() == "Confirmed at submit."
    page.screenshot(path=str(SCREENSHOTS / f"consistency-confirmed-review-{size[0]}x{size[1]}.png"))
    # Corrected since (B significantly better → A): the review page still says what was confirmed at submit.
    page.evaluate(PICK, ["overall", "6"])
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-save-state]:text('Correction saved')")
    page.reload()
    page.wait_for_selector("body[data-review-ready]")
    assert page.locator("[data-warnings] li").count() == 0
    said = page.locator("[data-confirmed-warnings]")
    assert "Confirmed at submit" in said.inner_text() and "Overall preference prefers B" in said.inner_text()
    _close(context, page)


@pytest.mark.parametrize("size", SIZES)
def test_an_invalid_prompt_with_a_strong_preference_prompts_too(live_server, browser, size):
    context, page, assignment = _rating_page(browser, live_server.url, size, f"rater-valid-{size[0]}", seed=71 + size[0])
    _answer(page, overall=6, valid=False)  # rubrics and overall agree; the prompt was called invalid
    page.locator("[data-submit]").click()
    prompt = page.locator("#consistency-dialog")
    prompt.wait_for(state="visible")
    assert "You answered no to “Is the prompt valid and answerable?”" in prompt.inner_text()
    page.locator("[data-consistency-back]").click()
    prompt.wait_for(state="hidden")
    page.evaluate(PICK, ["overall", "5"])  # a marginal preference is not a strong one
    page.locator("[data-submit]").click()
    page.wait_for_selector("[data-done]:not([hidden])")
    assert Annotation.objects.get(assignment=assignment).confirmed_warnings is None
    _close(context, page)


@pytest.mark.parametrize("size", SIZES)
def test_the_prompt_closes_when_the_lease_runs_out(live_server, browser, size):
    context, page, assignment = _rating_page(browser, live_server.url, size, f"rater-lease-{size[0]}", seed=81 + size[0],
                                             clock=True)
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now() + timedelta(seconds=90))
    page.reload()
    page.wait_for_selector("body[data-workspace-ready]")
    _answer(page, overall=1)
    page.keyboard.press("Control+Enter")
    prompt = page.locator("#consistency-dialog")
    prompt.wait_for(state="visible")
    page.clock.fast_forward(120_000)
    page.wait_for_selector("[data-lease][data-lease-state=expired]")
    prompt.wait_for(state="hidden")
    assert page.locator("[data-lease-over]").is_visible() and page.locator("[data-submit]").is_disabled()
    assert not Annotation.objects.filter(assignment=assignment).exists()
    _close(context, page)


@pytest.mark.parametrize("size", SIZES)
def test_the_prompts_controls_show_their_keys_and_axe_finds_nothing_serious(live_server, browser, size):
    # axe-core writes styles while it measures contrast, which the page's policy refuses (as in test_workspace_keys).
    context, page, _ = _rating_page(browser, live_server.url, size, f"rater-axe-{size[0]}", seed=91 + size[0],
                                    bypass_csp=True)
    _answer(page, overall=1)
    page.keyboard.press("Control+Enter")
    page.locator("#consistency-dialog").wait_for(state="visible")
    assert page.evaluate(UNKEYED) == [] and page.evaluate(UNBOUND) == []
    assert axe_violations(page) == [], "the consistency prompt"
    _close(context, page)
