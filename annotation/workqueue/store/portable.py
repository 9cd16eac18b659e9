"""The work queue's store through the ORM, for any database Django supports (SQLite, the embedded default).

Every method runs inside the transaction the service opens; on SQLite each transaction begins IMMEDIATE (see
settings) and so holds the database's write lock from BEGIN, which serializes claims: a pair's overlap holds
without row locks.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db.models import Exists, F, OuterRef, Q, Subquery

from annotation.catalogue.models import PAIR_CLAIMABLE, PAIR_SLOTS_TAKEN, Campaign, Pair
from annotation.catalogue.services.pair_status import status_following_counts
from annotation.workqueue.models import Annotation, Assignment, AssignmentEvent
from annotation.workqueue.rules import orientation_swapped
from annotation.workqueue.selectors import still_member
from annotation.workqueue.services.profile import entry_gate_facts
from annotation.workqueue.store import AssignmentChanged, ClaimRead, SubmissionRead, event_record, submit_detail
from core.errors import ApplicationError

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from annotation.accounts.models import User


def claimable_pairs(*, campaign: Campaign, annotator: User, gold: bool) -> QuerySet[Pair]:
    """The claim's candidates in ``pair_claim_idx`` order, locked with SKIP LOCKED where the database can.

    Precondition: inside a transaction.
    """
    seen = Assignment.objects.filter(pair=OuterRef("pk"), annotator=annotator)
    return (
        Pair.objects.filter(PAIR_CLAIMABLE, campaign=campaign, is_gold=gold)
        .filter(~Exists(seen))
        .order_by(F("priority").desc(), PAIR_SLOTS_TAKEN.desc(), "id")
        .select_for_update(skip_locked=True)
    )


class PortableStore:
    name = "portable"
    statements_atomic = False

    def claim_read(self, *, by: str, campaign: int | str, annotator: User, now: datetime, draw: float,
                   known: Campaign | None) -> ClaimRead:
        """The campaign, then in one statement the membership (open lease, its expiry, any lease due) with the
        entry gate's facts. Never claims: the service does, through ``lease``, in its transaction."""
        found = known or Campaign.objects.filter(**{by: campaign}).first()
        if found is None:
            return ClaimRead(None, None, None, False)
        own = Assignment.objects.filter(annotator_id=annotator.pk, campaign_id=found.pk, status=Assignment.Status.ACTIVE)
        due = Assignment.objects.filter(campaign_id=found.pk, status=Assignment.Status.ACTIVE, expires_at__lte=now)
        profile_missing, crowd_entry = entry_gate_facts(user=annotator, campaign=OuterRef("campaign_id"))
        read = (
            Campaign.members.through.objects.filter(campaign_id=found.pk, user_id=annotator.pk)
            .values_list(Subquery(own.values("pk")[:1]), Subquery(own.values("expires_at")[:1]), Exists(due),
                         profile_missing, crowd_entry)
            .first()
        )
        if read is None:
            return ClaimRead(None, found, None, False, None)
        return ClaimRead(None, found, read[:3], False, None, read[3], read[4])

    def lease(self, *, campaign: Campaign, annotator: User, gold: bool, now: datetime) -> Assignment | None:
        pair_id = claimable_pairs(campaign=campaign, annotator=annotator, gold=gold).values_list("pk", flat=True).first()
        if pair_id is None:
            return None
        taken = Pair.objects.filter(PAIR_CLAIMABLE, pk=pair_id).update(active_claims=F("active_claims") + 1)
        if taken != 1:
            raise ApplicationError(
                "The pair filled up while it was being claimed; try again.", code="claim_conflict", status_code=409
            )
        assignment = Assignment.objects.create(
            pair_id=pair_id,
            campaign=campaign,
            annotator=annotator,
            status=Assignment.Status.ACTIVE,
            swapped=orientation_swapped(campaign.orientation_seed, pair_id, annotator.pk),
            claimed_at=now,
            expires_at=now + timedelta(minutes=campaign.lease_minutes),
        )
        event_record(assignment, AssignmentEvent.Kind.CLAIM, now)
        return self.display_read(assignment_id=assignment.pk, annotator=annotator)

    def locked_own(self, assignment: Assignment, annotator: User) -> Assignment:
        locked = (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("pair", "campaign__rating_schema")
            .filter(still_member(), pk=assignment.pk, annotator_id=annotator.pk)
            .first()
        )
        if locked is None:
            raise ApplicationError("No such assignment.", code="not_found", status_code=404)
        return locked

    def display_read(self, *, assignment_id: int, annotator: User) -> Assignment:
        assignment = (
            Assignment.objects.select_related("campaign__rating_schema", "pair__prompt", "pair__response_a",
                                              "pair__response_b")
            .filter(still_member(), pk=assignment_id, annotator_id=annotator.pk)
            .first()
        )
        if assignment is None:
            raise ApplicationError("No such assignment.", code="not_found", status_code=404)
        return assignment

    def submission_read(self, assignment: Assignment, annotator: User, *,
                        lock: bool) -> tuple[SubmissionRead, Annotation | None]:
        locked = self.locked_own(assignment, annotator)
        return SubmissionRead.of(locked), Annotation.objects.filter(assignment_id=locked.pk).first()

    def submission_write(self, *, held: SubmissionRead, annotator: User, fields: dict, was_expired: bool,
                         now: datetime) -> Annotation | None:
        """Precondition: inside a transaction (the caller's, which a refusal rolls back): the assignment is closed
        only while its status is still the one read, then the pair counts it."""
        closed = Assignment.objects.filter(pk=held.id, status=held.status).update(
            status=Assignment.Status.SUBMITTED, finished_at=now, draft={})
        if closed != 1:
            raise AssignmentChanged
        done = F("annotations_done") + 1
        counted = Pair.objects.filter(PAIR_CLAIMABLE if was_expired else Q(), pk=held.pair_id).update(
            annotations_done=done,
            active_claims=F("active_claims") - (0 if was_expired else 1),
            status=status_following_counts(done=done),
        )
        if counted != 1:
            return None
        annotation = Annotation.objects.create(
            pair_id=held.pair_id, assignment_id=held.id, annotator=annotator, source=Annotation.Source.CONCORD, **fields
        )
        event_record(held, AssignmentEvent.Kind.SUBMIT, now, annotation=annotation.pk,
                     **submit_detail(fields, was_expired))
        return annotation
