"""In headless Chromium at 1280×720 and 1440×900: a crowd rater goes from the entry link through the profile and the
calibration round to their first real pair and the completion URL; a new member of a campaign with a calibration set
rates its calibration pairs in the workspace's own layout, form and keys, sees the expected answer and the
explanation after each, fails, waits for a curator's release, retries, passes and reaches the real queue; a rater
whose gold answers fall is paused with a clear message, and a curator lifts the pause in the console."""

import json
import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.catalogue.models import CalibrationItem, Pair
from annotation.workqueue.models import (
    Annotation,
    Assignment,
    CalibrationAnswer,
    CrowdParticipant,
    ProfileAnswer,
    QualificationRound,
    RaterPause,
)
from annotation.workqueue.profile import DEFAULT_QUESTIONS
from annotation.workqueue.rules import orientation_swapped
from annotation.workqueue.services import qualification as q
from annotation.workqueue.services.assignments import assignment_claim
from annotation.workqueue.services.crowd import crowd_link_create
from annotation.workqueue.services.profile import campaign_questionnaire_set, questionnaire_create
from tests.browser import log_in
from tests.factories import CuratorFactory, UserFactory
from tests.frontend import workspace_pairs
from tests.frontend.workspace_pairs import SECRET, add_pair, make_campaign, press, submit_by_keys
from tests.workqueue.assignment_helpers import submit

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
TIMEOUT_MS = 15_000
VIEWPORTS = [(1280, 720), (1440, 900)]
EXPECTED_A = {"overall": 6, "image_quality": {"A": 3, "B": 0}}


browser = workspace_pairs.browser


def _page(browser, username: str, base: str, viewport):
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    log_in(page, base, username)
    return page


def _shot(page, name: str, viewport) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{viewport[0]}x{viewport[1]}.png"))


def _keys_preferring(side: str) -> list[str]:
    """The keys that answer the mmrb2 text-to-image form as shown preferring ``side`` ("A" left, "B" right)."""
    good, bad = ("3", "0") if side == "A" else ("0", "3")
    overall = "1" if side == "A" else "6"  # keys follow the screen: 1 = the left response much better
    return [good, bad, good, bad, "Control+Enter", overall, "Enter", "text:Compared both sides.", "Escape", "j", "y"]


