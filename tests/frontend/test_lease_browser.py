"""The lease on the rating page, in headless Chromium (issue 31): the time left counts down in the header, a
warning shows at two minutes, and when it runs out the page says so at once, keeps the answers on the device,
disables Submit and offers "Claim again" and "Next pair". The page's clock is Playwright's (no waiting in real
time); the lease is shortened in the database, as if the pair had been claimed long ago."""

import json
import os
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from annotation.workqueue.models import Assignment
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def _short_lease_page(browser, base: str, size, username: str):
    rater = UserFactory(username=username)
    pair = make_pair("text-to-image", annotators=[rater], seed=31)
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(15_000)
    context.clock.install()
    page = context.new_page()
    log_in(page, base, rater.username)
    page.goto(f"{base}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")  # Start rating
    page.wait_for_selector("body[data-workspace-ready]")
    lease = Assignment.objects.get(annotator=rater, status=Assignment.Status.ACTIVE)
    short = timezone.now() + timedelta(seconds=150)
    Assignment.objects.filter(pk=lease.pk).update(expires_at=short)
    page.reload()
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    return context, page, lease, short


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_an_active_tab_renews_its_lease_through_the_api(live_server, browser, size):
    context, page, lease, short = _short_lease_page(browser, live_server.url, size, f"rater-renew-{size[0]}")
    page.keyboard.press("j")  # the rater works: a key within the last minute, with under half the lease left
    page.clock.fast_forward(2_000)
    page.wait_for_function("() => /^Yours for (2\\d|1[5-9]):/.test(document.querySelector('[data-lease]').textContent)")
    renewed = Assignment.objects.get(pk=lease.pk).expires_at
    assert renewed > short + timedelta(minutes=20), "renewed to about now + the campaign's 30 minutes"
    assert page.locator("[data-lease]").get_attribute("data-lease-state") == "held"
    context.close()


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_a_short_lease_counts_down_warns_and_runs_out_with_submit_disabled_and_the_draft_kept(live_server, browser, size):
    rater = UserFactory(username=f"rater-lease-{size[0]}")
    pair = make_pair("text-to-image", annotators=[rater], seed=31)
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(15_000)
    context.clock.install()
    page = context.new_page()
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")  # Start rating
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    page.keyboard.press("3")  # one answer, saved as a draft
    page.wait_for_selector("[data-save-state][data-state=saved]")
    lease = Assignment.objects.get(annotator=rater, status=Assignment.Status.ACTIVE)
    assert lease.draft, "the answer reached the server's draft"

    short = timezone.now() + timedelta(seconds=150)
    Assignment.objects.filter(pk=lease.pk).update(expires_at=short)
    page.reload()
    page.wait_for_selector("body[data-workspace-ready]")
    header = page.locator("[data-lease]")
    assert re.fullmatch(r"Yours for 02:[0-5]\d", header.inner_text()), header.inner_text()
    assert header.get_attribute("data-lease-state") == "held"

    page.clock.fast_forward(40_000)
    page.wait_for_selector("[data-lease][data-lease-state=warning]")
    assert re.fullmatch(r"Only 01:[0-5]\d left", header.inner_text()), header.inner_text()
    assert page.locator("[data-submit]").is_enabled(), "still the rater's: Submit works"
    page.screenshot(path=str(SCREENSHOTS / f"lease-warning-{size[0]}x{size[1]}.png"))
    assert Assignment.objects.get(pk=lease.pk).expires_at == short, "an idle tab does not renew"

    page.clock.fast_forward(120_000)
    page.wait_for_selector("[data-lease][data-lease-state=expired]")
    assert header.inner_text() == "Time ran out"
    over = page.locator("[data-lease-over]")
    assert over.is_visible() and "Your time on this pair ran out" in over.inner_text()
    assert page.locator("[data-submit]").is_disabled()
    assert page.locator("[data-reclaim]").is_visible() and page.locator("[data-lease-next]").is_visible()
    kept = page.evaluate(f"() => localStorage.getItem('concord:draft:{lease.pk}')")
    assert kept is not None and json.loads(kept), "the answers are kept on the device"
    assert page.locator("text=not stored").count() == 0
    page.screenshot(path=str(SCREENSHOTS / f"lease-expired-{size[0]}x{size[1]}.png"))

    # The slot is still free (the server's time has not run out yet): "Claim again" gives the pair back.
    page.locator("[data-reclaim]").click()
    page.wait_for_selector("[data-lease-over]", state="hidden")
    assert page.locator("[data-submit]").is_enabled()
    assert header.get_attribute("data-lease-state") in ("held", "warning")
    assert Assignment.objects.get(pk=lease.pk).status == Assignment.Status.ACTIVE
    context.close()
