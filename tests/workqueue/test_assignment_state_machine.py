"""The work queue's state machine is closed: whatever raters and curators do, in whatever order and with whatever
lease times, a pair's counters are what its rows say and nobody is kept waiting while a slot is open.

The first tests replay sequences that once broke it (a withdrawn answer submitted again); the last one lets
hypothesis drive claim / draft / submit / withdraw / correct / skip / expire / extend / exclude / restore with two
or three raters and checks the invariants after every step.
"""

from datetime import timedelta

import pytest
from django.db.models import Count, Q
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from rest_framework.test import APIClient

from annotation.catalogue.models import Pair
from annotation.workqueue.models import Annotation, Assignment
from annotation.workqueue.services.assignments import (
    annotation_submit,
    assignment_claim,
    assignment_save_draft,
    assignment_skip,
    assignments_expire,
)
from annotation.workqueue.services.review import annotation_correct, annotation_withdraw
from core.errors import ApplicationError
from curation.services.curator_actions import pair_exclude, pair_extend_overlap, pair_restore
from tests.workqueue.assignment_helpers import AB_TIE_ANSWER, ab_tie_campaign, submit


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _counters(pair_id: int) -> tuple[str, int, int]:
    return Pair.objects.filter(pk=pair_id).values_list("status", "active_claims", "annotations_done").get()


@pytest.mark.django_db(transaction=True)
def test_a_withdrawn_answer_cannot_be_submitted_again_and_the_next_rater_keeps_the_slot():
    campaign, (first, second, _), (pair,) = ab_tie_campaign(overlap=1, pairs=1, lease_minutes=1)
    one, two = _api(first), _api(second)
    lease = one.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    submit_url = f"/api/v1/assignments/{lease}/submit/"
    assert one.post(submit_url, {"values": AB_TIE_ANSWER}, format="json", HTTP_IDEMPOTENCY_KEY="first").status_code == 200
    assert one.post(f"/api/v1/assignments/{lease}/withdrawal/").status_code == 200
    taken = two.post(f"/api/v1/campaigns/{campaign.slug}/claim/").json()["assignment"]
    assert _counters(pair.pk) == ("queued", 1, 0)

    again = one.post(submit_url, {"values": AB_TIE_ANSWER}, format="json", HTTP_IDEMPOTENCY_KEY="second")
    assert (again.status_code, again.json()["code"]) == (409, "assignment_withdrawn")
    assert "withdrew" in again.json()["message"]
    same_key = one.post(submit_url, {"values": AB_TIE_ANSWER}, format="json", HTTP_IDEMPOTENCY_KEY="first")
    assert (same_key.status_code, same_key.json()["code"]) == (409, "assignment_withdrawn"), "its old key brings nothing back"
    assert _counters(pair.pk) == ("queued", 1, 0), "nothing was counted"
    assert Assignment.objects.get(pk=lease).status == "withdrawn"

    stored = two.post(f"/api/v1/assignments/{taken}/submit/", {"values": AB_TIE_ANSWER}, format="json",
                      HTTP_IDEMPOTENCY_KEY="first")  # the same key as the other rater's: keys are per assignment
    assert stored.status_code == 200, stored.json()
    assert _counters(pair.pk) == ("complete", 0, 1)
    assert assignments_expire(now=timezone.now() + timedelta(minutes=5)) == 0


@pytest.mark.django_db(transaction=True)
def test_expiry_counts_live_leases_so_a_drifted_counter_cannot_go_below_zero():
    campaign, (rater, other, _), pairs = ab_tie_campaign(overlap=1, pairs=2, lease_minutes=1)
    lease = assignment_claim(campaign=campaign, annotator=rater)
    Pair.objects.filter(pk=lease.pair_id).update(active_claims=0)  # a counter that drifted, as the bug above left it
    later = timezone.now() + timedelta(minutes=2)
    assert assignments_expire(now=later) == 1
    assert _counters(lease.pair_id) == ("queued", 0, 0)
    assert assignment_claim(campaign=campaign, annotator=other, now=later) is not None, "claims go on"


