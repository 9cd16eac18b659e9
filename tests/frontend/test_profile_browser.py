"""A crowd rater in headless Chromium: the platform's entry link signs them in, the campaign's profile form comes
first (a bad answer is refused in place, what was typed kept), saving it opens the first pair, and at the quota
"Next pair" ends at the completion URL. At 1280×720 and 1440×900, with screenshots."""

import os
from pathlib import Path

import pytest

from annotation.workqueue.models import Annotation, Assignment, CrowdParticipant, ProfileAnswer
from annotation.workqueue.profile import DEFAULT_QUESTIONS
from annotation.workqueue.services.crowd import crowd_link_create
from annotation.workqueue.services.profile import campaign_questionnaire_set, questionnaire_create
from tests.frontend import workspace_pairs
from tests.frontend.workspace_pairs import add_pair, make_pair, submit_by_keys

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
TIMEOUT_MS = 15_000
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
browser = workspace_pairs.browser


def _shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=True)


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_crowd_link_then_profile_then_first_pair_then_the_completion_url(live_server, browser, size):
    first = make_pair("text-to-image", seed=40 + size[0] % 7)
    campaign = first.campaign
    add_pair(campaign, seed=50 + size[0] % 7, priority=-1)
    questionnaire = questionnaire_create(slug=f"crowd-{size[0]}", title="About you", questions=DEFAULT_QUESTIONS)
    campaign_questionnaire_set(campaign=campaign, questionnaire=questionnaire)
    done_url = f"{live_server.url}/?study=complete"
    link = crowd_link_create(campaign=campaign, completion_url=done_url, quota=1)
    pid = f"5f8e0a1b2c3d4e5f6a7b{size[0]}"

    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    # The server's first request imports every URL module (seconds on a busy machine); other tests start at login.
    page.goto(f"{live_server.url}/login/", timeout=90_000)
    page.goto(f"{live_server.url}/crowd/{link.token}/?PROLIFIC_PID={pid}&STUDY_ID=study42&SESSION_ID=sess{size[0]}")
    page.wait_for_url(f"{live_server.url}/work/campaigns/{campaign.slug}/profile/")
    form = page.locator("[data-testid=profile-form]")
    assert form.locator("h1").inner_text() == "About you"
    assert page.locator("input[name=expertise]").count() == len(DEFAULT_QUESTIONS[0]["options"])
    box = form.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= size[0], "the form fits the window's width"
    save = page.locator("[data-testid=profile-save]")
    _shot(page, f"profile-form-{size[0]}x{size[1]}.png")

    # A bad answer: refused in place, what was typed kept.
    page.check("input[name=expertise][value=Photography]")
    page.fill("input[name=languages]", "English, Greek")
    page.fill("input[name=years]", "200")
    page.evaluate("() => document.querySelector('input[name=years]').removeAttribute('max')")
    save.click()
    error = page.locator("[data-testid=form-error]")
    assert error.inner_text() == "years: give a number from 0 to 70, not 200"
    assert page.input_value("input[name=languages]") == "English, Greek"
    assert page.is_checked("input[name=expertise][value=Photography]")
    _shot(page, f"profile-error-{size[0]}x{size[1]}.png")

    page.fill("input[name=years]", "6")
    page.fill("textarea[name=about]", "Wedding photographer.")
    page.locator("[data-testid=profile-save]").click()
    page.wait_for_selector("body[data-workspace-ready]")
    user = CrowdParticipant.objects.get(participant_id=pid).user
    assignment = Assignment.objects.get(annotator=user, status=Assignment.Status.ACTIVE)
    assert page.url == f"{live_server.url}/work/assignments/{assignment.pk}/"
    assert ProfileAnswer.objects.get(user=user).answers["years"] == 6
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    _shot(page, f"profile-first-pair-{size[0]}x{size[1]}.png")

    submit_by_keys(page)
    assert Annotation.objects.filter(annotator=user).count() == 1
    page.keyboard.press("Enter")  # Next pair: the quota of one is done
    page.wait_for_url(done_url)
    assert Assignment.objects.filter(annotator=user).count() == 1, "no pair past the quota"
    context.close()
