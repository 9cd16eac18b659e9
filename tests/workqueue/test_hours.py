"""Hours and output for payment: active time from a rater's events (time on a pair counts up to the idle threshold,
a pause between pairs longer than it counts nothing), pairs submitted, gold score; as CSV and over the API, to
curators only."""

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from annotation.workqueue.hours import active_time
from annotation.workqueue.models import Assignment, AssignmentEvent
from annotation.workqueue.services.assignments import assignment_claim, assignment_save_draft, assignment_skip
from tests.factories import CuratorFactory, PairFactory
from tests.workqueue.assignment_helpers import AB_TIE_ANSWER, ab_tie_campaign, submit

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
IDLE = timedelta(minutes=5)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def test_time_on_one_pair_counts_each_gap_up_to_the_threshold():
    # Claim, draft 2 minutes later, submit 12 minutes after that: 2 + 5 (capped).
    assert active_time([(at(0), 1), (at(2), 1), (at(14), 1)], idle=IDLE) == timedelta(minutes=7)


def test_a_pause_between_pairs_longer_than_the_threshold_counts_nothing_a_short_one_in_full():
    events = [(at(0), 1), (at(3), 1), (at(4), 2), (at(6), 2), (at(60), 3), (at(61), 3)]
    # 3 on pair 1, 1 between (short), 2 on pair 2, the 54-minute break nothing, 1 on pair 3.
    assert active_time(events, idle=IDLE) == timedelta(minutes=7)
    assert active_time(list(reversed(events)), idle=IDLE) == timedelta(minutes=7)  # any order
    assert active_time([(at(0), 1)], idle=IDLE) == timedelta(0)
    assert active_time(events, idle=timedelta(minutes=60)) == timedelta(minutes=61)
    with pytest.raises(ValueError, match="must be positive"):
        active_time(events, idle=timedelta(0))


def _scenario():
    """One rater who claims, drafts and submits two pairs (one gold, answered right), then skips a third an hour
    later; a second rater who did nothing; a lease expiry the system wrote, which is not work."""
    campaign, (worker, idler, _), pairs = ab_tie_campaign(pairs=0, members=3, gold_rate=0.0)
    gold = PairFactory(campaign=campaign, is_gold=True, gold_answer=AB_TIE_ANSWER)
    PairFactory(campaign=campaign)
    PairFactory(campaign=campaign)
    campaign.gold_rate = 1.0
    campaign.save(update_fields=["gold_rate"])
    first = assignment_claim(campaign=campaign, annotator=worker, now=at(0))
    assert first.pair_id == gold.pk
    # Sides are drawn per lease; shown as stored, the answer "A" is the gold's A (swapped, it would be B).
    Assignment.objects.filter(pk=first.pk).update(swapped=False)
    first.refresh_from_db()
    assignment_save_draft(assignment=first, annotator=worker, values={"preference": "A"}, now=at(1))
    submit(first, now=at(3))
    second = assignment_claim(campaign=campaign, annotator=worker, now=at(4))
    assignment_save_draft(assignment=second, annotator=worker, values={"preference": "B"}, now=at(12))
    submit(second, values={"preference": "B"}, now=at(13))
    third = assignment_claim(campaign=campaign, annotator=worker, now=at(70))
    assignment_skip(assignment=third, annotator=worker, reason="other", now=at(71))
    AssignmentEvent.objects.create(assignment=third, campaign=campaign, annotator=worker,
                                   kind=AssignmentEvent.Kind.EXPIRE, at=at(200))
    return campaign, worker, idler


@pytest.mark.django_db
def test_the_api_gives_each_rater_active_time_pairs_and_gold_score_under_the_threshold_asked():
    campaign, worker, idler = _scenario()
    api = APIClient()
    api.force_authenticate(CuratorFactory())
    body = api.get(f"/api/v1/campaigns/{campaign.slug}/hours/?idle_minutes=5").json()
    assert body["idle_minutes"] == 5
    rows = {r["username"]: r for r in body["raters"]}
    mine = rows[worker.username]
    # Pair 1: 1 + 2; between: 1; pair 2: 5 (8 capped) + 1; the hour's break: 0; pair 3: 1 → 11 minutes.
    assert mine["active_seconds"] == 11 * 60
    assert (mine["pairs_submitted"], mine["pairs_skipped"]) == (2, 1)
    assert (mine["gold_answered"], mine["gold_correct"], mine["gold_score"]) == (1, 1, 1.0)
    assert mine["last_activity"].startswith("2026-03-02T10:11")  # the expiry at 12:20 is not the rater's
    assert rows[idler.username]["active_seconds"] == 0 and rows[idler.username]["gold_score"] is None
    longer = api.get(f"/api/v1/campaigns/{campaign.slug}/hours/?idle_minutes=90").json()
    assert {r["username"]: r for r in longer["raters"]}[worker.username]["active_seconds"] == (13 + 57 + 1) * 60


