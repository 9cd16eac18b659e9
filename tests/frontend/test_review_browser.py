"""At 1280×720 in headless Chromium: the page fits the window, its controls are reachable, Submit and Skip go away
once submitted, an empty queue offers nothing to start, the favicon is served, images come as renditions sized
for the screen, and a rater reviews, corrects and withdraws a submitted answer from "My work"."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.workqueue.models import Annotation, AnnotationRevision, Assignment
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import add_pair, make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
TIMEOUT_MS = 15_000
ANSWER = ["3", "2", "2", "1", "Control+Enter", "2", "Enter", "text:A follows the prompt.", "Escape", "j", "y"]


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def _page(browser, username: str, base: str):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    log_in(page, base, username)
    return page


def _press(page, keys):
    for key in keys:
        if key.startswith("text:"):
            page.keyboard.type(key[5:])
        else:
            page.keyboard.press(key)


FITS = """() => {
  const doc = document.documentElement;
  const clipped = [...document.querySelectorAll('.stage-head button, .stage-head a')].filter((el) => {
    const box = el.getBoundingClientRect(), stage = el.closest('.stage').getBoundingClientRect();
    return box.right > Math.min(stage.right, window.innerWidth) + 0.5 || box.width === 0;
  }).map((el) => el.textContent.trim());
  return {overflow: doc.scrollHeight - window.innerHeight, wide: doc.scrollWidth - window.innerWidth, clipped};
}"""


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_rating_page_fits_1280_by_720_and_submit_and_skip_go_away_once_submitted(live_server, browser):
    rater = UserFactory(username="rater-fit")
    pair = make_pair("text-to-image", annotators=[rater], seed=3)
    pair.campaign.name = "MMRB2 text-to-image, second round of expert ratings (demo)"
    pair.campaign.save(update_fields=["name"])
    page = _page(browser, "rater-fit", live_server.url)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    assert page.evaluate(FITS) == {"overflow": 0, "wide": 0, "clipped": []}
    srcset = page.locator(".side .zoom-image").first.get_attribute("srcset")
    assert "/w640.webp 640w" in srcset, "a 768 px output offers its 640 px rendition"
    _press(page, ANSWER)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-done]:not([hidden])")
    expect(page.locator("[data-submit]")).to_be_hidden()
    expect(page.locator("[data-skip-open]")).to_be_hidden()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "submitted-1280x720.png"))

    # Nothing is left: the queue says so and offers no button to start.
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    expect(page.locator("[data-queue-empty]")).to_contain_text("Nothing is left for you to rate")
    assert page.locator("[data-start]").count() == 0
    favicon = page.request.get(f"{live_server.url}/favicon.ico")
    assert (favicon.status, favicon.headers["content-type"]) == (200, "image/x-icon")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_rater_reviews_corrects_and_withdraws_a_submitted_pair_from_my_work(live_server, browser):
    rater = UserFactory(username="rater-review")
    pair = make_pair("text-to-image", annotators=[rater], seed=4)
    second = add_pair(pair.campaign, seed=5, priority=-1)
    page = _page(browser, "rater-review", live_server.url)
    for _ in (pair, second):
        page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
        page.keyboard.press("Enter")
        page.wait_for_selector("body[data-workspace-ready]")
        if page.locator("#instructions").is_visible():
            page.keyboard.press("Escape")
        _press(page, ANSWER)
        page.keyboard.press("Control+Enter")
        page.wait_for_selector("[data-done]:not([hidden])")
    first = Assignment.objects.get(pair=pair, annotator=rater)
    later = Assignment.objects.get(pair=second, annotator=rater)

    # Going back to a submitted pair's address opens its review, not "here is your queue".
    page.goto(f"{live_server.url}/work/assignments/{first.pk}/")
    page.wait_for_url(f"**/work/assignments/{first.pk}/review/")
    page.goto(f"{live_server.url}/work/me/")
    rows = page.locator("[data-work-item]")
    expect(rows).to_have_count(2)
    assert rows.first.get_attribute("data-work-item") == str(later.pk), "newest first"
    page.locator(f'[data-work-item="{first.pk}"] a').click()
    page.wait_for_selector("body[data-review-ready]")
    assert page.evaluate(FITS)["overflow"] == 0
    overall = page.locator('input[name="overall"]:checked')
    assert overall.get_attribute("value") == "5", "the answer given is filled in"

    # Prefer B overall while every rubric favours A: a warning, not a block; the correction is stored.
    page.locator('input[name="overall"][value="1"]').check(force=True)
    expect(page.locator("[data-warnings] li")).to_contain_text("prefers B, but your scores favour A")
    page.locator("[data-correct]").click()
    expect(page.locator("[data-save-state]")).to_have_text("Correction saved")
    page.screenshot(path=str(SCREENSHOTS / "review-1280x720.png"))
    stored = Annotation.objects.get(assignment=first)
    assert stored.values["overall"] == (6 if first.swapped else 1)
    assert list(AnnotationRevision.objects.filter(assignment=first).values_list("kind", flat=True).order_by("at")) == [
        "submitted", "corrected"]

    page.goto(f"{live_server.url}/work/assignments/{later.pk}/review/")
    page.wait_for_selector("body[data-review-ready]")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("[data-withdraw]").click()
    expect(page.locator("[data-review-state]")).to_have_text("You withdrew this answer.")
    assert not Annotation.objects.filter(assignment=later).exists()
    assert Assignment.objects.get(pk=later.pk).status == Assignment.Status.WITHDRAWN


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_next_pairs_images_are_in_the_browser_before_the_rater_moves_on(live_server, browser, monkeypatch):
    from annotation.workqueue.views import MediaView

    served = []  # what the server itself answered (the browser's cache answers the rest)
    original_get = MediaView.get

    def counting_get(view, request, *args, **kwargs):
        served.append(request.path)
        return original_get(view, request, *args, **kwargs)

    monkeypatch.setattr(MediaView, "get", counting_get)
    rater = UserFactory(username="rater-ahead")
    pair = make_pair("text-to-image", annotators=[rater], seed=6)
    second = add_pair(pair.campaign, seed=7, priority=-1)
    page = _page(browser, "rater-ahead", live_server.url)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-next-prefetched]")
    assert Assignment.objects.filter(annotator=rater).count() == 1, "no lease on the next pair"
    upcoming = {m.sha256 for m in second.media.all()} - {m.sha256 for m in pair.media.all()}
    assert upcoming
    assert upcoming <= {path.split("/")[2][:64] for path in served}, "every image of the next pair was loaded ahead"
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    _press(page, ANSWER)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-done]:not([hidden])")
    before = len(served)
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    page.wait_for_function("[...document.querySelectorAll('.side img')].every((img) => img.complete)")
    assert Assignment.objects.get(annotator=rater, status="active").pair_id == second.pk
    assert [path for path in served[before:] if path.split("/")[2][:64] in upcoming] == [], (
        "the next page took the next pair's images from the browser's cache")
