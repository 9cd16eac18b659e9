"""The work queue's store contract (``annotation.workqueue.store``), run against the store the suite's database chose:
PostgreSQL's hand-written statements in the main leg, the ORM in the SQLite leg (``make test-sqlite``).

Each test states what every store must do, read back through the ORM, so the two implementations answer alike."""

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from annotation.catalogue.models import Pair
from annotation.workqueue.models import Annotation, Assignment, AssignmentEvent
from annotation.workqueue.rules import orientation_swapped
from annotation.workqueue.store import AssignmentChanged, SubmissionRead, store
from core.errors import ApplicationError
from tests.factories import UserFactory
from tests.workqueue.assignment_helpers import ab_tie_campaign

pytestmark = pytest.mark.django_db


def test_the_store_is_chosen_once_by_the_configured_database():
    assert store() is store()
    assert (store().name, store().statements_atomic) == (
        ("postgresql", True) if connection.vendor == "postgresql" else ("portable", False))


def first_read(campaign, rater, *, by="id", now=None):
    key = campaign.pk if by == "id" else campaign.slug
    with transaction.atomic():
        return store().claim_read(by=by, campaign=key, annotator=rater, now=now or timezone.now(), draw=0.5,
                                  known=campaign if by == "id" else None)


def leased(campaign, rater, now=None):
    """A lease through the store alone: its first read (which may claim), else ``lease``."""
    now = now or timezone.now()
    read = first_read(campaign, rater, now=now)
    if read.lease is not None:
        return read.lease
    with transaction.atomic():
        return store().lease(campaign=campaign, annotator=rater, gold=False, now=now)


def test_the_first_read_tells_an_unknown_campaign_a_non_member_and_the_gate_apart():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    assert first_read(campaign, UserFactory()).membership is None
    missing = store().claim_read(by="slug", campaign="no-such", annotator=rater, now=timezone.now(), draw=0.5,
                                 known=None)
    assert (missing.lease, missing.campaign) == (None, None)
    outsider = first_read(campaign, UserFactory(), by="slug")
    assert (outsider.lease, outsider.campaign.pk, outsider.membership) == (None, campaign.pk, None)
    Assignment.objects.create(pair=Pair.objects.get(), campaign=campaign, annotator=rater, status="active",
                              swapped=False, claimed_at=timezone.now(), expires_at=timezone.now() + timedelta(minutes=5))
    holding = first_read(campaign, rater, by="slug")  # an open lease: the store reads, never claims
    assert holding.lease is None and holding.membership[0] is not None
    assert not holding.profile_missing and holding.crowd_entry_id is None


def test_a_lease_takes_one_slot_records_its_claim_and_comes_with_its_display():
    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1)
    now = timezone.now()
    lease = leased(campaign, rater, now)
    stored = Assignment.objects.get(pk=lease.pk)
    assert (stored.pair_id, stored.annotator_id, stored.status) == (pair.pk, rater.pk, "active")
    assert stored.swapped == orientation_swapped(campaign.orientation_seed, pair.pk, rater.pk) == lease.swapped
    assert stored.expires_at == now + timedelta(minutes=campaign.lease_minutes)
    assert Pair.objects.get(pk=pair.pk).active_claims == 1
    assert AssignmentEvent.objects.filter(assignment=stored, kind="claim").count() == 1
    display = store().display_read(assignment_id=lease.pk, annotator=rater)
    assert (display.pair.prompt_id, display.pair.response_a_id, display.campaign.rating_schema.pk) == (
        pair.prompt_id, pair.response_a_id, campaign.rating_schema_id)


def test_nothing_is_leased_once_the_annotator_had_every_pair():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=1)
    Assignment.objects.filter(pk=leased(campaign, rater).pk).update(status=Assignment.Status.SKIPPED)
    with transaction.atomic():
        assert store().lease(campaign=campaign, annotator=rater, gold=False, now=timezone.now()) is None