@pytest.mark.django_db
@pytest.mark.parametrize("raw", ["0", "-1", "abc", "nan", "1e9", "241"])
def test_a_threshold_outside_half_a_minute_to_four_hours_is_a_400_saying_the_range(raw):
    campaign, _, _ = ab_tie_campaign(pairs=1)
    api = APIClient()
    api.force_authenticate(CuratorFactory())
    response = api.get(f"/api/v1/campaigns/{campaign.slug}/hours/?idle_minutes={raw}")
    assert response.status_code == 400
    assert response.json() == {"code": "invalid_idle_minutes",
                               "message": "idle_minutes is a number of minutes from 0.5 to 240 (default 5)"}


@pytest.mark.django_db
def test_hours_are_for_curators_only():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    api = APIClient()
    api.force_authenticate(rater)
    assert api.get(f"/api/v1/campaigns/{campaign.slug}/hours/").status_code == 403
    browser = Client()
    browser.force_login(rater)
    assert browser.get(f"/console/campaigns/{campaign.slug}/hours.csv").status_code == 403


@pytest.mark.django_db
def test_the_console_downloads_the_same_figures_as_csv():
    campaign, worker, _ = _scenario()
    browser = Client()
    browser.force_login(CuratorFactory())
    response = browser.get(f"/console/campaigns/{campaign.slug}/hours.csv?idle_minutes=5")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert f"{campaign.slug}-hours-idle5m.csv" in response["Content-Disposition"]
    rows = {r["username"]: r for r in csv.DictReader(io.StringIO(response.content.decode()))}
    assert rows[worker.username]["active_seconds"] == "660"
    assert rows[worker.username]["active_hours"] == "0.183"
    assert rows[worker.username]["pairs_submitted"] == "2" and rows[worker.username]["gold_score"] == "1.0"
    page = browser.get(f"/console/campaigns/{campaign.slug}/profile/")
    assert page.status_code == 200 and b"Download CSV" in page.content


@pytest.mark.django_db
def test_the_rater_hours_command_prints_the_apis_figures_as_json_csv_and_text():
    campaign, worker, idler = _scenario()
    api = APIClient()
    api.force_authenticate(CuratorFactory())
    served = api.get(f"/api/v1/campaigns/{campaign.slug}/hours/?idle_minutes=5").json()

    out = io.StringIO()
    call_command("rater_hours", "--campaign", campaign.slug, "--idle-minutes", "5", "--json", stdout=out)
    printed = json.loads(out.getvalue())
    for body in (printed, served):
        for row in body["raters"]:
            for field in ("first_activity", "last_activity"):
                row[field] = row[field] and datetime.fromisoformat(row[field])
    assert printed == served
    out = io.StringIO()
    call_command("rater_hours", "--campaign", campaign.slug, "--csv", stdout=out)  # the default threshold is 5
    browser = Client()
    browser.force_login(CuratorFactory())
    assert out.getvalue() == browser.get(f"/console/campaigns/{campaign.slug}/hours.csv?idle_minutes=5").content.decode()
    out = io.StringIO()
    call_command("rater_hours", "--campaign", campaign.slug, "--idle-minutes", "90", stdout=out)
    text = out.getvalue()
    assert "gaps over 90 min idle" in text
    assert f"{worker.username}: 1h11m active, 2 submitted, 1 skipped, gold 1/1 (100%)" in text
    assert f"{idler.username}: 0h00m active, 0 submitted, 0 skipped, no gold" in text


@pytest.mark.django_db
@pytest.mark.parametrize(("arguments", "message"), [
    (["--campaign", "nowhere"], "campaign 'nowhere' does not exist"),
    (["--idle-minutes", "0"], "idle_minutes is a number of minutes from 0.5 to 240 (default 5)"),
    (["--idle-minutes", "abc"], "idle_minutes is a number of minutes from 0.5 to 240 (default 5)"),
])
def test_the_rater_hours_command_refuses_an_unknown_campaign_or_a_threshold_out_of_range(arguments, message):
    campaign, _, _ = ab_tie_campaign(pairs=1)
    with pytest.raises(CommandError) as refused:
        call_command("rater_hours", *(["--campaign", campaign.slug] + arguments), stdout=io.StringIO())
    assert str(refused.value) == message


@pytest.mark.django_db
def test_the_hours_list_runs_the_same_queries_for_three_raters_as_for_thirty():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.factories import UserFactory

    api = APIClient()
    api.force_authenticate(CuratorFactory())
    counts = []
    for members in (3, 30):
        campaign, raters, _ = ab_tie_campaign(pairs=3, members=members)
        for rater in raters[:3]:
            submit(assignment_claim(campaign=campaign, annotator=rater))
        campaign.members.add(UserFactory())
        with CaptureQueriesContext(connection) as queries:
            assert api.get(f"/api/v1/campaigns/{campaign.slug}/hours/").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