def _answer_calibration(page, rater, *, right: bool) -> None:
    """Answer the calibration pair on the page by keys, right (the expected side as shown) or wrong."""
    page.wait_for_selector("body[data-workspace-ready]")
    item_id = json.loads(page.locator("#workspace-config").text_content())["item"]
    item = CalibrationItem.objects.select_related("pair__campaign").get(pk=item_id)
    swapped = orientation_swapped(item.pair.campaign.orientation_seed, item.pair_id, rater.pk)
    expected_side = "B" if swapped else "A"
    press(page, _keys_preferring(expected_side if right else {"A": "B", "B": "A"}[expected_side]))
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-feedback]:not([hidden])")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
def test_a_crowd_rater_answers_the_profile_passes_the_calibration_round_and_rates_a_first_real_pair(
        live_server, browser, viewport):
    campaign = make_campaign("text-to-image", seed=20 + viewport[0] % 7)
    calibration = [add_pair(campaign, seed=500 + n) for n in range(2)]
    real = add_pair(campaign, seed=600)
    q.calibration_items_add(campaign=campaign, rows=[
        {"pair": pair.external_id, "expected": EXPECTED_A,
         "explanation": f"Calibration {n}: the better image draws every object asked for."}
        for n, pair in enumerate(calibration)])
    q.campaign_qualification_set(campaign=campaign, round_size=2, pass_mark=1.0, retry_hours=24)
    questionnaire = questionnaire_create(slug=f"journey-{viewport[0]}", title="About you", questions=DEFAULT_QUESTIONS)
    campaign_questionnaire_set(campaign=campaign, questionnaire=questionnaire)
    done_url = f"{live_server.url}/?study=complete"
    link = crowd_link_create(campaign=campaign, completion_url=done_url, quota=1)
    pid = f"60aa11bb22cc33dd44ee{viewport[0]}"
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/", timeout=90_000)  # the server's first request imports every URL module

    # The entry link: a new account, then the profile form before anything else.
    page.goto(f"{live_server.url}/crowd/{link.token}/?PROLIFIC_PID={pid}&STUDY_ID=study7&SESSION_ID=s{viewport[0]}")
    page.wait_for_url(f"{live_server.url}/work/campaigns/{campaign.slug}/profile/")
    rater = CrowdParticipant.objects.get(participant_id=pid).user
    page.check("input[name=expertise][value=Photography]")
    page.fill("input[name=languages]", "English")
    page.fill("input[name=years]", "4")
    _shot(page, "journey-profile", viewport)
    page.locator("[data-testid=profile-save]").click()

    # Saved, the profile leads to the calibration round, not to a pair of the real queue.
    page.wait_for_url(f"{live_server.url}/work/campaigns/{campaign.slug}/")
    assert ProfileAnswer.objects.get(user=rater).answers["years"] == 4
    gate = page.locator("[data-qualification-gate]")
    expect(gate).to_have_attribute("data-code", "qualification_required")
    expect(gate).to_contain_text("of its calibration pairs")
    assert not Assignment.objects.filter(annotator=rater).exists()
    # The calibration pairs left the queue: the campaign's progress counts its one real pair.
    expect(page.locator(".stat", has_text="pairs complete").locator("b")).to_have_text("0 / 1")
    _shot(page, "journey-gate", viewport)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/work/campaigns/{campaign.slug}/calibration/")
    for position in (1, 2):
        expect(page.locator("[data-calibration-progress]")).to_have_text(f"Calibration pair {position} of 2")
        assert SECRET not in page.content()
        _answer_calibration(page, rater, right=True)
        expect(page.locator("[data-feedback-verdict]")).to_contain_text("matches the expected answer")
        page.keyboard.press("Enter")
    expect(page.locator("[data-calibration-result]")).to_have_attribute("data-verdict", "passed")
    _shot(page, "journey-passed", viewport)

    page.keyboard.press("Enter")  # Start rating: the first pair of the real queue
    page.wait_for_selector("body[data-workspace-ready]")
    lease = Assignment.objects.get(annotator=rater, status=Assignment.Status.ACTIVE)
    assert lease.pair_id == real.pk and page.url == f"{live_server.url}/work/assignments/{lease.pk}/"
    assert SECRET not in page.content()
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    _shot(page, "journey-first-real-pair", viewport)
    submit_by_keys(page)
    page.keyboard.press("Enter")  # Next pair: the quota of one real pair is done; calibration pairs count not
    page.wait_for_url(done_url)
    assert CalibrationAnswer.objects.filter(round__rater=rater).count() == 2
    assert list(Annotation.objects.filter(annotator=rater).values_list("pair_id", flat=True)) == [real.pk]
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
def test_a_new_member_calibrates_with_feedback_fails_retries_passes_and_reaches_the_real_queue(
        live_server, browser, viewport):
    rater = UserFactory(username=f"newcomer-{viewport[0]}")
    campaign = make_campaign("text-to-image", annotators=[rater], seed=40 + viewport[0] % 7)
    calibration = [add_pair(campaign, seed=100 + n) for n in range(4)]
    real = add_pair(campaign, seed=200)
    q.calibration_items_add(campaign=campaign, rows=[
        {"pair": pair.external_id, "expected": EXPECTED_A,
         "explanation": f"Calibration {n}: the better image draws every object asked for."}
        for n, pair in enumerate(calibration)])
    q.campaign_qualification_set(campaign=campaign, round_size=2, pass_mark=1.0, retry_hours=24)
    page = _page(browser, rater.username, live_server.url, viewport)

    page.goto(f"{live_server.url}/work/campaigns/{campaign.slug}/")
    expect(page.locator("[data-qualification-gate]")).to_contain_text("of its calibration pairs")
    _shot(page, "qualification-queue-gate", viewport)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/work/campaigns/{campaign.slug}/calibration/")
    expect(page.locator("[data-calibration-progress]")).to_have_text("Calibration pair 1 of 2")
    assert SECRET not in page.content(), "a calibration pair is as blind as any pair"

    # First pair right, second wrong: the feedback names the expected answer and says why.
    _answer_calibration(page, rater, right=True)
    expect(page.locator("[data-feedback-verdict]")).to_contain_text("matches the expected answer")
    expect(page.locator("[data-feedback-explanation]")).to_contain_text("draws every object asked for")
    _shot(page, "qualification-feedback-match", viewport)
    page.keyboard.press("Enter")
    expect(page.locator("[data-calibration-progress]")).to_have_text("Calibration pair 2 of 2")
    _answer_calibration(page, rater, right=False)
    expect(page.locator("[data-feedback-verdict]")).to_contain_text("differs from the expected answer")
    expect(page.locator("[data-feedback-differences] li[data-same=false]").first).to_contain_text("expected")
    _shot(page, "qualification-feedback-differs", viewport)
    page.keyboard.press("Enter")

    result = page.locator("[data-calibration-result]")
    expect(result).to_have_attribute("data-verdict", "failed")
    expect(result.locator("[data-result-figures]")).to_contain_text("1 of 2")
    expect(result.locator("[data-study] li")).to_have_count(1)
    expect(result.locator("[data-admission-message]")).to_contain_text("try again after")
    expect(page.locator("[data-start-calibration]")).to_have_count(0)
    _shot(page, "qualification-failed", viewport)

    # A curator releases the rater; the retry shows pairs not seen yet.
    failed = QualificationRound.objects.get(rater=rater)
    q.qualification_round_release(round_id=failed.pk, curator=CuratorFactory())
    page.reload()
    page.locator("[data-start-calibration]").click()
    page.wait_for_selector("[data-calibration-progress]")
    retry = QualificationRound.objects.get(rater=rater, verdict="open")
    assert set(retry.items).isdisjoint(failed.items)
    for position in (1, 2):
        expect(page.locator("[data-calibration-progress]")).to_have_text(f"Calibration pair {position} of 2")
        _answer_calibration(page, rater, right=True)
        page.keyboard.press("Enter")
    expect(page.locator("[data-calibration-result]")).to_have_attribute("data-verdict", "passed")
    _shot(page, "qualification-passed", viewport)

    page.keyboard.press("Enter")  # Start rating: the real queue
    page.wait_for_selector("body[data-workspace-ready]")
    assert "/work/assignments/" in page.url
    claimed = Pair.objects.get(assignments__annotator=rater)
    assert claimed.pk == real.pk
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    _shot(page, "qualification-real-queue", viewport)


