"""The next pair, prepared ahead, in headless Chromium: "Next pair" shows the prepared page in the same document and
claims in the same moment; the page is kept only if the claim gave that very pair, else the claimed pair's own page
(or the queue, when nothing is left) is loaded. A kept page works as a loaded one: its drafts, submit, keys and
address are the new assignment's."""

import os
from pathlib import Path

import pytest

from annotation.catalogue.models import Pair
from annotation.workqueue.models import Annotation, Assignment
from annotation.workqueue.selectors import pair_display
from tests.browser import log_in
from tests.factories import UserFactory
from tests.frontend import workspace_pairs
from tests.frontend.workspace_pairs import SECRET, add_pair, make_pair, submit_by_keys

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
TIMEOUT_MS = 15_000
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
browser = workspace_pairs.browser


def _rater_on_first_pair(browser, base: str, username: str, campaign, size=(1280, 720)):
    """The rater's page on their first pair, the next one prepared, the document marked (a navigation clears it)."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    log_in(page, base, username)
    page.goto(f"{base}/work/campaigns/{campaign.slug}/")
    page.keyboard.press("Enter")  # Start rating
    page.wait_for_selector("body[data-next-prefetched]")
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    page.evaluate("() => { window.sameDocument = true; }")
    return page


def _active(rater) -> Assignment:
    return Assignment.objects.get(annotator=rater, status=Assignment.Status.ACTIVE)


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_next_pair_is_the_prepared_page_claimed_as_it_is_shown_and_works_as_a_loaded_one(live_server, browser, size):
    rater = UserFactory(username=f"rater-next-{size[0]}")
    first = make_pair("text-to-image", annotators=[rater], seed=21)
    second = add_pair(first.campaign, seed=22, priority=-1)
    add_pair(first.campaign, seed=23, priority=-2)
    page = _rater_on_first_pair(browser, live_server.url, rater.username, first.campaign, size)
    assert Assignment.objects.filter(annotator=rater).count() == 1, "preparing the next pair takes no lease"
    shortcuts = page.locator("#shortcuts dd").all_inner_texts()
    assert "Submit" in shortcuts
    submit_by_keys(page)

    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    assert page.evaluate("() => window.sameDocument") is True, "no navigation: the prepared page was shown"
    claimed = _active(rater)
    assert claimed.pair_id == second.pk
    assert page.url == f"{live_server.url}/work/assignments/{claimed.pk}/", "the address names the claimed pair's page"
    assert page.get_attribute("[data-workspace]", "data-assignment") == str(claimed.pk)
    display = pair_display(assignment=claimed)
    shown = page.eval_on_selector_all(".side img", "(images) => images.map((img) => img.getAttribute('src'))")
    assert shown == [display["left"][0]["url"], display["right"][0]["url"]], "the sides the claim gave, in its order"
    assert SECRET not in page.content().lower()
    assert page.locator("[data-lease]").inner_text().startswith("Yours for ")
    page.screenshot(path=str(SCREENSHOTS / f"next-pair-{size[0]}x{size[1]}.png"))
    page.wait_for_function("() => /^1 today · 1 in all/.test(document.querySelector('[data-progress]').textContent)")

    page.keyboard.press("?")  # the shortcuts are those of a loaded page, each once
    assert page.locator("#shortcuts dd").all_inner_texts() == shortcuts
    page.keyboard.press("Escape")
    page.keyboard.press("3")  # a draft goes to the new assignment
    page.wait_for_selector("[data-save-state][data-state=saved]")
    assert Assignment.objects.get(pk=claimed.pk).draft

    page.wait_for_selector("body[data-next-prefetched]")
    page.keyboard.press("k")
    submit_by_keys(page)
    annotation = Annotation.objects.get(assignment=claimed)
    assert annotation.annotator == rater and annotation.time_on_item_ms > 0
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    assert page.evaluate("() => window.sameDocument") is True
    assert _active(rater).pair.priority == -2
    page.context.close()


def test_a_claim_that_gives_another_pair_loads_that_pairs_own_page(live_server, browser):
    rater = UserFactory(username="rater-other")
    first = make_pair("text-to-image", annotators=[rater], seed=24)
    prepared = add_pair(first.campaign, seed=25, priority=-1)
    other = add_pair(first.campaign, seed=26, priority=-2)
    page = _rater_on_first_pair(browser, live_server.url, "rater-other", first.campaign)
    submit_by_keys(page)
    Pair.objects.filter(pk=prepared.pk).update(status=Pair.Status.EXCLUDED)  # a curator excludes the prepared pair

    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/assignments/*/")
    page.wait_for_selector("body[data-workspace-ready]")
    claimed = _active(rater)
    assert claimed.pair_id == other.pk
    assert page.url == f"{live_server.url}/work/assignments/{claimed.pk}/"
    assert page.evaluate("() => window.sameDocument") is None, "the claimed pair's own page was loaded"
    display = pair_display(assignment=claimed)
    assert page.get_attribute(".side img", "src") == display["left"][0]["url"]
    page.context.close()


def test_when_nothing_is_left_at_the_claim_the_queue_says_so(live_server, browser):
    rater = UserFactory(username="rater-last")
    first = make_pair("text-to-image", annotators=[rater], seed=27)
    prepared = add_pair(first.campaign, seed=28, priority=-1)
    page = _rater_on_first_pair(browser, live_server.url, "rater-last", first.campaign)
    submit_by_keys(page)
    Pair.objects.filter(pk=prepared.pk).update(status=Pair.Status.EXCLUDED)

    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/work/campaigns/{first.campaign.slug}/")
    assert not Assignment.objects.filter(annotator=rater, status=Assignment.Status.ACTIVE).exists()
    assert page.locator("[data-start-form]").count() == 0, "an empty queue offers nothing to start"
    page.context.close()