@pytest.mark.django_db
def test_a_withdrawn_assignment_cannot_be_skipped_or_corrected():
    campaign, (rater, *_), _ = ab_tie_campaign(overlap=1, pairs=1)
    lease = assignment_claim(campaign=campaign, annotator=rater)
    submit(lease)
    annotation_withdraw(assignment_id=lease.pk, annotator=rater)
    with pytest.raises(ApplicationError) as skipped:
        assignment_skip(assignment=lease, annotator=rater, reason="changed my mind")
    assert (skipped.value.code, skipped.value.status_code) == ("assignment_withdrawn", 409)
    with pytest.raises(ApplicationError) as corrected:
        annotation_correct(assignment_id=lease.pk, annotator=rater, values=AB_TIE_ANSWER)
    assert corrected.value.code == "assignment_withdrawn"
    assert Assignment.objects.get(pk=lease.pk).status == "withdrawn"


@pytest.mark.django_db(transaction=True)
def test_one_key_sent_for_two_assignments_stores_both():
    campaign, (rater, *_), _ = ab_tie_campaign(pairs=2, overlap=1)
    first = assignment_claim(campaign=campaign, annotator=rater)
    stored = submit(first, key="same")
    assert submit(first, key="same") == stored and submit(first, key="another") == stored, "a repeat is the same answer"
    second = assignment_claim(campaign=campaign, annotator=rater)
    assert submit(second, key="same").assignment_id == second.pk
    assert Annotation.objects.count() == 2


@pytest.mark.django_db
def test_extending_a_pair_that_holds_more_ratings_than_its_overlap_opens_that_many_slots():
    campaign, (rater, *_), (pair,) = ab_tie_campaign(overlap=2, pairs=1)
    Annotation.objects.bulk_create(Annotation(pair=pair, source="imported", rater_label=f"r{i}", values=AB_TIE_ANSWER)
                                   for i in range(3))
    Pair.objects.filter(pk=pair.pk).update(annotations_done=3, status="complete")
    extended = pair_extend_overlap(pair_id=pair.pk, by=1)
    assert (extended.required_annotations, extended.status) == (4, "queued")
    assert assignment_claim(campaign=campaign, annotator=rater).pair_id == pair.pk


SETTLED = ("queued", "complete")


