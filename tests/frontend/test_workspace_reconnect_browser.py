"""The workspace while the database is away, in headless Chromium: the draft, the submit and the next pair's claim
each meet the 503 that core/db_faults.py answers for a lost connection, the page says "Reconnecting… your answer is
kept" in its status line and tries again with the same request, and once the database answers the answer is stored
exactly once (one Idempotency-Key on every try) and the next pair is shown.

The database "goes away" for the first requests of each kind: the live server runs in a thread of this process, so
the API module's service calls are patched to raise ``OperationalError`` (what Django raises for a terminated
backend) that many times, and the app's own fault handling answers them.
"""

import os
import time

import pytest
from django.db import OperationalError
from playwright.sync_api import expect

from annotation.catalogue import schemas
from annotation.workqueue.api import assignments as assignments_api
from annotation.workqueue.models import Annotation, Assignment
from core.errors import ApplicationError
from tests.browser import chromium, log_in
from tests.factories import UserFactory
from tests.frontend.workspace_pairs import add_pair, make_pair

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
TIMEOUT_MS = 30_000
# The text-to-image preset answered in full (as tests/frontend/test_next_pair_browser.py rates); the first key saves a
# draft, the Ctrl+Enter in the middle shows what is missing.
FIRST, DURING = "3", "2"
REST = ["2", "1", "Control+Enter", "2", "Enter", "text:A follows the prompt.", "Escape", "j", "y"]
ANSWERS = {"text_faithfulness": {"A": 3, "B": 2}, "image_quality": {"A": 2, "B": 1}, "overall": 5,
           "rationale": "A follows the prompt.", "prompt_valid": True}
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


def database_away(monkeypatch, name: str, times: int, *, slow_s: float = 0, error=None) -> dict:
    """The API module's ``name`` raises OperationalError (or ``error()``) on its first ``times`` calls, then works
    (after ``slow_s`` seconds); counts the calls."""
    real = getattr(assignments_api, name)
    calls = {"failed": 0, "served": 0}

    def flaky(*args, **kwargs):
        if calls["failed"] < times:
            calls["failed"] += 1
            raise error() if error else OperationalError("terminating connection due to administrator command")
        calls["served"] += 1
        time.sleep(slow_s)
        return real(*args, **kwargs)

    monkeypatch.setattr(assignments_api, name, flaky)
    return calls


def press(page, keys):
    for key in keys:
        if key.startswith("text:"):
            page.keyboard.type(key[5:])
        else:
            page.keyboard.press(key)


