"""The curator answers a rater's report on a pair: in words, and by excluding the pair or marking it fixed.

The rater's side (the report itself) is ``annotation.workqueue.services.reports``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from annotation.catalogue.models import Pair
from annotation.workqueue.models import PairReport
from core.errors import ApplicationError
from curation.services import curator_actions

if TYPE_CHECKING:
    from annotation.accounts.models import User

REPORT_ANSWER_MAX = 2000
# What the curator does with the pair as they answer: the API's words, and what the report records.
REPORT_ACTIONS = {"none": PairReport.Action.NONE, "exclude": PairReport.Action.EXCLUDED, "fixed": PairReport.Action.FIXED}


@transaction.atomic
def pair_report_answer(*, report_id: int, answer: object, action: object = "none", actor: User,
                       now: datetime | None = None) -> PairReport:
    """Answer the report (the rater sees the answer in My work) and act on its pair.

    ``action``: ``none`` (the answer alone; the report is then ``answered`` and can be answered again), ``exclude``
    (the console's own exclusion, ``curator_actions.pair_exclude``, unless the pair is already excluded) or ``fixed``
    (the pair was put right); either closes the report. An answer is required without an action. A closed report
    is refused with ``report_closed`` (409). Holds the report's row lock, then the pair's.
    """
    now = now or timezone.now()
    chosen = REPORT_ACTIONS.get(action) if isinstance(action, str) else None
    if chosen is None:
        raise ApplicationError(f"Unknown action {str(action)[:40]!r}; choose one of: {', '.join(REPORT_ACTIONS)}.",
                               code="invalid_action", extra={"actions": list(REPORT_ACTIONS)})
    if not isinstance(answer, str):
        raise ApplicationError("The answer is text.", code="invalid_answer")
    answer = answer.strip()
    if len(answer) > REPORT_ANSWER_MAX:
        raise ApplicationError(f"The answer is {len(answer):,} characters; keep it to {REPORT_ANSWER_MAX:,}.",
                               code="answer_too_long", extra={"max_length": REPORT_ANSWER_MAX})
    if action == "none" and not answer:
        raise ApplicationError("Write an answer for the rater (or exclude the pair, or mark it fixed).",
                               code="answer_required")
    report = PairReport.objects.select_for_update().filter(pk=report_id).first()
    if report is None:
        raise ApplicationError("No such report.", code="not_found", status_code=404)
    if report.status == PairReport.Status.CLOSED:
        raise ApplicationError(f"This report is closed ({report.get_action_display().lower()}).",
                               code="report_closed", status_code=409)
    if action == "exclude" and not Pair.objects.filter(pk=report.pair_id, status=Pair.Status.EXCLUDED).exists():
        label = PairReport.Reason(report.reason).name.lower().replace("_", " ")
        curator_actions.pair_exclude(pair_id=report.pair_id, reason=f"report {report.pk} ({label})", actor=actor)
    report.answer = answer or report.answer
    report.action = chosen
    report.status = PairReport.Status.ANSWERED if chosen == PairReport.Action.NONE else PairReport.Status.CLOSED
    report.answered_by = actor
    report.answered_at = now
    report.save(update_fields=["answer", "action", "status", "answered_by", "answered_at"])
    return report