class WorkQueue(RuleBasedStateMachine):
    """Two or three raters and three pairs of one campaign, a clock the machine moves, curators' actions mixed in."""

    @initialize(overlap=st.integers(1, 2), raters=st.integers(2, 3), lease_minutes=st.integers(1, 3))
    def start(self, overlap, raters, lease_minutes):
        self.campaign, self.raters, self.pairs = ab_tie_campaign(
            overlap=overlap, pairs=3, members=raters, lease_minutes=lease_minutes)
        self.now = timezone.now()

    def _assignment(self, rater: int, nth: int) -> Assignment | None:
        mine = list(Assignment.objects.filter(campaign=self.campaign, annotator=self.raters[rater]).order_by("pk"))
        return mine[nth % len(mine)] if mine else None

    @rule(rater=st.integers(0, 2))
    def claim(self, rater):
        annotator = self.raters[rater % len(self.raters)]
        lease = assignment_claim(campaign=self.campaign, annotator=annotator, now=self.now)
        if lease is not None:
            assert lease.status == "active" and lease.expires_at > self.now
            return
        never_had = Pair.objects.filter(campaign=self.campaign).exclude(assignments__annotator=annotator)
        open_slot = [p.pk for p in never_had if p.status == "queued"
                     and self._live(p.pk) + p.annotations_done < p.required_annotations]
        assert not open_slot, f"nothing was claimed, yet {open_slot} had a slot open for this rater"

    def _live(self, pair_id: int) -> int:
        return Assignment.objects.filter(pair_id=pair_id, status="active", expires_at__gt=self.now).count()

    @rule(rater=st.integers(0, 2), nth=st.integers(0, 5))
    def draft(self, rater, nth):
        assignment = self._assignment(rater % len(self.raters), nth)
        if assignment is not None:
            self._refused_only(lambda: assignment_save_draft(assignment=assignment, annotator=assignment.annotator,
                                                             values=AB_TIE_ANSWER, now=self.now), {"assignment_closed"})

    @rule(rater=st.integers(0, 2), nth=st.integers(0, 5), answer=st.sampled_from(["A", "B", "tie"]),
          key=st.sampled_from(["k1", "k2"]))
    def submit(self, rater, nth, answer, key):
        assignment = self._assignment(rater % len(self.raters), nth)
        if assignment is None:
            return
        was = Assignment.objects.get(pk=assignment.pk).status
        before = Annotation.objects.filter(assignment=assignment).first()
        expected = {"withdrawn": {"assignment_withdrawn"}, "skipped": {"assignment_skipped"},
                    "expired": {"lease_expired"}}.get(was, set())
        stored = self._refused_only(lambda: annotation_submit(
            assignment=assignment, annotator=assignment.annotator, values={"preference": answer}, time_on_item_ms=10,
            idempotency_key=key, now=self.now), expected)
        if was == "submitted":
            assert stored == before, "a repeat returns the stored answer"
        if stored is not None:
            assert Assignment.objects.get(pk=assignment.pk).status == "submitted"

    @rule(rater=st.integers(0, 2), nth=st.integers(0, 5))
    def withdraw(self, rater, nth):
        assignment = self._assignment(rater % len(self.raters), nth)
        if assignment is not None:
            self._refused_only(lambda: annotation_withdraw(assignment_id=assignment.pk, annotator=assignment.annotator,
                                                           now=self.now), {"assignment_withdrawn", "assignment_not_submitted"})

    @rule(rater=st.integers(0, 2), nth=st.integers(0, 5), answer=st.sampled_from(["A", "B", "tie"]))
    def correct(self, rater, nth, answer):
        assignment = self._assignment(rater % len(self.raters), nth)
        if assignment is not None:
            self._refused_only(lambda: annotation_correct(assignment_id=assignment.pk, annotator=assignment.annotator,
                                                          values={"preference": answer}, now=self.now),
                               {"assignment_withdrawn", "assignment_not_submitted"})

    @rule(rater=st.integers(0, 2), nth=st.integers(0, 5))
    def skip(self, rater, nth):
        assignment = self._assignment(rater % len(self.raters), nth)
        if assignment is not None:
            self._refused_only(lambda: assignment_skip(assignment=assignment, annotator=assignment.annotator,
                                                       reason="unclear", now=self.now),
                               {"assignment_closed", "assignment_withdrawn"})

    @rule(minutes=st.integers(0, 4))
    def tick(self, minutes):
        self.now += timedelta(minutes=minutes, seconds=1)

    @rule()
    def expire(self):
        assignments_expire(now=self.now)

    @rule(nth=st.integers(0, 2), by=st.integers(1, 2))
    def extend(self, nth, by):
        self._refused_only(lambda: pair_extend_overlap(pair_id=self.pairs[nth].pk, by=by),
                           {"invalid_status", "overlap_above_max"})

    @rule(nth=st.integers(0, 2))
    def exclude(self, nth):
        self._refused_only(lambda: pair_exclude(pair_id=self.pairs[nth].pk, reason="off-topic"), {"invalid_status"})

    @rule(nth=st.integers(0, 2))
    def restore(self, nth):
        self._refused_only(lambda: pair_restore(pair_id=self.pairs[nth].pk), {"invalid_status"})

    @staticmethod
    def _refused_only(action, codes: set[str]):
        """The action's result, or None when it was refused with one of ``codes`` (any other refusal fails)."""
        try:
            return action()
        except ApplicationError as refused:
            assert refused.code in codes, f"refused with {refused.code}: {refused.message}"
            return None

    @invariant()
    def counters_are_what_the_rows_say(self):
        if not hasattr(self, "campaign"):
            return
        pairs = Pair.objects.filter(campaign=self.campaign).annotate(
            live=Count("assignments", filter=Q(assignments__status="active"), distinct=True),
            stored=Count("annotations", distinct=True),
        )
        for pair in pairs:
            assert (pair.active_claims, pair.annotations_done) == (pair.live, pair.stored), f"pair {pair.pk}"
            assert pair.active_claims + pair.annotations_done <= pair.required_annotations, "never over its overlap"
            if pair.status in SETTLED:
                assert (pair.status == "complete") == (pair.annotations_done >= pair.required_annotations), pair.status
        answered = Assignment.objects.filter(campaign=self.campaign).annotate(n=Count("annotation"))
        for assignment in answered:
            assert assignment.n == (1 if assignment.status == "submitted" else 0), assignment.status


@pytest.mark.django_db(transaction=True)
def test_the_work_queue_keeps_its_invariants_whatever_happens():
    run_state_machine_as_test(WorkQueue, settings=settings(
        max_examples=40, stateful_step_count=30, deadline=None, derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]))