def test_the_workspace_reconnects_and_submits_once_when_the_database_returns(live_server, browser, monkeypatch):
    rater = UserFactory(username="rater-reconnect")
    first = make_pair("text-to-image", annotators=[rater], seed=31)
    second = add_pair(first.campaign, seed=32, priority=-1)
    drafts = database_away(monkeypatch, "assignment_save_draft", 1, slow_s=1.5)
    submits = database_away(monkeypatch, "submit_response", 2)
    claims = database_away(monkeypatch, "claim_response", 2)

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    sent, answered = [], []
    page.on("request", lambda request: sent.append(request) if "/submit/" in request.url else None)
    page.on("response", lambda response: answered.append((response.url, response.status)) if "/api/" in response.url else None)
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/work/campaigns/{first.campaign.slug}/")
    page.keyboard.press("Enter")  # Start rating: the form's POST claims (the page's own view, not the API)
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    assignment = Assignment.objects.get(annotator=rater, pair=first)
    status = page.get_by_role("status").filter(has_text="Reconnecting")

    # The first draft meets the lost database: the status line says so, the answer stays, the draft is sent again;
    # an answer given while that try is on its way is saved after it.
    page.keyboard.press(FIRST)
    expect(status).to_be_visible()
    expect(status).to_have_attribute("aria-live", "polite")
    deadline = time.monotonic() + 10
    while not drafts["served"] and time.monotonic() < deadline:
        time.sleep(0.05)
    page.keyboard.press(DURING)
    expect(page.locator("[data-save-state]")).to_have_attribute("data-state", "saved")
    deadline = time.monotonic() + 10
    while drafts["served"] < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    expect(page.locator("[data-save-state]")).to_have_attribute("data-state", "saved")
    assert drafts == {"failed": 1, "served": 2}
    assignment.refresh_from_db()
    assert assignment.draft == {"text_faithfulness": {"A": 3, "B": 2}}

    # The submit: twice a 503, then stored once under the one key, and the form kept its values throughout.
    press(page, REST)
    page.keyboard.press("Control+Enter")
    expect(status).to_contain_text("Reconnecting… your answer is kept")
    expect(page.locator("[data-rating-form] input[name='overall'][value='5']")).to_be_checked()
    page.wait_for_selector("[data-done]:not([hidden])")
    assert submits == {"failed": 2, "served": 1}
    submit_statuses = [code for url, code in answered if "/submit/" in url]
    assert submit_statuses == [503, 503, 200]
    keys = {request.headers.get("idempotency-key") for request in sent}
    assert len(sent) == 3 and len(keys) == 1 and None not in keys, [r.headers for r in sent]
    assert {request.post_data_json["idempotency_key"] for request in sent} == keys
    annotation = Annotation.objects.get(pair=first)
    assert Annotation.objects.filter(assignment__annotator=rater).count() == 1
    assert annotation.idempotency_key.endswith(keys.pop())
    assert annotation.values == schemas.reorient(first.campaign.rating_schema.definition, ANSWERS, swapped=assignment.swapped)

    # Next pair: the prepared page is shown, its claim meets the lost database twice, then the pair is this rater's.
    page.wait_for_selector("body[data-next-prefetched]")
    page.keyboard.press("Enter")
    expect(status).to_contain_text("claiming again")
    page.wait_for_selector("body[data-workspace-ready]")
    claimed = Assignment.objects.get(annotator=rater, status=Assignment.Status.ACTIVE)
    assert claimed.pair_id == second.pk
    assert claims == {"failed": 2, "served": 1}
    assert page.url == f"{live_server.url}/work/assignments/{claimed.pk}/"
    expect(page.locator("[data-save-state]")).not_to_have_attribute("data-state", "reconnecting")
    assert [code for url, code in answered if "/claim/" in url] == [503, 503, 200]
    context.close()


def test_a_refused_submit_while_a_draft_waits_to_reconnect_leaves_drafts_saving(live_server, browser, monkeypatch):
    """A refusal (4xx) is shown and not sent again; the draft try that was waiting gave way to the submit, and the
    next change is saved as usual."""
    rater = UserFactory(username="rater-refused")
    pair = make_pair("text-to-image", annotators=[rater], seed=33)
    drafts = database_away(monkeypatch, "assignment_save_draft", 1)
    refused = database_away(monkeypatch, "submit_response", 1,
                            error=lambda: ApplicationError("Not this time.", code="invalid_answer"))
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/work/campaigns/{pair.campaign.slug}/")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-workspace-ready]")
    if page.locator("#instructions").is_visible():
        page.keyboard.press("Escape")
    page.keyboard.press(FIRST)
    expect(page.locator("[data-save-state]")).to_have_attribute("data-state", "reconnecting")
    press(page, [DURING, *REST])
    page.keyboard.press("Control+Enter")  # sent before the draft's next try (Retry-After: 3 s)
    expect(page.locator("[data-save-state]")).to_have_text("Not this time.")
    assert refused == {"failed": 1, "served": 0}, "a refusal is not sent again"
    assert not Annotation.objects.filter(pair=pair).exists()

    page.keyboard.press("n")  # the last question's other answer: a change like any
    expect(page.locator("[data-save-state]")).to_have_attribute("data-state", "saved")
    assert drafts["served"] >= 1
    assignment = Assignment.objects.get(pair=pair, annotator=rater)
    assert assignment.draft["prompt_valid"] is False
    context.close()