def _wrong_gold(lease) -> dict:
    side = "A" if lease.swapped else "B"  # the canonical B, as shown: the gold answer is A
    rubric = {"A": 3, "B": 0} if side == "A" else {"A": 0, "B": 3}
    return {"text_faithfulness": rubric, "image_quality": rubric, "overall": 6 if side == "A" else 1,
            "rationale": "hurried", "prompt_valid": True}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
def test_a_rater_whose_gold_score_falls_is_paused_and_a_curator_lifts_the_pause(live_server, browser, viewport):
    rater = UserFactory(username=f"drifting-{viewport[0]}")
    curator = CuratorFactory(username=f"lead-{viewport[0]}")
    campaign = make_campaign("text-to-image", annotators=[rater], seed=60 + viewport[0] % 7)
    golds = [add_pair(campaign, seed=300 + n) for n in range(4)]
    Pair.objects.filter(pk__in=[g.pk for g in golds]).update(is_gold=True, gold_answer={"overall": 6})
    add_pair(campaign, seed=400)
    campaign.gold_rate, campaign.qualification_pass_mark = 1.0, 0.8
    campaign.gold_pause_window, campaign.gold_pause_min = 5, 3
    campaign.save()
    for _ in range(2):  # two gold pairs already missed
        lease = assignment_claim(campaign=campaign, annotator=rater)
        submit(lease, values=_wrong_gold(lease))
    assert not RaterPause.objects.exists()

    page = _page(browser, rater.username, live_server.url, viewport)
    page.goto(f"{live_server.url}/work/campaigns/{campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    lease = rater.assignments.get(status="active")
    press(page, _keys_preferring("A" if lease.swapped else "B"))  # the third miss
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-done]:not([hidden])")
    assert RaterPause.objects.filter(rater=rater, lifted_at__isnull=True).exists()

    page.keyboard.press("Enter")  # Next pair: refused, and the queue says why
    page.wait_for_url(f"**/work/campaigns/{campaign.slug}/")
    gate = page.locator("[data-qualification-gate]")
    expect(gate).to_have_attribute("data-code", "paused_recalibrate")
    expect(gate).to_contain_text("Paused")
    expect(gate).to_contain_text("A curator can lift the pause.")
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(f"{live_server.url}/api/v1/campaigns/{campaign.slug}/claim/",
                                 headers={"X-CSRFToken": token})
    assert response.status == 403 and response.json()["code"] == "paused_recalibrate"
    _shot(page, "qualification-paused", viewport)

    console = _page(browser, curator.username, live_server.url, viewport)
    console.goto(f"{live_server.url}/console/campaigns/{campaign.slug}/")
    expect(console.locator("[data-qualification-link]")).to_contain_text("1 paused")
    console.locator("[data-qualification-link]").click()
    row = console.locator(f"[data-paused='{rater.username}']")
    expect(row).to_contain_text("Paused: the last 3 gold pairs matched 0 of 3")
    _shot(console, "qualification-console-paused", viewport)
    row.locator("input[name=reason]").fill("retrained on the guidelines")
    console.locator(f"[data-lift='{rater.username}']").click()
    expect(console.locator("[data-no-paused]")).to_be_visible()
    expect(console.locator(f"[data-rater='{rater.username}']")).to_have_attribute("data-status", "admitted")
    _shot(console, "qualification-console-lifted", viewport)

    page.goto(f"{live_server.url}/work/campaigns/{campaign.slug}/")
    expect(page.locator("[data-qualification-gate]")).to_have_count(0)
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    assert "/work/assignments/" in page.url
