"""Renewing a lease over HTTP (issue 31): an active tab keeps its pair, within the campaign's maximum.

Runs on PostgreSQL and on the SQLite leg (``make test-sqlite``) alike: the renewal takes the row lock each store
takes for a draft."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.workqueue.models import Assignment
from annotation.workqueue.services.assignments import LEASE_RENEWALS_MAX, assignments_expire
from tests.workqueue.assignment_helpers import ab_tie_campaign

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def claimed(**campaign):
    campaign, (rater, other, _), _ = ab_tie_campaign(pairs=1, overlap=1, **campaign)
    api = client_for(rater)
    assignment_id = api.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    return campaign, api, Assignment.objects.get(pk=assignment_id), other


def renew(api, assignment):
    return api.post(f"/api/v1/assignments/{assignment.pk}/renewal/")


def test_a_renewal_extends_the_lease_to_now_plus_the_campaigns_lease_time():
    campaign, api, lease, _ = claimed()
    Assignment.objects.filter(pk=lease.pk).update(expires_at=timezone.now() + timedelta(minutes=1))
    before = timezone.now()
    answer = renew(api, lease)
    assert answer.status_code == 200
    lease.refresh_from_db()
    assert lease.expires_at >= before + timedelta(minutes=campaign.lease_minutes)
    body = answer.json()
    assert (body["assignment"], body["status"]) == (lease.pk, "active")
    assert body["renewable_until"] == (lease.claimed_at + timedelta(minutes=LEASE_RENEWALS_MAX * campaign.lease_minutes)
                                       ).isoformat().replace("+00:00", "Z")


def test_a_renewal_never_goes_past_the_claim_plus_four_lease_times():
    campaign, api, lease, _ = claimed()
    # Claimed long ago, still live: now + lease_minutes would pass the cap.
    Assignment.objects.filter(pk=lease.pk).update(
        claimed_at=lease.claimed_at - timedelta(minutes=(LEASE_RENEWALS_MAX - 1) * campaign.lease_minutes + 5),
        expires_at=timezone.now() + timedelta(minutes=2),
    )
    lease.refresh_from_db()
    cap = lease.claimed_at + timedelta(minutes=LEASE_RENEWALS_MAX * campaign.lease_minutes)
    assert renew(api, lease).status_code == 200
    lease.refresh_from_db()
    assert lease.expires_at == cap
    assert lease.expires_at < timezone.now() + timedelta(minutes=campaign.lease_minutes)
    assert renew(api, lease).status_code == 200  # at the cap: nothing more, no error
    lease.refresh_from_db()
    assert lease.expires_at == cap


def test_a_lease_past_its_time_is_refused_with_lease_expired_and_stays_as_it_was():
    _, api, lease, _ = claimed()
    past = timezone.now() - timedelta(seconds=5)
    Assignment.objects.filter(pk=lease.pk).update(expires_at=past)
    answer = renew(api, lease)
    assert (answer.status_code, answer.json()["code"]) == (409, "lease_expired")
    lease.refresh_from_db()
    assert (lease.status, lease.expires_at) == ("active", past)


def test_an_expired_lease_whose_slot_went_to_another_is_refused_with_lease_expired():
    campaign, api, lease, other = claimed()
    Assignment.objects.filter(pk=lease.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assignments_expire()
    taken = client_for(other).post(f"/api/v1/campaigns/{campaign.slug}/claim/")
    assert taken.status_code == 200 and taken.json()["assignment"] != lease.pk
    answer = renew(api, lease)
    assert (answer.status_code, answer.json()["code"]) == (409, "lease_expired")
    lease.refresh_from_db()
    assert lease.status == "expired"


def test_a_submitted_or_skipped_assignment_has_no_lease_to_renew():
    _, api, lease, _ = claimed()
    api.post(f"/api/v1/assignments/{lease.pk}/skip/", {"reason": "blank image"}, format="json")
    answer = renew(api, lease)
    assert (answer.status_code, answer.json()["code"]) == (409, "assignment_closed")


def test_another_annotators_lease_is_not_found_and_not_renewed():
    _, _, lease, other = claimed()
    answer = renew(client_for(other), lease)
    assert answer.status_code == 404
    assert Assignment.objects.get(pk=lease.pk).expires_at == lease.expires_at


def test_anonymous_callers_cannot_renew():
    _, _, lease, _ = claimed()
    assert APIClient().post(f"/api/v1/assignments/{lease.pk}/renewal/").status_code in (401, 403)


def test_a_lease_whose_time_ran_out_is_claimed_again_while_its_slot_is_free():
    campaign, api, lease, _ = claimed()
    Assignment.objects.filter(pk=lease.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assignments_expire()
    before = timezone.now()
    answer = api.post(f"/api/v1/assignments/{lease.pk}/renewal/", {"reclaim": True}, format="json")
    assert answer.status_code == 200
    lease.refresh_from_db()
    assert lease.status == "active" and lease.expires_at >= before + timedelta(minutes=campaign.lease_minutes)
    assert lease.pair.active_claims == 1


def test_a_reclaim_is_refused_with_lease_taken_when_the_slot_went_to_someone_else():
    campaign, api, lease, other = claimed()
    Assignment.objects.filter(pk=lease.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assignments_expire()
    assert client_for(other).post(f"/api/v1/campaigns/{campaign.slug}/claim/").status_code == 200
    answer = api.post(f"/api/v1/assignments/{lease.pk}/renewal/", {"reclaim": True}, format="json")
    assert (answer.status_code, answer.json()["code"]) == (409, "lease_taken")
    lease.refresh_from_db()
    assert (lease.status, lease.pair.active_claims) == ("expired", 1)


def test_the_campaigns_longest_lease_caps_renewals_and_the_answer_says_so():
    """A curator sets ``lease_max_minutes``: renewals stop at claim + that, not at 4 × the lease time."""
    campaign, api, lease, _ = claimed(lease_minutes=10, lease_max_minutes=15)
    Assignment.objects.filter(pk=lease.pk).update(claimed_at=lease.claimed_at - timedelta(minutes=8),
                                                  expires_at=timezone.now() + timedelta(minutes=2))
    lease.refresh_from_db()
    cap = lease.claimed_at + timedelta(minutes=15)
    answer = renew(api, lease)
    assert answer.status_code == 200
    assert answer.json()["renewable_until"] == cap.isoformat().replace("+00:00", "Z")
    lease.refresh_from_db()
    assert lease.expires_at == cap


def test_saving_a_draft_renews_a_live_lease_only_within_the_longest_lease():
    """The work renews the lease as a renewal does: a draft saved near the cap extends it to the cap, no further."""
    campaign, api, lease, _ = claimed()
    Assignment.objects.filter(pk=lease.pk).update(
        claimed_at=lease.claimed_at - timedelta(minutes=LEASE_RENEWALS_MAX * campaign.lease_minutes - 3),
        expires_at=timezone.now() + timedelta(minutes=1))
    lease.refresh_from_db()
    cap = lease.claimed_at + timedelta(minutes=LEASE_RENEWALS_MAX * campaign.lease_minutes)
    saved = api.put(f"/api/v1/assignments/{lease.pk}/draft/", {"values": {"rationale": "so far"}}, format="json")
    assert saved.status_code == 200, saved.content
    lease.refresh_from_db()
    assert lease.expires_at == cap and lease.draft == {"rationale": "so far"}


def test_a_draft_saved_after_the_lease_ran_out_is_kept_but_does_not_revive_the_lease():
    _, api, lease, _ = claimed()
    past = timezone.now() - timedelta(seconds=5)
    Assignment.objects.filter(pk=lease.pk).update(expires_at=past)
    saved = api.put(f"/api/v1/assignments/{lease.pk}/draft/", {"values": {"rationale": "late"}}, format="json")
    assert saved.status_code == 200, saved.content
    lease.refresh_from_db()
    assert (lease.expires_at, lease.draft) == (past, {"rationale": "late"})
    assert renew(api, lease).json()["code"] == "lease_expired"