def test_locked_own_and_display_read_are_the_annotators_alone_while_a_member():
    campaign, (rater, other, _), _ = ab_tie_campaign(pairs=1)
    lease = leased(campaign, rater)
    with transaction.atomic():
        locked = store().locked_own(lease, rater)
        assert (locked.pk, locked.pair.pk, locked.campaign.rating_schema.definition) == (
            lease.pk, lease.pair_id, campaign.rating_schema.definition)
        with pytest.raises(ApplicationError) as refused:
            store().locked_own(lease, other)
        assert refused.value.status_code == 404
    with pytest.raises(ApplicationError):
        store().display_read(assignment_id=lease.pk, annotator=other)
    campaign.members.remove(rater)
    for read in (lambda: store().display_read(assignment_id=lease.pk, annotator=rater),
                 lambda: store().locked_own(lease, rater)):
        with transaction.atomic(), pytest.raises(ApplicationError):
            read()


def fields(values=None):
    return {"values": values or {"preference": "A"}, "shown_swapped": False, "rationale": "", "time_on_item_ms": 5,
            "media_played": None, "gold_correct": None, "confirmed_warnings": None, "idempotency_key": "k"}


def test_a_submission_read_then_write_stores_once_and_a_stale_status_writes_nothing():
    campaign, (rater, *_), (pair,) = ab_tie_campaign(pairs=1)
    lease = leased(campaign, rater)
    with transaction.atomic():
        held, earlier = store().submission_read(lease, rater, lock=True)
        assert earlier is None and held == SubmissionRead.of(store().locked_own(lease, rater))
        stale = SubmissionRead(**{**{f: getattr(held, f) for f in SubmissionRead.__slots__}, "status": "expired"})
        with pytest.raises(AssignmentChanged), transaction.atomic():
            store().submission_write(held=stale, annotator=rater, fields=fields(), was_expired=True, now=timezone.now())
        annotation = store().submission_write(held=held, annotator=rater, fields=fields(), was_expired=False,
                                              now=timezone.now())
    assert Annotation.objects.get().pk == annotation.pk
    assert Assignment.objects.get(pk=lease.pk).status == "submitted"
    assert Pair.objects.filter(pk=pair.pk).values_list("active_claims", "annotations_done").get() == (0, 1)
    assert AssignmentEvent.objects.filter(assignment_id=lease.pk, kind="submit").count() == 1
    with transaction.atomic():
        assert store().submission_read(lease, rater, lock=True)[1].pk == annotation.pk


def test_an_expired_lease_whose_pair_filled_up_is_not_stored():
    campaign, (rater, other, _), (pair,) = ab_tie_campaign(pairs=1, overlap=1)
    lease = leased(campaign, rater)
    Assignment.objects.filter(pk=lease.pk).update(status=Assignment.Status.EXPIRED)
    Pair.objects.filter(pk=pair.pk).update(active_claims=0)
    leased(campaign, other)  # the slot went to another rater
    with pytest.raises(ApplicationError), transaction.atomic():
        held, _ = store().submission_read(lease, rater, lock=True)
        if store().submission_write(held=held, annotator=rater, fields=fields(), was_expired=True,
                                    now=timezone.now()) is None:
            raise ApplicationError("refused", code="lease_expired", status_code=409)
    assert Annotation.objects.count() == 0 and Assignment.objects.get(pk=lease.pk).status == "expired"


def test_the_first_read_carries_the_entry_gate_and_the_claim_refuses_until_the_profile_is_answered():
    """On every store the claim reads the gate with the membership; a rater who must answer a profile is refused
    (``profile_required``) and gets nothing, then claims once they answered."""
    from annotation.workqueue.services.assignments import assignment_claim
    from annotation.workqueue.services.profile import profile_answer_save
    from tests.workqueue.test_profile import _profiled_campaign

    campaign, (rater, *_), _, questionnaire = _profiled_campaign(pairs=1)
    read = first_read(campaign, rater)
    assert (read.lease, read.profile_missing) == (None, True)
    with pytest.raises(ApplicationError) as refused:
        assignment_claim(campaign=campaign, annotator=rater)
    assert refused.value.code == "profile_required" and Assignment.objects.count() == 0
    profile_answer_save(user=rater, questionnaire=questionnaire,
                        raw={"expertise": ["Video"], "languages": ["English"], "years": 3})
    assert assignment_claim(campaign=campaign, annotator=rater) is not None
