"""A rater reports a broken pair: the report is stored for the curator and the rater's lease is given back.

A report is not a rating: it writes no annotation, so agreement, consensus and releases (which read annotations
only) never see it. The curator's answer is ``curation.services.reports.pair_report_answer``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from annotation.workqueue.models import Assignment, PairReport
from annotation.workqueue.services.assignments import assignment_skip
from core.errors import ApplicationError

if TYPE_CHECKING:
    from annotation.accounts.models import User

REPORT_NOTE_MAX = 1000
REASONS = tuple(PairReport.Reason.values)


def report_reason_check(reason: object) -> str:
    """``reason`` when it is one of PairReport.Reason, else ApplicationError ``invalid_reason`` naming the known ones."""
    if not isinstance(reason, str) or reason not in REASONS:
        shown = repr(reason)[:60] if isinstance(reason, str) else "nothing" if reason is None else f"a {type(reason).__name__}"
        raise ApplicationError(
            f"Unknown reason {shown}; choose one of: {', '.join(REASONS)}.", code="invalid_reason",
            extra={"reasons": list(REASONS)},
        )
    return reason


def report_note_clean(note: object, *, reason: str) -> str:
    """The note stripped; at most REPORT_NOTE_MAX characters, and required when the reason is ``other``."""
    if note is None:
        note = ""
    if not isinstance(note, str):
        raise ApplicationError("The note is text.", code="invalid_note")
    note = note.strip()
    if len(note) > REPORT_NOTE_MAX:
        raise ApplicationError(
            f"The note is {len(note):,} characters; keep it to {REPORT_NOTE_MAX:,}.", code="note_too_long",
            extra={"max_length": REPORT_NOTE_MAX},
        )
    if reason == PairReport.Reason.OTHER and not note:
        raise ApplicationError("Say what is wrong with the pair (the reason is “other”).", code="note_required")
    return note


@transaction.atomic
def pair_report_submit(*, assignment: Assignment, annotator: User, reason: object, note: object = "",
                       now: datetime | None = None) -> tuple[PairReport, bool]:
    """Store the annotator's report on the pair of ``assignment`` and give the lease back as a skip does (the
    rater then gets the next pair, never this one again). Returns the report and whether it is new.

    A repeat with the same reason and note returns the stored report; a different second report on the same
    assignment is refused with ``already_reported`` (409). Only a pair the annotator is rating can be reported: a
    submitted, withdrawn or skipped one is refused (409); another annotator's assignment is not found (404).
    Holds the assignment's row lock from the start, so two reports at the same moment are one report.
    """
    now = now or timezone.now()
    reason = report_reason_check(reason)
    note = report_note_clean(note, reason=reason)
    locked = Assignment.objects.select_for_update().filter(pk=assignment.pk, annotator_id=annotator.pk).first()
    if locked is None:
        raise ApplicationError("No such assignment.", code="not_found", status_code=404)
    earlier = PairReport.objects.filter(assignment_id=locked.pk).first()
    if earlier is not None:
        if (earlier.reason, earlier.note) == (reason, note):
            return earlier, False
        raise ApplicationError("You already reported this pair; the curator has your report.",
                               code="already_reported", status_code=409)
    if locked.status == Assignment.Status.SUBMITTED:
        raise ApplicationError("You already rated this pair; it can no longer be reported from here.",
                               code="assignment_closed", status_code=409)
    if locked.status == Assignment.Status.WITHDRAWN:
        raise ApplicationError("You withdrew your answer to this pair; it can no longer be reported from here.",
                               code="assignment_withdrawn", status_code=409)
    if locked.status == Assignment.Status.SKIPPED:
        raise ApplicationError("You skipped this pair; it can no longer be reported.", code="assignment_skipped",
                               status_code=409)
    assignment_skip(assignment=locked, annotator=annotator, reason=f"reported: {reason}", now=now)
    report = PairReport.objects.create(
        assignment=locked, pair_id=locked.pair_id, campaign_id=locked.campaign_id, reporter=annotator,
        reason=reason, note=note, created_at=now,
    )
    return report, True
