"""A campaign that requires every recording played to the end, in a real headless Chromium: the page warns,
the server refuses a submission short of it (and the page keeps the answers), the share played survives a
reload, and it is stored with the annotation."""

import os

import pytest
from playwright.sync_api import expect

from annotation.catalogue.models import Campaign
from annotation.workqueue.models import Annotation, Assignment
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ENDED = "side => document.querySelector(`.side[data-side=${side}] audio`).ended"


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_rater_must_hear_both_responses_to_the_end_before_the_submission_is_taken(live_server, browser):
    annotator = UserFactory(username="full-playback")
    pair = make_pair("text-to-audio", annotators=[annotator], seed=7)
    Campaign.objects.filter(pk=pair.campaign_id).update(requires_full_playback=True)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(page, live_server.url, annotator.username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_url("**/work/assignments/*/")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions[open]").count():
        page.keyboard.press("Escape")
    assignment = Assignment.objects.get(pair=pair, annotator=annotator)
    save_state = page.locator("[data-save-state]")

    page.keyboard.press("1")
    page.keyboard.press("3")  # both criteria answered
    page.keyboard.press("m")  # A plays a little …
    page.wait_for_function("() => document.querySelector('.side[data-side=A] audio').currentTime > 0.2")
    page.keyboard.press(";")  # … then B from that moment to its end: neither heard in full
    page.wait_for_function(ENDED, arg="B")

    page.keyboard.press("Control+Enter")  # warned, nothing sent
    expect(save_state).to_contain_text("Play response A and response B to the end before submitting")
    assert not Annotation.objects.exists()
    with page.expect_response("**/submit/") as sent:
        page.keyboard.press("Control+Enter")  # sent anyway: the server refuses
    assert sent.value.status == 400 and sent.value.json()["code"] == "media_not_played"
    expect(save_state).to_contain_text("play response A and response B to the end (at least 98%)")
    assert not Annotation.objects.exists()
    assert page.locator("input:checked").count() == 2  # the answers are kept

    page.keyboard.press(",")  # B from the start to its end
    page.wait_for_function(ENDED, arg="B")
    page.keyboard.press(";")
    page.keyboard.press(",")  # A from the start to its end
    page.wait_for_function(ENDED, arg="A")
    expect(page.locator(".side[data-side=A] .media-heard")).to_have_text("heard 100 %")
    page.reload()  # the browser forgets what it played; the page kept it with the draft, in the tab
    page.wait_for_selector("body[data-workspace-ready]")
    expect(page.locator("input:checked")).to_have_count(2)
    with page.expect_response("**/submit/") as sent:
        page.keyboard.press("Control+Enter")
    assert sent.value.status == 200
    stored = Annotation.objects.get(assignment=assignment)
    assert set(stored.media_played) == {"A", "B"}
    assert all(share >= 0.98 for share in stored.media_played.values()), stored.media_played
    assert stored.shown_swapped == assignment.swapped
    assert not errors
