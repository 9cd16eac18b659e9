"""Review and correct: an annotator changes or withdraws a submitted answer while its pair is undecided.

Kept apart from the work queue's claim and submit (``annotation.workqueue.services.assignments``): a submission writes
no revision (the fast path stays as it is); the first correction or withdrawal records the submitted answer
as the first revision, from the annotation itself, before changing anything. The annotation always holds the
latest answer, which is what agreement and consensus read.

A pair "has gone into consensus" once a consensus run or a curator wrote its ConsensusRecord (kept, dropped or
disputed); a release takes only pairs kept by consensus, so the same check covers releases. From then on a
correction or a withdrawal is refused with 409 and the answer stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from annotation.catalogue import schemas
from annotation.catalogue.models import Pair
from annotation.workqueue import consistency
from annotation.workqueue.models import Annotation, AnnotationRevision, Assignment, AssignmentEvent
from annotation.workqueue.rules import gold_matches
from annotation.workqueue.services.assignments import pair_counters_recount
from annotation.workqueue.services.qualification import gold_pause_review
from core.errors import ApplicationError

if TYPE_CHECKING:
    from annotation.accounts.models import User

RATIONALE_ID = "rationale"


def _locked_submitted(*, assignment_id: int, annotator) -> tuple[Assignment, Pair, Annotation]:
    """The annotator's submitted assignment, its pair (row locked, so a curator's decision and this change do not
    interleave) and its annotation. Precondition: inside a transaction."""
    assignment = (
        Assignment.objects.select_related("campaign__rating_schema")
        .filter(pk=assignment_id, annotator_id=annotator.pk)
        .first()
    )
    if assignment is None:
        raise ApplicationError("No such assignment.", code="not_found", status_code=404)
    pair = Pair.objects.select_for_update().get(pk=assignment.pair_id)
    assignment = Assignment.objects.select_for_update().select_related("campaign__rating_schema").get(pk=assignment.pk)
    if assignment.status == Assignment.Status.WITHDRAWN:
        raise ApplicationError("You withdrew this answer; it can no longer be changed.", code="assignment_withdrawn",
                               status_code=409)
    if assignment.status != Assignment.Status.SUBMITTED:
        raise ApplicationError("Only a submitted answer can be reviewed.", code="assignment_not_submitted", status_code=409)
    if Pair.objects.filter(pk=pair.pk, consensus__isnull=False).exists():
        raise ApplicationError(
            "This pair has gone into consensus; your answer can no longer be changed and stays as submitted.",
            code="pair_decided", status_code=409,
        )
    annotation = Annotation.objects.get(assignment=assignment)
    return assignment, pair, annotation


def _record_first(assignment: Assignment, annotation: Annotation) -> None:
    """The answer as first submitted, kept as the first revision before anything changes it."""
    if not AnnotationRevision.objects.filter(assignment=assignment).exists():
        AnnotationRevision.objects.create(assignment=assignment, kind=AnnotationRevision.Kind.SUBMITTED,
                                          values=annotation.values, rationale=annotation.rationale, at=annotation.created_at)


def _event(assignment: Assignment, kind: str, at: datetime, **detail) -> None:
    AssignmentEvent.objects.create(assignment=assignment, campaign_id=assignment.campaign_id,
                                   annotator_id=assignment.annotator_id, kind=kind, at=at, detail=detail)


@dataclass(frozen=True)
class Correction:
    annotation: Annotation
    warnings: list[str]


@transaction.atomic
def annotation_correct(*, assignment_id: int, annotator: User, values: dict, now: datetime | None = None) -> Correction:
    """Replace the annotator's answer (``values`` as shown: left = "A") and keep the one replaced as a revision.

    Refused with 409 once the pair has gone into consensus, or after a withdrawal; 400 for answers the schema
    does not accept, as at submission. The warnings are soft (``annotation.workqueue.consistency``), naming the
    sides as the annotator sees them.
    """
    now = now or timezone.now()
    assignment, pair, annotation = _locked_submitted(assignment_id=assignment_id, annotator=annotator)
    definition = assignment.campaign.rating_schema.definition
    errors = schemas.validate_answers(definition, values, criteria=[c for c in pair.criteria if isinstance(c, str)] or None)
    if errors:
        raise ApplicationError("Some answers are missing or invalid.", code="invalid_answers", extra={"fields": errors})
    canonical = schemas.reorient(definition, values, swapped=assignment.swapped)
    _record_first(assignment, annotation)
    rationale = canonical.get(RATIONALE_ID)
    annotation.values = canonical
    annotation.rationale = rationale if isinstance(rationale, str) else ""
    annotation.gold_correct = gold_matches(definition, pair.gold_answer, canonical) if pair.is_gold else None
    annotation.save(update_fields=["values", "rationale", "gold_correct"])
    revision = AnnotationRevision.objects.create(assignment=assignment, kind=AnnotationRevision.Kind.CORRECTED,
                                                 values=canonical, rationale=annotation.rationale, at=now)
    _event(assignment, AssignmentEvent.Kind.CORRECT, now, annotation=annotation.pk, revision=revision.pk)
    if annotation.gold_correct is not None:
        gold_pause_review(pair_id=pair.pk, annotator=annotator, now=now)  # a corrected gold answer moves the score
    return Correction(annotation, consistency.warnings(definition, values))


@transaction.atomic
def annotation_withdraw(*, assignment_id: int, annotator: User, now: datetime | None = None) -> Assignment:
    """Take the annotator's answer back: the annotation is removed (its versions stay as revisions, the last one
    a withdrawal), the pair needs one more rating and returns to the queue if it was complete. Refused with 409
    once the pair has gone into consensus; withdrawing twice is refused the same way (nothing left to withdraw).
    """
    now = now or timezone.now()
    assignment, pair, annotation = _locked_submitted(assignment_id=assignment_id, annotator=annotator)
    _record_first(assignment, annotation)
    AnnotationRevision.objects.create(assignment=assignment, kind=AnnotationRevision.Kind.WITHDRAWN, values={},
                                      rationale="", at=now)
    annotation_id = annotation.pk
    annotation.delete()
    assignment.status = Assignment.Status.WITHDRAWN
    assignment.save(update_fields=["status"])
    # The recount puts a pair complete only by its overlap back in the queue for the slot this frees
    # (annotation.catalogue.services.pair_status); a curator's or the pipeline's statuses stay.
    pair_counters_recount(pair_ids=[pair.pk])
    _event(assignment, AssignmentEvent.Kind.WITHDRAW, now, annotation=annotation_id)
    return assignment
